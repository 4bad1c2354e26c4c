/*
 * spmv_csr_cuda_hybrid.c — descriptor of the hybrid CSR kernel
 * (spmv_csr_cuda_hybrid.cu): `lanes` threads per short row (1 = auto from
 * the mean row length), rows above 32·lanes nonzeros split into chunks of
 * SP_HYBRID_CHUNK, one warp each, summed without value atomics.
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_csr_cuda_hybrid = {
    .name = "spmv_csr_cuda_hybrid",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, `lanes` threads per short row, long rows split into warp chunks, "
               "one launch",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_WARPS}, {"lanes", "1,2,4,8,16,32", "1,2,4,8,16,32"},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_hybrid_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_hybrid_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_hybrid,
};
