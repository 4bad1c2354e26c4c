/*
 * spmv_librsb.c — the outside baseline: librsb (M. Martone's Recursive
 * Sparse Blocks; Debian's librsb-dev) SpMV with its own OpenMP threads,
 * set through RSB_IO_WANT_EXECUTING_THREADS from the `threads` axis and
 * read back, so a count librsb did not take is an error, not a quiet
 * one-thread baseline. The RSB matrix is built from the CSR in prepare
 * (the conversion phase) and, with `tune = 1` (the default, as librsb's
 * authors say to use it), re-blocked by librsb's autotuner for SpMV at the
 * axis's thread count (rsb_tune_spmm with one right-hand side, its default
 * rounds and time: counted as conversion too); `tune = 0` keeps the
 * untuned matrix for comparison. The tuner's verdict, the matrix's flags
 * and blocks are stored with the run (runs.kernel_info).
 *
 * librsb's process-wide initialisation and its threads: ../rsb_lib.c.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../partition.h"
#include "../rsb_lib.h"
#include "spmv.h"

typedef struct librsb_state {
    struct rsb_mtx_t *M;
    const double *x;
    double *y;
    int32_t rows;
    rsb_int_t threads;
    int tune;                   /* the `tune` axis */
    int tuned;                  /* the tuner ran (not on a matrix without nonzeros) */
    rsb_real_t tune_speedup;    /* the tuner's declared speedup; 0 untuned */
} librsb_state;

/* librsb's message for e. */
static int rsb_fail(sp_err *err, rsb_err_t e, const char *what)
{
    return sp_rsb_fail(err, "spmv_librsb", e, what);
}

static int librsb_threads(const librsb_state *s, sp_err *err)
{
    return sp_rsb_threads("spmv_librsb", (int)s->threads, err);
}

/* librsb's autotuner for y = A x at the axis's thread count: it may
 * re-block the matrix (rsb_tune_spmm replaces s->M in place). */
static int librsb_tune(librsb_state *s, sp_err *err)
{
    const double one = 1.0, zero = 0.0;
    rsb_int_t tn = s->threads;      /* > 0: tune the blocks for this count only */
    rsb_real_t sf = 0;
    rsb_err_t e = rsb_tune_spmm(&s->M, &sf, &tn, 0, 0, RSB_TRANSPOSITION_N, &one, NULL, 1,
                                RSB_FLAG_WANT_COLUMN_MAJOR_ORDER, s->x, 0, &zero, s->y, 0);
    if (e != RSB_ERR_NO_ERROR) {
        char what[96];
        snprintf(what, sizeof what, "rsb_tune_spmm (%d rows, %d threads)", (int)s->rows,
                 (int)s->threads);
        return rsb_fail(err, e, what);
    }
    s->tune_speedup = sf, s->tuned = 1;
    return librsb_threads(s, err);  /* the tuner may have left another count */
}

static void librsb_release(void *state)
{
    librsb_state *s = state;
    if (s && s->M)
        rsb_mtx_free(s->M);
    if (s)
        free(s->y);
    free(s);
}

/* The `tune` axis of p (default 1), refused where librsb's tuner would
 * refuse it: it takes no more threads than the CPUs it may run on
 * ("corrupt or inconsistent data" at 3 threads on 2 CPUs), so a tuned run
 * oversubscribed is stated as impossible before anything is built. */
static int tune_param(const sp_params *p, long *tune, sp_err *err)
{
    *tune = sp_param(p, "tune", 1);
    long threads = sp_param(p, "threads", 1), cpus = omp_get_num_procs();
    if (*tune != 0 && *tune != 1)
        return sp_fail(err, "spmv_librsb: tune = %ld, not 0 or 1", *tune);
    if (*tune && threads > cpus)
        return sp_fail(err, "spmv_librsb: tune = 1 at threads = %ld: librsb's tuner takes at "
                       "most the %ld CPUs it may run on (tune = 0 runs oversubscribed)",
                       threads, cpus);
    return 0;
}

/* librsb's copy of the matrix (at most COO with 32-bit indices: 16 bytes a
 * nonzero; its recursive blocks use 16-bit local indices where they can),
 * plus y. An upper estimate: librsb does not report its need beforehand. */
static int librsb_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    long tune;
    if (!pb || !pb->A || !need)
        return sp_fail(err, "spmv_librsb: need without a problem");
    if (tune_param(p, &tune, err))
        return -1;
    need->host_bytes = (uint64_t)pb->A->nnz * 16 + ((uint64_t)pb->A->rows + 1) * 12;
    need->device_bytes = 0;
    return 0;
}

