/*
 * spmv_librsb.c — the outside baseline: librsb (M. Martone's Recursive
 * Sparse Blocks; Debian's librsb-dev) SpMV with its own OpenMP threads,
 * set through RSB_IO_WANT_EXECUTING_THREADS from the `threads` axis. The
 * RSB matrix is built from the CSR in prepare (the conversion phase),
 * with librsb's default flags and no autotuning (rsb_tune_spmv).
 *
 * librsb keeps process-wide state. rsb_lib_init runs lazily, in the first
 * prepare of each process: the pid that initialised it is recorded, so a
 * child forked from an initialised parent initialises again instead of
 * trusting the copy, and rsb_lib_exit runs at the exit of the process that
 * initialised. (libgomp itself is not fork-safe: a child forked after its
 * parent ran a parallel region with more than one thread hangs in its own
 * first parallel region — the runner must fork before any OpenMP work.)
 */
#include <rsb.h>
#include <stdlib.h>
#include <unistd.h>

#include "../partition.h"
#include "spmv.h"

typedef struct librsb_state {
    struct rsb_mtx_t *M;
    const double *x;
    double *y;
    int32_t rows;
    rsb_int_t threads;
} librsb_state;

static pid_t rsb_ready_pid;     /* the process whose librsb is initialised; 0: none */

static void rsb_at_exit(void)
{
    if (rsb_ready_pid == getpid())
        rsb_lib_exit(RSB_NULL_EXIT_OPTIONS);
}

/* librsb's own message for e. */
static int rsb_fail(sp_err *err, rsb_err_t e, const char *what)
{
    char msg[256] = "";
    rsb_strerror_r(e, msg, sizeof msg);
    return sp_fail(err, "spmv_librsb: %s: %s (error 0x%x)", what, msg, (unsigned)e);
}

/* rsb_lib_init once per process (see the top of the file). */
static int rsb_ready(sp_err *err)
{
    if (rsb_ready_pid == getpid())
        return 0;
    int first = rsb_ready_pid == 0;     /* a forked child inherits the atexit */
    rsb_err_t e = rsb_lib_init(RSB_NULL_INIT_OPTIONS);
    if (e != RSB_ERR_NO_ERROR)
        return rsb_fail(err, e, "rsb_lib_init");
    if (first && atexit(rsb_at_exit))
        return sp_fail(err, "spmv_librsb: atexit failed");
    rsb_ready_pid = getpid();
    return 0;
}

static int librsb_threads(const librsb_state *s, sp_err *err)
{
    rsb_int_t t = s->threads;
    rsb_err_t e = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &t);
    return e == RSB_ERR_NO_ERROR ? 0 : rsb_fail(err, e, "RSB_IO_WANT_EXECUTING_THREADS");
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

/* librsb's copy of the matrix (at most COO with 32-bit indices: 16 bytes a
 * nonzero; its recursive blocks use 16-bit local indices where they can),
 * plus y. An upper estimate: librsb does not report its need beforehand. */
static int librsb_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    (void)p;
    if (!pb || !pb->A || !need)
        return sp_fail(err, "spmv_librsb: need without a problem");
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
    if (sp_threads_param(p, "spmv_librsb", &threads, err) || rsb_ready(err))
        return -1;
    const sp_csr *A = pb->A;
    librsb_state *s = calloc(1, sizeof *s);
    if (s)      /* zeroed: rsb_spmv computes y = beta·y + A·x, beta = 0 */
        s->y = calloc((size_t)A->rows + 1, sizeof(double));
    if (!s || !s->y) {
        free(s);
        return sp_fail(err, "spmv_librsb: out of memory for y (%d rows)", A->rows);
    }
    s->x = pb->x, s->rows = A->rows, s->threads = threads;
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
    return 0;
}

static int librsb_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const librsb_state *s = state;
    const double one = 1.0, zero = 0.0;
    if (!s)
        return sp_fail(err, "spmv_librsb: launch without a state");
    if (librsb_threads(s, err))         /* another kernel may have changed it */
        return -1;
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
    .summary = "librsb rsb_spmv (recursive sparse blocks), its own threads",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = librsb_prepare,
    .launch = librsb_launch,
    .result = librsb_result,
    .release = librsb_release,
    .need = librsb_need,
};
