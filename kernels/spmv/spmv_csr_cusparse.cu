/*
 * spmv_csr_cusparse.cu — the vendor baseline: cusparseSpMV on CSR with
 * CUSPARSE_SPMV_CSR_ALG1. Handle, descriptors and the work buffer are made
 * in prepare; only cusparseSpMV is timed.
 */
#include "spmv_gpu.cuh"

static const double one = 1.0, zero = 0.0;

extern "C" int sp_spmv_cusparse_prepare(const sp_problem *pb, const sp_params *p,
                                        void **state, sp_phases *ph, sp_err *err)
{
    (void)p;
    sp_gpu_spmv *g;
    int rc = sp_spmv_gpu_upload(pb, &g, ph, err);
    *state = g;
    if (rc)
        return rc;
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
    ph->h2d_s += sp_seconds() - t0;
    return 0;
}

extern "C" int sp_spmv_cusparse_run(void *state, double *seconds, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    SP_CUDA(cudaEventRecord(g->start), err);
    SP_CUSPARSE(cusparseSpMV(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, g->matA,
                             g->vecX, &zero, g->vecY, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                             g->buffer), err);
    SP_CUDA(cudaGetLastError(), err);
    SP_CUDA(cudaEventRecord(g->stop), err);
    return sp_spmv_gpu_elapsed(g, seconds, err);
}
