/*
 * transpose_mkl.c — Intel MKL's transposition, the CPU vendor baseline of
 * the transposition studies: mkl_sparse_convert_csr with
 * SPARSE_OPERATION_TRANSPOSE turns MKL's CSR handle of A into a new handle
 * of A^T, which is the CSC of A, in memory MKL allocates itself; in double
 * or single (the `precision` axis: float values).
 *
 * prepare makes the handle of A — on the problem's arrays in double (MKL
 * only reads them), on a float copy of the values in single — with MKL's
 * threads from the `threads` axis, read back (mkl_lib.h); the harness times
 * it as conversion. Each launch is that one conversion call, MKL's
 * allocation of its result included, as its interface has it. reset
 * (untimed, before every sample, so a sample is one launch) destroys the
 * previous launch's result. result exports the last one
 * (mkl_sparse_?_export_csr) into the operation's layout (transpose.h),
 * after checking that MKL left it compact and zero-based; the operation
 * then compares it with the serial transposition entry for entry (rows
 * ascending in every column, the values exact in double and rounded once
 * in single). MKL takes no handle without rows or columns and converts none
 * without nonzeros: there the CSC (every column empty) is written without
 * MKL and the run's info says "empty":1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mkl_lib.h"
#include "../partition.h"
#include "transpose.h"

#define WHO "transpose_mkl"

#ifdef SP_HAVE_MKL
typedef struct mkl_transpose {
    const sp_csr *A;
    sp_precision prec;
    sparse_matrix_t M;          /* A's handle; NULL: an empty shape */
    sparse_matrix_t T;          /* the last launch's A^T; NULL before one */
    float *val32;               /* single: A's values */
} mkl_transpose;

/* A shape MKL cannot hold or convert. */
static int empty_shape(const sp_csr *A)
{
    return A->rows == 0 || A->cols == 0 || A->nnz == 0;
}

/* Free the previous launch's A^T: untimed, before every sample. */
static int mkl_transpose_reset(void *state, const sp_exec *ex, sp_err *err)
{
    mkl_transpose *s = state;
    (void)ex;
    if (!s)
        return sp_fail(err, WHO ": reset without a state");
    if (s->T)
        mkl_sparse_destroy(s->T);
    s->T = NULL;
    return 0;
}

static void mkl_transpose_release(void *state)
{
    mkl_transpose *s = state;
    if (!s)
        return;
    if (s->T)
        mkl_sparse_destroy(s->T);
    if (s->M)
        mkl_sparse_destroy(s->M);
    free(s->val32);
    free(s);
    sp_mkl_threads_reset();
}

/* MKL's handle on A (the casts drop const for MKL's signature). */
static int build(mkl_transpose *s, sp_err *err)
{
    const sp_csr *A = s->A;
    if (empty_shape(A))
        return 0;
    MKL_INT *start = (MKL_INT *)A->rowptr, *col = (MKL_INT *)A->colidx;
    sparse_status_t st;
    if (s->prec == SP_DOUBLE) {
        st = mkl_sparse_d_create_csr(&s->M, SPARSE_INDEX_BASE_ZERO, A->rows, A->cols, start,
                                     start + 1, col, (double *)A->val);
    } else {
        s->val32 = sp_float_copy(A->val, (size_t)A->nnz);
        if (!s->val32)
            return sp_fail(err, WHO ": out of memory for %d float values", A->nnz);
        st = mkl_sparse_s_create_csr(&s->M, SPARSE_INDEX_BASE_ZERO, A->rows, A->cols, start,
                                     start + 1, col, s->val32);
    }
    if (st != SPARSE_STATUS_SUCCESS) {
        s->M = NULL;
        return sp_mkl_fail(err, WHO, "mkl_sparse_?_create_csr", st);
    }
    return 0;
}