static int librsb_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    int threads;
    *state = NULL;
    if (!pb || !pb->A || (!pb->x && pb->A->cols > 0))
        return sp_fail(err, "spmv_librsb: problem without a matrix or x");
    long tune;
    if (tune_param(p, &tune, err) || sp_threads_param(p, "spmv_librsb", &threads, err) ||
        sp_rsb_ready("spmv_librsb", err))
        return -1;
    const sp_csr *A = pb->A;
    librsb_state *s = calloc(1, sizeof *s);
    if (s)      /* zeroed: rsb_spmv computes y = beta·y + A·x, beta = 0 */
        s->y = calloc((size_t)A->rows + 1, sizeof(double));
    if (!s || !s->y) {
        free(s);
        return sp_fail(err, "spmv_librsb: out of memory for y (%d rows)", A->rows);
    }
    s->x = pb->x, s->rows = A->rows, s->threads = threads, s->tune = (int)tune;
    rsb_err_t e = RSB_ERR_NO_ERROR;
    if (!librsb_threads(s, err))
        s->M = rsb_mtx_alloc_from_csr_const(A->val, A->rowptr, A->colidx, A->nnz,
                                            RSB_NUMERICAL_TYPE_DOUBLE, A->rows, A->cols, 1,
                                            1, RSB_FLAG_NOFLAGS, &e);
    if (!s->M) {
        librsb_release(s);
        return e != RSB_ERR_NO_ERROR ? rsb_fail(err, e, "rsb_mtx_alloc_from_csr_const") : -1;
    }
    *state = s;
    /* nothing to tune without nonzeros (the tuner calls such a matrix,
     * or an empty x, corrupt data): the run says it was not tuned */
    return s->tune && A->nnz > 0 && A->cols > 0 ? librsb_tune(s, err) : 0;
}

/* The run's facts: tuned or not and the tuner's verdict, the threads
 * librsb runs, the matrix's flags, blocks and bytes, librsb's version. */
static int librsb_info(void *state, char *json, size_t len)
{
    const librsb_state *s = state;
    rsb_flags_t flags = 0;
    rsb_blk_idx_t leaves = 0;
    size_t bytes = 0;
    rsb_int_t threads = 0;
    if (!s || !s->M ||
        rsb_mtx_get_info(s->M, RSB_MIF_MATRIX_FLAGS__TO__RSB_FLAGS_T, &flags) ||
        rsb_mtx_get_info(s->M, RSB_MIF_LEAVES_COUNT__TO__RSB_BLK_INDEX_T, &leaves) ||
        rsb_mtx_get_info(s->M, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &bytes) ||
        rsb_lib_get_opt(RSB_IO_WANT_EXECUTING_THREADS, &threads))
        return -1;
    int n = snprintf(json, len,
                     "{\"librsb\":\"%s\",\"tune\":%d,\"tuned\":%d,\"tune_speedup\":%.4g,"
                     "\"threads\":%d,\"flags\":\"0x%x\",\"leaves\":%ld,\"bytes\":%zu}",
                     RSB_LIBRSB_VER_STRING, s->tune, s->tuned, (double)s->tune_speedup, (int)threads,
                     (unsigned)flags, (long)leaves, bytes);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static int librsb_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const librsb_state *s = state;
    const double one = 1.0, zero = 0.0;
    if (!s)
        return sp_fail(err, "spmv_librsb: launch without a state");
    /* the thread count was set and read back in prepare, after the tuner;
     * nothing runs between prepare and the launches of one combination, so
     * the timed launch carries no librsb option call */
    rsb_err_t e = rsb_spmv(RSB_TRANSPOSITION_N, &one, s->M, s->x, 1, &zero, s->y, 1);
    return e == RSB_ERR_NO_ERROR ? 0 : rsb_fail(err, e, "rsb_spmv");
}

static int librsb_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const librsb_state *s = state;
    double *y = out;
    (void)ex;
    if (!s || !y)
        return sp_fail(err, "spmv_librsb: result without a state or an output buffer");
    for (int32_t i = 0; i < s->rows; i++)
        y[i] = s->y[i];
    return 0;
}

const sp_kernel sp_spmv_librsb = {
    .name = "spmv_librsb",
    .operation = "spmv",
    .format = "rsb",
    .backend = "librsb",
    .summary = "librsb rsb_spmv (recursive sparse blocks), its own threads; tune = 1: "
               "librsb's autotuner (rsb_tune_spmm) in prepare",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {"tune", "1"}},
    .prepare = librsb_prepare,
    .info = librsb_info,
    .launch = librsb_launch,
    .result = librsb_result,
    .release = librsb_release,
    .need = librsb_need,
};
