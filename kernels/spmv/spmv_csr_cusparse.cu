/*
 * spmv_csr_cusparse.cu — the vendor baselines: cusparseSpMV (32-bit
 * indices; values, vectors and compute type CUDA_R_64F, or CUDA_R_32F for
 * `precision = single`) on CSR (ALG1, ALG2), COO (ALG1, ALG2) and sliced ELL
 * (SELL ALG1, built by kernels/hll.c, the HLL-aligned GPU layout).
 * prepare builds the format on the host (COO row indices, the sliced ELL)
 * and records it for the shared upload; analyse is cuSPARSE's inspector
 * (handle, descriptors, cusparseSpMV_bufferSize, the buffer, and
 * cusparseSpMV_preprocess where the algorithm takes it), which the harness
 * times as conversion; a launch is cusparseSpMV alone, on the harness's
 * stream.
 */
#include "spmv_gpu.cuh"

static const double one = 1.0, zero = 0.0;
static const float one32 = 1.0f, zero32 = 0.0f;

/* cuSPARSE's data type of g's values, vectors and computation. */
static cudaDataType value_type(const sp_gpu_spmv *g)
{
    return g->prec == SP_SINGLE ? CUDA_R_32F : CUDA_R_64F;
}

/* alpha = 1 and beta = 0 in that type. */
static const void *alpha(const sp_gpu_spmv *g)
{
    return g->prec == SP_SINGLE ? (const void *)&one32 : (const void *)&one;
}
static const void *beta(const sp_gpu_spmv *g)
{
    return g->prec == SP_SINGLE ? (const void *)&zero32 : (const void *)&zero;
}

/* The matrix descriptor of g's format: SELL when g->sell_val is set, COO
 * when g->coo_row is, CSR otherwise. */
static int create_matrix(sp_gpu_spmv *g, sp_err *err)
{
    int single = g->prec == SP_SINGLE;
    void *sell_val = single ? (void *)g->f32.sell_val : (void *)g->sell_val;
    void *val = single ? (void *)g->f32.val : (void *)g->val;
    if (sell_val)
        SP_CUSPARSE(cusparseCreateSlicedEll(&g->matA, g->rows, g->cols, g->nnz, g->stored,
                                            g->hack, g->sell_off, g->sell_col, sell_val,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, value_type(g)), err);
    else if (g->coo_row)
        SP_CUSPARSE(cusparseCreateCoo(&g->matA, g->rows, g->cols, g->nnz, g->coo_row,
                                      g->colidx, val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_BASE_ZERO, value_type(g)), err);
    else
        SP_CUSPARSE(cusparseCreateCsr(&g->matA, g->rows, g->cols, g->nnz, g->rowptr,
                                      g->colidx, val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                      value_type(g)), err);
    return 0;
}

/* The descriptors of the matrix and the two vectors, and the size of
 * the work buffer alg asks for. */
static int describe(sp_gpu_spmv *g, size_t *bytes, sp_err *err)
{
    if (create_matrix(g, err))
        return -1;
    int single = g->prec == SP_SINGLE;
    void *x = single ? (void *)g->f32.x : (void *)g->x;
    void *y = single ? (void *)g->f32.y : (void *)g->y;
    SP_CUSPARSE(cusparseCreateDnVec(&g->vecX, g->cols, x, value_type(g)), err);
    SP_CUSPARSE(cusparseCreateDnVec(&g->vecY, g->rows, y, value_type(g)), err);
    SP_CUSPARSE(cusparseSpMV_bufferSize(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(g),
                                        g->matA, g->vecX, beta(g), g->vecY, value_type(g),
                                        (cusparseSpMVAlg_t)g->alg, bytes), err);
    return 0;
}

/* cuSPARSE's inspector, on the device after the upload: handle (on the
 * harness's stream), descriptors, work buffer, preprocessing. Not for
 * rows = 0 or nnz = 0: the launch then writes y = 0 itself, as some
 * algorithms refuse empty matrices. */
extern "C" int sp_spmv_cusparse_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv (cuSPARSE): analyse without a state");
    if (g->rows == 0 || g->nnz == 0)
        return 0;
    size_t bytes = 0;
    SP_CUSPARSE(cusparseCreate(&g->handle), err);
    SP_CUSPARSE(cusparseSetStream(g->handle, (cudaStream_t)ex->stream), err);
    if (describe(g, &bytes, err))
        return -1;
    if (sp_spmv_gpu_alloc(&g->buffer, bytes, err))
        return -1;
    cusparseStatus_t s = cusparseSpMV_preprocess(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                 alpha(g), g->matA, g->vecX, beta(g), g->vecY,
                                                 value_type(g), (cusparseSpMVAlg_t)g->alg,
                                                 g->buffer);
    if (s != CUSPARSE_STATUS_SUCCESS && s != CUSPARSE_STATUS_NOT_SUPPORTED)
        return sp_fail(err, "cusparseSpMV_preprocess: %s", cusparseGetErrorString(s));
    return 0;
}