static int mkl_transpose_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                 sp_err *err)
{
    int threads;
    sp_precision prec;
    *state = NULL;
    if (!pb || !pb->A)
        return sp_fail(err, WHO ": problem without a matrix");
    if (sp_threads_param(p, WHO, &threads, err) || sp_precision_param(p, WHO, &prec, err))
        return -1;
    mkl_transpose *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, WHO ": out of memory for the state");
    s->A = pb->A, s->prec = prec;
    if (sp_mkl_threads(WHO, threads, err) || build(s, err)) {
        mkl_transpose_release(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int mkl_transpose_launch(void *state, const sp_exec *ex, sp_err *err)
{
    mkl_transpose *s = state;
    (void)ex;
    if (!s)
        return sp_fail(err, WHO ": launch without a state");
    if (!s->M)
        return 0;
    if (s->T)                   /* reset runs before every sample; never leak */
        return sp_fail(err, WHO ": launch over an earlier result (no reset)");
    sparse_status_t st = mkl_sparse_convert_csr(s->M, SPARSE_OPERATION_TRANSPOSE, &s->T);
    if (st != SPARSE_STATUS_SUCCESS) {
        s->T = NULL;
        return sp_mkl_fail(err, WHO, "mkl_sparse_convert_csr (transpose)", st);
    }
    return 0;
}

/* MKL's A^T as exported: zero-based, cols x rows, compact (row j of A^T
 * ends where row j + 1 starts, the last at nnz). */
static int check_export(const sp_csr *A, sparse_index_base_t base, MKL_INT rows, MKL_INT cols,
                        const MKL_INT *start, const MKL_INT *end, sp_err *err)
{
    if (base != SPARSE_INDEX_BASE_ZERO || rows != A->cols || cols != A->rows)
        return sp_fail(err, WHO ": MKL's transpose is %d x %d base %d, not %d x %d base 0",
                       (int)rows, (int)cols, (int)base, A->cols, A->rows);
    if (start[0] != 0 || end[rows - 1] != A->nnz)
        return sp_fail(err, WHO ": MKL's transpose spans %d..%d, not 0..%d", (int)start[0],
                       (int)end[rows - 1], A->nnz);
    for (MKL_INT j = 0; j + 1 < rows; j++)
        if (end[j] != start[j + 1])
            return sp_fail(err, WHO ": MKL's transpose is not compact at column %d", (int)j);
    return 0;
}

static int mkl_transpose_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const mkl_transpose *s = state;
    (void)ex;
    if (!s || !out)
        return sp_fail(err, WHO ": result without a state or an output buffer");
    const sp_csr *A = s->A;
    sp_csc C;
    sp_csc_view(out, A, &C);
    if (!s->M) {                /* every column empty */
        memset(C.colptr, 0, ((size_t)A->cols + 1) * sizeof *C.colptr);
        return 0;
    }
    if (!s->T)
        return sp_fail(err, WHO ": result before any launch");
    sparse_index_base_t base;
    MKL_INT rows, cols, *start, *end, *idx;
    double *v64 = NULL;
    float *v32 = NULL;
    sparse_status_t st =
        s->prec == SP_DOUBLE
            ? mkl_sparse_d_export_csr(s->T, &base, &rows, &cols, &start, &end, &idx, &v64)
            : mkl_sparse_s_export_csr(s->T, &base, &rows, &cols, &start, &end, &idx, &v32);
    if (st != SPARSE_STATUS_SUCCESS)
        return sp_mkl_fail(err, WHO, "mkl_sparse_?_export_csr", st);
    if (check_export(A, base, rows, cols, start, end, err))
        return -1;
    memcpy(C.colptr, start, (size_t)A->cols * sizeof *C.colptr);
    C.colptr[A->cols] = A->nnz;
    memcpy(C.rowidx, idx, (size_t)A->nnz * sizeof *C.rowidx);
    for (int32_t k = 0; k < A->nnz; k++)
        C.val[k] = v64 ? v64[k] : (double)v32[k];
    return 0;
}

/* MKL's version and threading layer, the threads in effect, the precision. */
static int mkl_transpose_info(void *state, char *json, size_t len)
{
    const mkl_transpose *s = state;
    return s ? sp_mkl_info(json, len, s->prec, s->M == NULL, "") : -1;
}
#endif

/* MKL's A^T (values, row indices, its row starts and ends) and, in
 * single, the float values of A; MKL's scratch is not stated, so a count
 * per column for each thread is added as an estimate. */
static int mkl_transpose_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                              sp_err *err)
{
    int threads;
    sp_precision prec;
    if (!pb || !pb->A || !need)
        return sp_fail(err, WHO ": need without a problem");
    if (sp_threads_param(p, WHO, &threads, err) || sp_precision_param(p, WHO, &prec, err))
        return -1;
    const sp_csr *A = pb->A;
    uint64_t vb = prec == SP_DOUBLE ? 8 : 4, nnz = (uint64_t)A->nnz;
    need->host_bytes = nnz * (vb + 4) + ((uint64_t)A->cols + 1) * 8 +
                       (uint64_t)threads * ((uint64_t)A->cols + 1) * 4;
    if (prec == SP_SINGLE)
        need->host_bytes += nnz * 4;
    need->device_bytes = 0;
    return 0;
}

const sp_kernel sp_transpose_mkl = {
    .name = "transpose_mkl",
    .operation = "transpose",
    .format = "csc",
    .backend = "mkl",
    .summary = "Intel MKL mkl_sparse_convert_csr(TRANSPOSE) into MKL's own CSR of A^T, "
               "its threads from the axis, read back (the CPU vendor baseline)",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_MKL_FN(mkl_transpose_prepare),
    .info = SP_MKL_FN(mkl_transpose_info),
    .launch = SP_MKL_FN(mkl_transpose_launch),
    .reset = SP_MKL_FN(mkl_transpose_reset),
    .result = SP_MKL_FN(mkl_transpose_result),
    .release = SP_MKL_FN(mkl_transpose_release),
    .need = mkl_transpose_need,
};
