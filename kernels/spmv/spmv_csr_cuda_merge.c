/*
 * spmv_csr_cuda_merge.c — descriptor of the load-balanced merge-path CSR
 * kernel (spmv_csr_cuda_merge.cu): equal work per warp whatever the row
 * lengths (power-law rows, one dense row, many empty rows).
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_csr_cuda_merge = {
    .name = "spmv_csr_cuda_merge",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, merge-path split of rows + nonzeros, one tile of 256 per warp",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_WARPS},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_merge_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .analyse = SP_GPU_FN(sp_spmv_cuda_merge_analyse),
    .launch = SP_GPU_FN(sp_spmv_cuda_merge_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_merge,
};
