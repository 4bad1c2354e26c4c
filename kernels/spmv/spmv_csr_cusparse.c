/*
 * spmv_csr_cusparse.c — descriptor of the vendor baseline, cusparseSpMV on
 * CSR (spmv_csr_cusparse.cu). In a CPU-only build its entry points are
 * NULL and the runner skips it with the reason.
 */
#include "spmv_gpu_host.h"

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

/* The CSR, x and y, plus cuSPARSE's own. cusparseSpMV_bufferSize can only
 * be asked on a GPU, and this runs in the parent, which never touches
 * CUDA: so estimate conservatively. CSR_ALG1 asks for little or nothing
 * (deterministic ALG2 asks O(rows)); count 16 bytes per row, rounded, and
 * 64 MiB for the handle's and the library's own workspace. */
static int cusparse_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                         sp_err *err)
{
    (void)p, (void)err;
    need->host_bytes = 4096;
    need->device_bytes = device_csr_xy(pb->A) +
                         device_array((uint64_t)pb->A->rows + 1, 16) + (64u << 20);
    return 0;
}

const sp_kernel sp_spmv_csr_cusparse = {
    .name = "spmv_csr_cusparse",
    .operation = "spmv",
    .format = "csr",
    .backend = "cusparse",
    .summary = "cusparseSpMV, CSR, CUSPARSE_SPMV_CSR_ALG1",
    .needs_gpu = 1,
    .prepare = SP_GPU_FN(sp_spmv_cusparse_prepare),
    .run = SP_GPU_FN(sp_spmv_cusparse_run),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = cusparse_need,
};
