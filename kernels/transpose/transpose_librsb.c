/*
 * transpose_librsb.c — librsb's transposition (M. Martone's Recursive
 * Sparse Blocks), the second CPU library baseline of the transposition
 * studies beside transpose_mkl: what librsb offers a user who wants the
 * CSR of A^T (the CSC of A) from an RSB matrix of A.
 *
 * prepare builds librsb's RSB matrix of A from the CSR
 * (rsb_mtx_alloc_from_csr_const: the harness times it as conversion) with
 * librsb's threads from the `threads` axis, read back and checked against
 * OpenMP's limit (../rsb_lib.h), and the output arrays. Each launch is
 * librsb's transposition as its interface gives it: rsb_mtx_clone with
 * RSB_TRANSPOSITION_T (a new RSB matrix of A^T, in memory librsb
 * allocates) and then rsb_mtx_get_csr, which writes the CSR of that clone
 * into the output arrays — both timed, since a user gets no CSR of A^T
 * without both. reset (untimed, before every sample, so a sample is one
 * launch) frees the previous launch's clone. result copies the arrays into
 * the operation's layout (transpose.h) after checking that librsb's row
 * pointers span 0..nnz; the operation compares them with the serial
 * transposition entry for entry.
 *
 * librsb 1.3.0's rsb_mtx_clone crashes on a matrix without rows or
 * without columns: there the CSC (every column empty) is written without
 * librsb and the run's info says "empty":1. A matrix of both with no
 * nonzeros goes through librsb. Its rsb_mtx_clone(RSB_TRANSPOSITION_T)
 * also fails, with an "internal error", on every matrix of one row with
 * more than 3 nonzeros (1 x 10 with 4 as 1 x 50000 dense; two rows, or 3
 * nonzeros, go through): need and prepare refuse that shape, saying why,
 * rather than time a transposition librsb does not give. Under
 * OMP_THREAD_LIMIT=1 (any `threads`) the same librsb returns a wrong A^T
 * (a 3000 x 3007 matrix of 15000 nonzeros came back with 6556 of them;
 * a limit of 2 or more, or none, is right): prepare refuses that too.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../partition.h"
#include "../rsb_lib.h"
#include "transpose.h"

#define WHO "transpose_librsb"

typedef struct rsb_transpose {
    const sp_csr *A;
    int threads;
    struct rsb_mtx_t *M;        /* A in RSB; NULL: a shape librsb cannot clone */
    struct rsb_mtx_t *T;        /* the last launch's A^T; NULL before one */
    int launched;               /* a launch wrote the arrays below */
    sp_precision prec;          /* single: librsb's float type ('S'), A's values rounded */
    float *a32;                 /* single: A's values rounded to float (what M holds) */
    void *val;                  /* the CSR of A^T: val[nnz] (double or float), */
                                /* rowptr[cols + 1], colidx[nnz] */
    rsb_nnz_idx_t *rowptr;
    rsb_coo_idx_t *colidx;
} rsb_transpose;

static int empty_shape(const sp_csr *A)
{
    return A->rows == 0 || A->cols == 0;
}

/* A shape librsb 1.3.0 cannot transpose (see the top of the file): -1
 * with the reason. */
static int refused_shape(const sp_csr *A, sp_err *err)
{
    if (A->rows == 1 && A->nnz > 3)
        return sp_fail(err, WHO ": librsb %s's rsb_mtx_clone(RSB_TRANSPOSITION_T) fails (internal "
                       "error) on a matrix of one row with more than 3 nonzeros (1 x %d, %d)",
                       RSB_LIBRSB_VER_STRING, A->cols, A->nnz);
    return 0;
}

/* librsb 1.3.0 transposes wrongly with OpenMP limited to one thread. */
static int refused_limit(sp_err *err)
{
    if (omp_get_thread_limit() == 1)
        return sp_fail(err, WHO ": librsb %s's transposition is wrong under OMP_THREAD_LIMIT=1 "
                       "(nonzeros lost); unset it or allow 2 or more", RSB_LIBRSB_VER_STRING);
    return 0;
}

static int rsb_transpose_reset(void *state, const sp_exec *ex, sp_err *err)
{
    rsb_transpose *s = state;
    (void)ex;
    if (!s)
        return sp_fail(err, WHO ": reset without a state");
    if (s->T)
        rsb_mtx_free(s->T);
    s->T = NULL;
    return 0;
}

