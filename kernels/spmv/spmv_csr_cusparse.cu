/*
 * spmv_csr_cusparse.cu — the vendor baseline: cusparseSpMV on CSR (32-bit
 * indices, double) with CUSPARSE_SPMV_CSR_ALG1. The handle, descriptors
 * and work buffer are made in prepare; only cusparseSpMV is timed.
 */
#include "spmv_gpu.cuh"

static const double one = 1.0, zero = 0.0;

/* Handle, matrix and vector descriptors, and the work buffer (whose
 * allocation counts as h2d, like the other device allocations). */
static int cusparse_setup(sp_gpu_spmv *g, sp_phases *ph, sp_err *err)
{
    SP_CUSPARSE(cusparseCreate(&g->handle), err);
    SP_CUSPARSE(cusparseCreateCsr(&g->matA, g->rows, g->cols, g->nnz, g->rowptr, g->colidx,
                                  g->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), err);
    SP_CUSPARSE(cusparseCreateDnVec(&g->vecX, g->cols, g->x, CUDA_R_64F), err);
    SP_CUSPARSE(cusparseCreateDnVec(&g->vecY, g->rows, g->y, CUDA_R_64F), err);
    size_t bytes = 0;
    SP_CUSPARSE(cusparseSpMV_bufferSize(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                        g->matA, g->vecX, &zero, g->vecY, CUDA_R_64F,
                                        CUSPARSE_SPMV_CSR_ALG1, &bytes), err);
    double t0 = sp_seconds();
    SP_CUDA(cudaMalloc(&g->buffer, bytes ? bytes : 1), err);
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s += sp_seconds() - t0;
    return 0;
}

/* Upload A and x, then set cuSPARSE up (not for rows = 0: nothing to do). */
extern "C" int sp_spmv_cusparse_prepare(const sp_problem *pb, const sp_params *p,
                                        void **state, sp_phases *ph, sp_err *err)
{
    (void)p;
    *state = NULL;
    sp_gpu_spmv *g = sp_spmv_gpu_new(pb, err);
    if (!g)
        return -1;
    if (sp_spmv_gpu_upload(pb, g, ph, err) || (g->rows > 0 && cusparse_setup(g, ph, err))) {
        sp_spmv_gpu_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

/* One cusparseSpMV between the events; rows = 0 calls nothing. */
extern "C" int sp_spmv_cusparse_run(void *state, double *seconds, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cusparse: run without a state");
    SP_CUDA(cudaEventRecord(g->start), err);
    if (g->rows > 0) {
        SP_CUSPARSE(cusparseSpMV(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, g->matA,
                                 g->vecX, &zero, g->vecY, CUDA_R_64F,
                                 CUSPARSE_SPMV_CSR_ALG1, g->buffer), err);
        SP_CUDA(cudaGetLastError(), err);
    }
    SP_CUDA(cudaEventRecord(g->stop), err);
    return sp_spmv_gpu_elapsed(g, seconds, err);
}
