/*
 * spmv_csr_cusparse.cu — the vendor baselines: cusparseSpMV (32-bit
 * indices, double) on CSR (ALG1, ALG2), COO (ALG1, ALG2) and sliced ELL
 * (SELL ALG1, built by kernels/hll.c, the HLL-aligned GPU layout). Handle,
 * descriptors and work buffer are made in prepare (their allocation timed as
 * h2d); cusparseSpMV_preprocess, where the algorithm takes it, is timed as
 * conversion; a launch is cusparseSpMV alone, on the harness's stream.
 */
#include "spmv_gpu.cuh"

static const double one = 1.0, zero = 0.0;

/* The matrix descriptor of g's format: SELL when g->sell_val is set, COO
 * when g->coo_row is, CSR otherwise. */
static int create_matrix(sp_gpu_spmv *g, sp_err *err)
{
    if (g->sell_val)
        SP_CUSPARSE(cusparseCreateSlicedEll(&g->matA, g->rows, g->cols, g->nnz, g->stored,
                                            g->hack, g->sell_off, g->sell_col, g->sell_val,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), err);
    else if (g->coo_row)
        SP_CUSPARSE(cusparseCreateCoo(&g->matA, g->rows, g->cols, g->nnz, g->coo_row,
                                      g->colidx, g->val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), err);
    else
        SP_CUSPARSE(cusparseCreateCsr(&g->matA, g->rows, g->cols, g->nnz, g->rowptr,
                                      g->colidx, g->val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                      CUDA_R_64F), err);
    return 0;
}

/* Handle, descriptors, work buffer (h2d), preprocessing (convert). */
static int cusparse_setup(sp_gpu_spmv *g, sp_phases *ph, sp_err *err)
{
    cusparseSpMVAlg_t alg = (cusparseSpMVAlg_t)g->alg;
    SP_CUSPARSE(cusparseCreate(&g->handle), err);
    if (create_matrix(g, err))
        return -1;
    SP_CUSPARSE(cusparseCreateDnVec(&g->vecX, g->cols, g->x, CUDA_R_64F), err);
    SP_CUSPARSE(cusparseCreateDnVec(&g->vecY, g->rows, g->y, CUDA_R_64F), err);
    size_t bytes = 0;
    SP_CUSPARSE(cusparseSpMV_bufferSize(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                        g->matA, g->vecX, &zero, g->vecY, CUDA_R_64F, alg,
                                        &bytes), err);
    double t0 = sp_seconds();
    SP_CUDA(cudaMalloc(&g->buffer, bytes ? bytes : 1), err);
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s += sp_seconds() - t0;
    t0 = sp_seconds();
    cusparseStatus_t s = cusparseSpMV_preprocess(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                 &one, g->matA, g->vecX, &zero, g->vecY,
                                                 CUDA_R_64F, alg, g->buffer);
    if (s != CUSPARSE_STATUS_SUCCESS && s != CUSPARSE_STATUS_NOT_SUPPORTED)
        return sp_fail(err, "cusparseSpMV_preprocess: %s", cusparseGetErrorString(s));
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->convert_s += sp_seconds() - t0;
    return 0;
}

/* The host-side conversion and upload of each format. */
enum cusparse_format { FMT_CSR, FMT_COO, FMT_SELL };

/* COO row indices from rowptr, on the host (convert), then uploaded. */
static int upload_coo_rows(const sp_csr *A, sp_gpu_spmv *g, sp_phases *ph, sp_err *err)
{
    double t0 = sp_seconds();
    int32_t *row;
    if (sp_coo_rows(A, &row, err))
        return -1;
    ph->convert_s += sp_seconds() - t0;
    t0 = sp_seconds();
    int rc = sp_spmv_gpu_put((void **)&g->coo_row, row, (size_t)A->nnz * 4, err);
    free(row);
    if (rc)
        return -1;
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s += sp_seconds() - t0;
    return 0;
}

/* SELL with the `hack` axis as slice size: kernels/hll.c's GPU layout,
 * column-major (padding column -1, as cuSPARSE wants it). */