static void rsb_transpose_release(void *state)
{
    rsb_transpose *s = state;
    if (!s)
        return;
    if (s->T)
        rsb_mtx_free(s->T);
    if (s->M)
        rsb_mtx_free(s->M);
    free(s->val);
    free(s->a32);
    free(s->rowptr);
    free(s->colidx);
    free(s);
}

static int rsb_transpose_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                 sp_err *err)
{
    int threads;
    sp_precision prec;
    *state = NULL;
    if (!pb || !pb->A)
        return sp_fail(err, WHO ": problem without a matrix");
    if (sp_threads_param(p, WHO, &threads, err) || sp_precision_param(p, WHO, &prec, err) ||
        refused_shape(pb->A, err) ||
        refused_limit(err) || sp_rsb_ready(WHO, err) ||
        sp_rsb_threads(WHO, threads, err))
        return -1;
    const sp_csr *A = pb->A;
    rsb_transpose *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, WHO ": out of memory for the state");
    s->A = A, s->threads = threads, s->prec = prec;
    size_t nnz = (size_t)A->nnz + 1;    /* + 1: no zero-byte allocation */
    size_t vb = prec == SP_SINGLE ? sizeof(float) : sizeof(double);
    s->val = malloc(nnz * vb);
    if (prec == SP_SINGLE && !(s->a32 = sp_float_copy(A->val, (size_t)A->nnz))) {
        rsb_transpose_release(s);
        return sp_fail(err, WHO ": out of memory for A's values in single");
    }
    s->colidx = malloc(nnz * sizeof *s->colidx);
    s->rowptr = malloc(((size_t)A->cols + 1) * sizeof *s->rowptr);
    if (!s->val || !s->colidx || !s->rowptr) {
        rsb_transpose_release(s);
        return sp_fail(err, WHO ": out of memory for the CSR of A^T (%d nonzeros)", A->nnz);
    }
    if (!empty_shape(A)) {
        rsb_err_t e = RSB_ERR_NO_ERROR;
        s->M = rsb_mtx_alloc_from_csr_const(
            prec == SP_SINGLE ? (const void *)s->a32 : (const void *)A->val, A->rowptr,
            A->colidx, A->nnz, prec == SP_SINGLE ? RSB_NUMERICAL_TYPE_FLOAT
                                                 : RSB_NUMERICAL_TYPE_DOUBLE,
            A->rows, A->cols, 1, 1, RSB_FLAG_NOFLAGS, &e);
        if (!s->M) {
            rsb_transpose_release(s);
            return sp_rsb_fail(err, WHO, e, "rsb_mtx_alloc_from_csr_const");
        }
    }
    *state = s;
    return 0;
}

/* The clone of A^T and its CSR: what a librsb user runs for A^T in CSR. */
static int rsb_transpose_launch(void *state, const sp_exec *ex, sp_err *err)
{
    rsb_transpose *s = state;
    (void)ex;
    if (!s)
        return sp_fail(err, WHO ": launch without a state");
    if (!s->M)
        return 0;
    if (s->T)                   /* reset runs before every sample; never leak */
        return sp_fail(err, WHO ": launch over an earlier result (no reset)");
    rsb_err_t e = rsb_mtx_clone(&s->T, RSB_NUMERICAL_TYPE_SAME_TYPE, RSB_TRANSPOSITION_T,
                                NULL, s->M, RSB_FLAG_IDENTICAL_FLAGS);
    if (e != RSB_ERR_NO_ERROR || !s->T) {
        char what[128];
        s->T = NULL;
        snprintf(what, sizeof what, "rsb_mtx_clone (RSB_TRANSPOSITION_T, %d x %d, %d nonzeros, "
                 "%d threads)", s->A->rows, s->A->cols, s->A->nnz, s->threads);
        return sp_rsb_fail(err, WHO, e, what);
    }
    e = rsb_mtx_get_csr(s->prec == SP_SINGLE ? RSB_NUMERICAL_TYPE_FLOAT
                                             : RSB_NUMERICAL_TYPE_DOUBLE,
                        s->T, s->val, s->rowptr, s->colidx, RSB_FLAG_C_INDICES_INTERFACE);
    if (e != RSB_ERR_NO_ERROR)
        return sp_rsb_fail(err, WHO, e, "rsb_mtx_get_csr");
    s->launched = 1;
    return 0;
}

