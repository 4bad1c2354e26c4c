/*
 * spmv_csr_cuda_vector.c — descriptors of the CSR kernels with a group of
 * threads per row (spmv_csr_cuda_vector.cu): one warp per row, and the
 * sub-warp kernel whose `lanes` axis sets the group (1 = auto from the mean
 * row length, since axis values are integers >= 1: one lane per row is
 * spmv_csr_cuda_scalar; see sp_gpu_lanes).
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_csr_cuda_vector = {
    .name = "spmv_csr_cuda_vector",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, one warp per row (shuffle reduction)",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_WARPS},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_vector_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_vector_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_csr,
};

const sp_kernel sp_spmv_csr_cuda_subwarp = {
    .name = "spmv_csr_cuda_subwarp",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, `lanes` threads per row (2..32; 1 = auto from the mean row length)",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_WARPS}, {"lanes", "1,2,4,8,16,32", "1,2,4,8,16,32"},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_subwarp_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_vector_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_csr,
};
