/*
 * spmv_csr_cpu.c — CSR SpMV on the CPU: serial, and OpenMP `parallel for`
 * over rows (static schedule, `threads` axis). Both work in place on the
 * problem's CSR, so there is no conversion phase.
 */
#include <stdlib.h>

#include "spmv.h"

typedef struct cpu_state {
    const sp_csr *A;
    const double *x;
    double *y;
    int threads;
} cpu_state;

static int cpu_prepare(const sp_problem *pb, const sp_params *p, void **state,
                       sp_phases *ph, sp_err *err)
{
    (void)ph;
    cpu_state *s = calloc(1, sizeof *s);
    if (s)
        s->y = malloc(((size_t)pb->A->rows + 1) * sizeof(double));
    if (!s || !s->y) {
        free(s);
        return sp_fail(err, "out of memory for y (%d rows)", pb->A->rows);
    }
    s->A = pb->A;
    s->x = pb->x;
    s->threads = (int)sp_param(p, "threads", 1);
    *state = s;
    return 0;
}

static void csr_row_range(const sp_csr *A, const double *restrict x, double *restrict y,
                          int32_t i)
{
    double sum = 0.0;
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        sum += A->val[k] * x[A->colidx[k]];
    y[i] = sum;
}

static int serial_run(void *state, double *seconds, sp_err *err)
{
    cpu_state *s = state;
    (void)err;
    double t0 = sp_seconds();
    for (int32_t i = 0; i < s->A->rows; i++)
        csr_row_range(s->A, s->x, s->y, i);
    *seconds = sp_seconds() - t0;
    return 0;
}

static int omp_run(void *state, double *seconds, sp_err *err)
{
    cpu_state *s = state;
    const sp_csr *A = s->A;
    (void)err;
    double t0 = sp_seconds();
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int32_t i = 0; i < A->rows; i++)
        csr_row_range(A, s->x, s->y, i);
    *seconds = sp_seconds() - t0;
    return 0;
}

static int cpu_result(void *state, void *out, sp_phases *ph, sp_err *err)
{
    cpu_state *s = state;
    double *y = out;
    (void)ph, (void)err;
    for (int32_t i = 0; i < s->A->rows; i++)
        y[i] = s->y[i];
    return 0;
}

static void cpu_release(void *state)
{
    cpu_state *s = state;
    if (s)
        free(s->y);
    free(s);
}

const sp_kernel sp_spmv_csr_serial = {
    .name = "spmv_csr_serial", .operation = "spmv", .format = "csr", .backend = "serial",
    .summary = "CSR, one row after another (the baseline)",
    .prepare = cpu_prepare, .run = serial_run, .result = cpu_result, .release = cpu_release,
};

const sp_kernel sp_spmv_csr_omp = {
    .name = "spmv_csr_omp", .operation = "spmv", .format = "csr", .backend = "openmp",
    .summary = "CSR, omp parallel for over rows, static schedule",
    .naxes = 1, .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = cpu_prepare, .run = omp_run, .result = cpu_result, .release = cpu_release,
};