static int rsb_transpose_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const rsb_transpose *s = state;
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
    if (!s->launched)
        return sp_fail(err, WHO ": result before any launch");
    if (s->rowptr[0] != 0 || s->rowptr[A->cols] != A->nnz)
        return sp_fail(err, WHO ": librsb's CSR of A^T spans %d..%d, not 0..%d",
                       (int)s->rowptr[0], (int)s->rowptr[A->cols], A->nnz);
    memcpy(C.colptr, s->rowptr, ((size_t)A->cols + 1) * sizeof *C.colptr);
    memcpy(C.rowidx, s->colidx, (size_t)A->nnz * sizeof *C.rowidx);
    if (s->prec == SP_SINGLE)           /* widened for the check */
        for (int32_t i = 0; i < A->nnz; i++)
            C.val[i] = ((const float *)s->val)[i];
    else
        memcpy(C.val, s->val, (size_t)A->nnz * sizeof *C.val);
    return 0;
}

/* What ran: librsb's version and the threads in effect, the calls timed,
 * A's RSB matrix (flags, blocks, bytes) and, after a launch, its clone's. */
static int rsb_transpose_info(void *state, char *json, size_t len)
{
    const rsb_transpose *s = state;
    if (!s)
        return -1;
    rsb_flags_t flags = 0;
    rsb_blk_idx_t leaves = 0, tleaves = 0;
    size_t bytes = 0, tbytes = 0;
    if (s->M && (rsb_mtx_get_info(s->M, RSB_MIF_MATRIX_FLAGS__TO__RSB_FLAGS_T, &flags) ||
                 rsb_mtx_get_info(s->M, RSB_MIF_LEAVES_COUNT__TO__RSB_BLK_INDEX_T, &leaves) ||
                 rsb_mtx_get_info(s->M, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &bytes)))
        return -1;
    if (s->T && (rsb_mtx_get_info(s->T, RSB_MIF_LEAVES_COUNT__TO__RSB_BLK_INDEX_T, &tleaves) ||
                 rsb_mtx_get_info(s->T, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &tbytes)))
        return -1;
    int n = snprintf(json, len,
                     "{\"librsb\":\"%s\",\"threads\":%d,\"empty\":%d,"
                     "\"timed\":\"rsb_mtx_clone(RSB_TRANSPOSITION_T) + rsb_mtx_get_csr\","
                     "\"flags\":\"0x%x\",\"leaves\":%ld,\"bytes\":%zu,"
                     "\"clone_leaves\":%ld,\"clone_bytes\":%zu}",
                     RSB_LIBRSB_VER_STRING, sp_rsb_threads_now(), s->M == NULL, (unsigned)flags,
                     (long)leaves, bytes, (long)tleaves, tbytes);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* librsb's matrix of A and its clone of A^T (at most 16 bytes a nonzero
 * each: COO with 32-bit indices, an upper estimate as librsb states no
 * need beforehand) and the CSR of A^T the launch writes. */
static int rsb_transpose_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                              sp_err *err)
{
    int threads;
    sp_precision prec;
    if (!pb || !pb->A || !need)
        return sp_fail(err, WHO ": need without a problem");
    if (sp_threads_param(p, WHO, &threads, err) || sp_precision_param(p, WHO, &prec, err) ||
        refused_shape(pb->A, err))
        return -1;
    const sp_csr *A = pb->A;
    uint64_t nnz = (uint64_t)A->nnz, vb = prec == SP_SINGLE ? 4 : 8;
    /* librsb's two matrices (COO, 32-bit indices), the CSR of A^T, and in
     * single the float copy of A's values */
    need->host_bytes = 2 * nnz * (8 + vb) + nnz * (4 + vb) + ((uint64_t)A->cols + 1) * 4 +
                       ((uint64_t)A->rows + 1) * 4 + (prec == SP_SINGLE ? nnz * 4 : 0);
    need->device_bytes = 0;
    return 0;
}

const sp_kernel sp_transpose_librsb = {
    .name = "transpose_librsb",
    .operation = "transpose",
    .format = "csc",
    .backend = "librsb",
    .summary = "librsb rsb_mtx_clone(RSB_TRANSPOSITION_T) + rsb_mtx_get_csr from its RSB "
               "matrix of A, its threads from the axis, read back (the CPU library baseline)",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {SP_AXIS_PRECISION, "double"}},
    .prepare = rsb_transpose_prepare,
    .info = rsb_transpose_info,
    .launch = rsb_transpose_launch,
    .reset = rsb_transpose_reset,
    .result = rsb_transpose_result,
    .release = rsb_transpose_release,
    .need = rsb_transpose_need,
};
