/*
 * spmv_csr_gpu.c — descriptors of the GPU CSR SpMV kernels. They compile in
 * every build; in a CPU-only build their entry points are NULL and the
 * runner skips them with the reason.
 */
#include "spmv.h"

const sp_kernel sp_spmv_csr_cuda_scalar = {
    .name = "spmv_csr_cuda_scalar", .operation = "spmv", .format = "csr", .backend = "cuda",
    .summary = "CSR, one CUDA thread per row",
    .needs_gpu = 1,
    .naxes = 1, .axes = {{"blocksize", "32,64,128,256,512,1024"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_scalar_prepare),
    .run = SP_GPU_FN(sp_spmv_cuda_scalar_run),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
};

const sp_kernel sp_spmv_csr_cusparse = {
    .name = "spmv_csr_cusparse", .operation = "spmv", .format = "csr", .backend = "cusparse",
    .summary = "cusparseSpMV, CSR, CUSPARSE_SPMV_CSR_ALG1",
    .needs_gpu = 1,
    .prepare = SP_GPU_FN(sp_spmv_cusparse_prepare),
    .run = SP_GPU_FN(sp_spmv_cusparse_run),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
};