/* The format each baseline runs on. */
enum cusparse_format { FMT_CSR, FMT_COO, FMT_SELL };

/* COO: a row index per nonzero, built on the host into the state. */
static int coo_format(const sp_csr *A, sp_gpu_spmv *g, sp_err *err)
{
    if (sp_coo_rows(A, &g->h_coo_row, err))
        return -1;
    return sp_spmv_gpu_add(g, (void **)&g->coo_row, g->h_coo_row,
                           (size_t)A->nnz * sizeof(int32_t), 0, err);
}

/* SELL with slices of `hack` rows: kernels/hll.c's GPU layout,
 * column-major (padding column -1, as cuSPARSE wants it), in the state. */
static int sell_format(const sp_csr *A, int hack, sp_gpu_spmv *g, sp_err *err)
{
    sp_hll_opts o = sp_hll_gpu(hack, 1);
    if (sp_hll_from_csr(&g->hll, A, &o, err))
        return sp_fail_prefix(err, "spmv_sell_cusparse");
    return sp_spmv_gpu_add_sell(g, &g->hll, err);
}

/* Host only: the `hack` axis checked (SELL) and the precision, then the
 * format built and recorded with x and y: the CSR (CSR, COO), the COO row
 * indices, or the sliced ELL alone (values and x rounded to float in
 * single). */
static int cusparse_prepare(const sp_problem *pb, const sp_params *p, enum cusparse_format f,
                            cusparseSpMVAlg_t alg, void **state, sp_err *err)
{
    *state = NULL;
    int hack = 0;
    sp_precision prec;
    if ((f == FMT_SELL && sp_gpu_hack("spmv_sell_cusparse", p, &hack, err)) ||
        sp_precision_param(p, "spmv (cuSPARSE)", &prec, err))
        return -1;
    sp_gpu_spmv *g = f == FMT_SELL ? sp_spmv_gpu_new(pb, err) : sp_spmv_gpu_csr(pb, err);
    if (!g)
        return -1;
    g->alg = (int)alg;
    int rc = 0;
    if (f == FMT_SELL)
        rc = sell_format(pb->A, hack, g, err);
    else if (f == FMT_COO)
        rc = coo_format(pb->A, g, err);
    return sp_spmv_gpu_done(g, rc || sp_spmv_gpu_precision(g, prec, err), state);
}

extern "C" int sp_spmv_cusparse_prepare(const sp_problem *pb, const sp_params *p,
                                        void **state, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_CSR, CUSPARSE_SPMV_CSR_ALG1, state, err);
}

extern "C" int sp_spmv_cusparse_csr_alg2_prepare(const sp_problem *pb, const sp_params *p,
                                                 void **state, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_CSR, CUSPARSE_SPMV_CSR_ALG2, state, err);
}

extern "C" int sp_spmv_cusparse_coo_alg1_prepare(const sp_problem *pb, const sp_params *p,
                                                 void **state, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_COO, CUSPARSE_SPMV_COO_ALG1, state, err);
}

extern "C" int sp_spmv_cusparse_coo_alg2_prepare(const sp_problem *pb, const sp_params *p,
                                                 void **state, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_COO, CUSPARSE_SPMV_COO_ALG2, state, err);
}

extern "C" int sp_spmv_cusparse_sell_prepare(const sp_problem *pb, const sp_params *p,
                                             void **state, sp_err *err)
{
    return cusparse_prepare(pb, p, FMT_SELL, CUSPARSE_SPMV_SELL_ALG1, state, err);
}

/* One cusparseSpMV (with analyse's work buffer) on the harness's stream,
 * set on the handle at every launch: the handle was made in analyse, and
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
        SP_CUSPARSE(cusparseSpMV(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(g),
                                 g->matA, g->vecX, beta(g), g->vecY, value_type(g),
                                 (cusparseSpMVAlg_t)g->alg, g->buffer), err);
        SP_CUDA(cudaGetLastError(), err);
    } else if (g->rows > 0 && g->prec == SP_SINGLE) {
        SP_CUDA(cudaMemsetAsync(g->f32.y, 0, (size_t)g->rows * sizeof(float), stream), err);
    } else if (g->rows > 0) {
        SP_CUDA(cudaMemsetAsync(g->y, 0, (size_t)g->rows * sizeof(double), stream), err);
    }
    return 0;
}
