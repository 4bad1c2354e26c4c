/*
 * spmv_csr_cuda_scalar.c — descriptor of the one-thread-per-row CUDA CSR
 * kernel (spmv_csr_cuda_scalar.cu). In a CPU-only build its entry points
 * are NULL and the runner skips it with the reason.
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_csr_cuda_scalar = {
    .name = "spmv_csr_cuda_scalar",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, one CUDA thread per row",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_BLOCKSIZE},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_scalar_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_scalar_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_csr,
};
