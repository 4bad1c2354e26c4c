/*
 * spmv_csr_rows4.c — the example of docs/adding-a-kernel.md: a CSR SpMV
 * that unrolls each row by four, with an OpenMP `threads` axis. Complete
 * on its own (no helper of the SpMV family), so every step of the life
 * cycle is in view; tests/test_example_kernel.c compiles it, checks it on
 * the awkward matrices and sweeps it, and checks that the page shows this
 * file as it is.
 */
#include <omp.h>
#include <stdlib.h>

#include "../../kernels/kernel.h"

typedef struct rows4_state {
    const sp_csr *A;            /* the runner's matrix: read, never freed */
    const double *x;
    double *y;
    int threads;
} rows4_state;

/* Host only: check the axes, allocate y, keep what launch reads. */
static int rows4_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    long threads = sp_param(p, "threads", 1);
    if (threads < 1 || threads > 4096)
        return sp_fail(err, "spmv_csr_rows4: threads = %ld, expected 1..4096", threads);
    rows4_state *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "spmv_csr_rows4: out of memory");
    *state = s;                 /* release frees it, even if what follows fails */
    s->A = pb->A, s->x = pb->x, s->threads = (int)threads;
    s->y = malloc(((size_t)pb->A->rows + 1) * sizeof *s->y);
    return s->y ? 0 : sp_fail(err, "spmv_csr_rows4: out of memory for y");
}

/* One y = A·x, no clock: the harness times launches. */
static int rows4_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex, (void)err;
    rows4_state *s = state;
    const sp_csr *A = s->A;
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t k = A->rowptr[i], end = A->rowptr[i + 1];
        double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (; k + 3 < end; k += 4) {
            a0 += A->val[k] * s->x[A->colidx[k]];
            a1 += A->val[k + 1] * s->x[A->colidx[k + 1]];
            a2 += A->val[k + 2] * s->x[A->colidx[k + 2]];
            a3 += A->val[k + 3] * s->x[A->colidx[k + 3]];
        }
        for (; k < end; k++)
            a0 += A->val[k] * s->x[A->colidx[k]];
        s->y[i] = (a0 + a1) + (a2 + a3);
    }
    return 0;
}

/* y into the runner's buffer, which the check compares with the reference. */
static int rows4_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    (void)ex, (void)err;
    rows4_state *s = state;
    double *y = out;
    for (int32_t i = 0; i < s->A->rows; i++)
        y[i] = s->y[i];
    return 0;
}

static void rows4_release(void *state)
{
    rows4_state *s = state;
    if (s)
        free(s->y);
    free(s);
}

/* What prepare will allocate, before it runs: the memory guard's input. */
static int rows4_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    (void)p, (void)err;
    need->host_bytes = ((uint64_t)pb->A->rows + 1) * sizeof(double) + sizeof(rows4_state);
    return 0;
}

const sp_kernel sp_spmv_csr_rows4 = {
    .name = "spmv_csr_rows4",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, rows unrolled by four (the example of docs/adding-a-kernel.md)",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = rows4_prepare,
    .launch = rows4_launch,
    .result = rows4_result,
    .release = rows4_release,
    .need = rows4_need,
};
