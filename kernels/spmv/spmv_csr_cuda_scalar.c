/*
 * spmv_csr_cuda_scalar.c — descriptor of the one-thread-per-row CUDA CSR
 * kernel (spmv_csr_cuda_scalar.cu). In a CPU-only build its entry points
 * are NULL and the runner skips it with the reason.
 */
#include "spmv.h"

/* cudaMalloc hands out memory in 2 MiB pages on current GPUs: count each
 * array rounded up to that, and never less than one element (as
 * sp_spmv_gpu_upload allocates). */
static uint64_t device_array(uint64_t n, uint64_t elem)
{
    const uint64_t page = 2u << 20;
    uint64_t bytes = (n ? n : 1) * elem;
    return (bytes + page - 1) / page * page;
}

/* Device memory of the CSR (rowptr, colidx, val), x and y. */
static uint64_t device_csr_xy(const sp_csr *A)
{
    return device_array((uint64_t)A->rows + 1, 4) + device_array((uint64_t)A->nnz, 4) +
           device_array((uint64_t)A->nnz, 8) + device_array((uint64_t)A->cols, 8) +
           device_array((uint64_t)A->rows, 8);
}

/* The CSR, x and y on the device; on the host only the small state (y
 * comes back into the runner's buffer). Pure arithmetic: the runner calls
 * it in a process that must not touch CUDA. */
static int cuda_scalar_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                            sp_err *err)
{
    (void)p, (void)err;
    need->host_bytes = 4096;
    need->device_bytes = device_csr_xy(pb->A);
    return 0;
}

const sp_kernel sp_spmv_csr_cuda_scalar = {
    .name = "spmv_csr_cuda_scalar",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, one CUDA thread per row",
    .needs_gpu = 1,
    .naxes = 1,
    .axes = {{"blocksize", "32,64,128,256,512,1024"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_scalar_prepare),
    .run = SP_GPU_FN(sp_spmv_cuda_scalar_run),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = cuda_scalar_need,
};