static int upload_sell(const sp_problem *pb, const sp_params *p, sp_gpu_spmv *g,
                       sp_phases *ph, sp_err *err)
{
    int hack;
    if (sp_gpu_hack("spmv_sell_cusparse", p, &hack, err))
        return -1;
    sp_hll H;
    sp_hll_opts o = sp_hll_gpu(hack, 1);
    double t0 = sp_seconds();
    if (sp_hll_from_csr(&H, pb->A, &o, err))
        return sp_fail_prefix(err, "spmv_sell_cusparse");
    ph->convert_s += sp_seconds() - t0;
    int rc = sp_spmv_gpu_upload_vectors(pb, g, ph, err) || sp_spmv_gpu_put_sell(g, &H, ph, err);
    sp_hll_free(&H);
    return rc ? -1 : 0;
}

/* Upload the format, then set cuSPARSE up (not for rows = 0 or nnz = 0:
 * the launch then writes y = 0 itself, as some algorithms refuse empty matrices). */
static int cusparse_prepare(const sp_problem *pb, const sp_params *p, enum cusparse_format f,
                            cusparseSpMVAlg_t alg, void **state, sp_phases *ph, sp_err *err)
{
    *state = NULL;
    sp_gpu_spmv *g = sp_spmv_gpu_new(pb, err);
    if (!g)
        return -1;
    g->alg = (int)alg;
    int rc = f == FMT_SELL ? upload_sell(pb, p, g, ph, err) : sp_spmv_gpu_upload(pb, g, ph, err);
    if (!rc && f == FMT_COO)
        rc = upload_coo_rows(pb->A, g, ph, err);
    if (!rc && g->rows > 0 && g->nnz > 0)
        rc = cusparse_setup(g, ph, err);
    if (rc) {
        sp_spmv_gpu_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

extern "C" int sp_spmv_cusparse_prepare(const sp_problem *pb, const sp_params *p,
                                        void **state, sp_phases *ph, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_CSR, CUSPARSE_SPMV_CSR_ALG1, state, ph, err);
}

extern "C" int sp_spmv_cusparse_csr_alg2_prepare(const sp_problem *pb, const sp_params *p,
                                                 void **state, sp_phases *ph, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_CSR, CUSPARSE_SPMV_CSR_ALG2, state, ph, err);
}

extern "C" int sp_spmv_cusparse_coo_alg1_prepare(const sp_problem *pb, const sp_params *p,
                                                 void **state, sp_phases *ph, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_COO, CUSPARSE_SPMV_COO_ALG1, state, ph, err);
}

extern "C" int sp_spmv_cusparse_coo_alg2_prepare(const sp_problem *pb, const sp_params *p,
                                                 void **state, sp_phases *ph, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_COO, CUSPARSE_SPMV_COO_ALG2, state, ph, err);
}

extern "C" int sp_spmv_cusparse_sell_prepare(const sp_problem *pb, const sp_params *p,
                                             void **state, sp_phases *ph, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_SELL, CUSPARSE_SPMV_SELL_ALG1, state, ph, err);
}

/* One cusparseSpMV (with prepare's work buffer) on the harness's stream,
 * set on the handle at every launch: the handle was made in prepare, and
 * the stream is the harness's to make and replace. Without a matrix
 * descriptor (rows or nnz = 0) y = 0 by memset on that stream instead. */
extern "C" int sp_spmv_cusparse_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv (cuSPARSE): launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->matA) {
        SP_CUSPARSE(cusparseSetStream(g->handle, stream), err);
        SP_CUSPARSE(cusparseSpMV(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, g->matA,
                                 g->vecX, &zero, g->vecY, CUDA_R_64F,
                                 (cusparseSpMVAlg_t)g->alg, g->buffer), err);
        SP_CUDA(cudaGetLastError(), err);
    } else if (g->rows > 0) {
        SP_CUDA(cudaMemsetAsync(g->y, 0, (size_t)g->rows * sizeof(double), stream), err);
    }
    return 0;
}
