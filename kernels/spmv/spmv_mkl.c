/*
 * spmv_mkl.c — the CPU vendor baseline: Intel MKL's inspector–executor
 * SpMV, mkl_sparse_d_mv (double) or mkl_sparse_s_mv (single: the
 * `precision` axis), used as MKL's authors say to for repeated products.
 * prepare creates the CSR handle on the problem's arrays, states the
 * workload (mkl_sparse_set_mv_hint: a general matrix, y = A·x, MKL_MV_CALLS
 * calls) and lets MKL build its optimised form (mkl_sparse_optimize); the
 * harness times both as conversion. The `threads` axis sets MKL's threads
 * for this thread, dynamic adjustment off, and is read back: a count MKL
 * did not take is an error, not a quiet baseline on fewer cores. The
 * launch is one mkl_sparse_?_mv call and nothing else: no MKL setting
 * changes between prepare and the launches of a combination.
 *
 * Double works on the problem's CSR in place (MKL keeps pointers to the
 * arrays and, for mv, only reads them); single converts the values and x
 * to float in prepare (conversion too) and widens y in result. MKL takes
 * no handle without rows or columns: there y is zeros without MKL, and the
 * run's info says "empty":1. The info also names MKL's version, threading
 * layer and the threads in effect (runs.kernel_info).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../mkl_lib.h"
#include "../partition.h"
#include "spmv.h"

#define WHO "spmv_mkl"
/* The calls mkl_sparse_set_mv_hint announces: the many products of an
 * iterative solver, which is what a benchmark of repeated launches
 * stands for; MKL may then choose an optimisation that costs more in
 * mkl_sparse_optimize (the conversion phase) and pays back over them. */
#define MKL_MV_CALLS 1000

#ifdef SP_HAVE_MKL
_Static_assert(sizeof(MKL_INT) == sizeof(int32_t), "MKL's LP64 interface: 32-bit indices");

typedef struct mkl_spmv {
    sparse_matrix_t M;          /* NULL: no rows or no columns, y = 0 */
    struct matrix_descr descr;
    sp_precision prec;
    int32_t rows;
    const double *x;
    double *y;                  /* double: rows entries */
    float *val32, *x32, *y32;   /* single: A's values, x and y in float */
} mkl_spmv;

static void mkl_spmv_release(void *state)
{
    mkl_spmv *s = state;
    if (!s)
        return;
    if (s->M)
        mkl_sparse_destroy(s->M);
    free(s->y);
    free(s->val32);
    free(s->x32);
    free(s->y32);
    free(s);
    sp_mkl_threads_reset();
}

/* y (zeroed: the empty shapes keep it so), and in single the float copies
 * of A's values and x. */
static int alloc_vectors(mkl_spmv *s, const sp_csr *A, const double *x, sp_err *err)
{
    if (s->prec == SP_DOUBLE) {
        s->y = calloc((size_t)A->rows + 1, sizeof *s->y);
        return s->y ? 0 : sp_fail(err, WHO ": out of memory for y (%d rows)", A->rows);
    }
    s->y32 = calloc((size_t)A->rows + 1, sizeof *s->y32);
    s->x32 = sp_float_copy(x, (size_t)A->cols);
    s->val32 = sp_float_copy(A->val, (size_t)A->nnz);
    if (!s->y32 || !s->x32 || !s->val32)
        return sp_fail(err, WHO ": out of memory for the single-precision copies (%d nonzeros)",
                       A->nnz);
    return 0;
}

/* MKL's handle on A (its arrays are only read: the casts drop const for
 * MKL's signature), the hint, the optimisation. */
static int build(mkl_spmv *s, const sp_csr *A, sp_err *err)
{
    if (A->rows == 0 || A->cols == 0)
        return 0;               /* MKL refuses the shape; y = 0 */
    MKL_INT *start = (MKL_INT *)A->rowptr, *col = (MKL_INT *)A->colidx;
    sparse_status_t st =
        s->prec == SP_DOUBLE
            ? mkl_sparse_d_create_csr(&s->M, SPARSE_INDEX_BASE_ZERO, A->rows, A->cols, start,
                                      start + 1, col, (double *)A->val)
            : mkl_sparse_s_create_csr(&s->M, SPARSE_INDEX_BASE_ZERO, A->rows, A->cols, start,
                                      start + 1, col, s->val32);
    if (st != SPARSE_STATUS_SUCCESS) {
        s->M = NULL;
        return sp_mkl_fail(err, WHO, "mkl_sparse_?_create_csr", st);
    }
    st = mkl_sparse_set_mv_hint(s->M, SPARSE_OPERATION_NON_TRANSPOSE, s->descr, MKL_MV_CALLS);
    if (st != SPARSE_STATUS_SUCCESS)
        return sp_mkl_fail(err, WHO, "mkl_sparse_set_mv_hint", st);
    st = mkl_sparse_optimize(s->M);
    return st == SPARSE_STATUS_SUCCESS ? 0 : sp_mkl_fail(err, WHO, "mkl_sparse_optimize", st);
}

static int mkl_spmv_prepare(const sp_problem *pb, const sp_params *p, void **state,
                            sp_err *err)
{
    int threads;
    sp_precision prec;
    *state = NULL;
    if (!pb || !pb->A || (!pb->x && pb->A->cols > 0))
        return sp_fail(err, WHO ": problem without a matrix or x");
    if (sp_threads_param(p, WHO, &threads, err) || sp_precision_param(p, WHO, &prec, err))
        return -1;
    mkl_spmv *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, WHO ": out of memory for the state");
    s->prec = prec, s->rows = pb->A->rows, s->x = pb->x;
    s->descr.type = SPARSE_MATRIX_TYPE_GENERAL;
    /* threads before the handle: mkl_sparse_optimize plans for them */
    if (sp_mkl_threads(WHO, threads, err) || alloc_vectors(s, pb->A, pb->x, err) ||
        build(s, pb->A, err)) {
        mkl_spmv_release(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int mkl_spmv_launch(void *state, const sp_exec *ex, sp_err *err)
{
    const mkl_spmv *s = state;
    (void)ex;
    if (!s)
        return sp_fail(err, WHO ": launch without a state");
    if (!s->M)
        return 0;
    sparse_status_t st =
        s->prec == SP_DOUBLE
            ? mkl_sparse_d_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0, s->M, s->descr, s->x, 0.0,
                              s->y)
            : mkl_sparse_s_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0f, s->M, s->descr, s->x32,
                              0.0f, s->y32);
    return st == SPARSE_STATUS_SUCCESS ? 0 : sp_mkl_fail(err, WHO, "mkl_sparse_?_mv", st);
}

static int mkl_spmv_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const mkl_spmv *s = state;
    double *y = out;
    (void)ex;
    if (!s || !y)
        return sp_fail(err, WHO ": result without a state or an output buffer");
    for (int32_t i = 0; i < s->rows; i++)
        y[i] = s->prec == SP_DOUBLE ? s->y[i] : (double)s->y32[i];
    return 0;
}

/* MKL's version and threading layer, the threads in effect, the
 * precision, the announced calls. */
static int mkl_spmv_info(void *state, char *json, size_t len)
{
    const mkl_spmv *s = state;
    char extra[64];
    if (!s)
        return -1;
    snprintf(extra, sizeof extra, ",\"mv_hint_calls\":%d", MKL_MV_CALLS);
    return sp_mkl_info(json, len, s->prec, s->M == NULL, extra);
}
#endif

/* y, the float copies in single, and MKL's optimised copy of the matrix,
 * estimated as one more CSR with 32-bit indices (12 bytes a nonzero in
 * double, 8 in single, and a row pointer): MKL does not state its need. */
static int mkl_spmv_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int threads;
    sp_precision prec;
    if (!pb || !pb->A || !need)
        return sp_fail(err, WHO ": need without a problem");
    if (sp_threads_param(p, WHO, &threads, err) || sp_precision_param(p, WHO, &prec, err))
        return -1;
    const sp_csr *A = pb->A;
    uint64_t vb = prec == SP_DOUBLE ? 8 : 4, nnz = (uint64_t)A->nnz;
    need->host_bytes = ((uint64_t)A->rows + 1) * (vb + 4) + nnz * (vb + 4);
    if (prec == SP_SINGLE)
        need->host_bytes += nnz * 4 + ((uint64_t)A->cols + 1) * 4;
    need->device_bytes = 0;
    return 0;
}

const sp_kernel sp_spmv_mkl = {
    .name = "spmv_mkl",
    .operation = "spmv",
    .format = "csr",
    .backend = "mkl",
    .summary = "Intel MKL inspector-executor mkl_sparse_?_mv after set_mv_hint and optimize "
               "(in prepare); its threads from the axis, read back",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_MKL_FN(mkl_spmv_prepare),
    .info = SP_MKL_FN(mkl_spmv_info),
    .launch = SP_MKL_FN(mkl_spmv_launch),
    .result = SP_MKL_FN(mkl_spmv_result),
    .release = SP_MKL_FN(mkl_spmv_release),
    .need = mkl_spmv_need,
};
