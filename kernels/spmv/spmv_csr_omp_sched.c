/*
 * spmv_csr_omp_sched.c — CSR SpMV with the rows handed out by OpenMP's own
 * schedulers instead of spmv_csr_omp's static one:
 *   spmv_csr_omp_auto     schedule(auto): the runtime's choice (libgomp
 *                         treats it as static);
 *   spmv_csr_omp_dynamic  schedule(dynamic, chunk): `chunk` rows at a time
 *                         from a shared counter, which evens out skewed
 *                         rows at the price of one atomic per chunk.
 */
#include "spmv.h"

static int csr_auto_run(void *state, double *seconds, sp_err *err)
{
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_auto: run without a state");
    const sp_csr *A = s->A;
    double *restrict y = s->y;
    double t0 = sp_seconds();
#pragma omp parallel for schedule(auto) num_threads(s->threads)
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = sp_spmv_csr_row(A, s->x, i);
    *seconds = sp_seconds() - t0;
    return 0;
}

static int csr_dynamic_run(void *state, double *seconds, sp_err *err)
{
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_dynamic: run without a state");
    const sp_csr *A = s->A;
    double *restrict y = s->y;
    double t0 = sp_seconds();
#pragma omp parallel for schedule(dynamic, s->chunk) num_threads(s->threads)
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = sp_spmv_csr_row(A, s->x, i);
    *seconds = sp_seconds() - t0;
    return 0;
}

const sp_kernel sp_spmv_csr_omp_auto = {
    .name = "spmv_csr_omp_auto",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, omp parallel for over rows, schedule(auto)",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_cpu_prepare,
    .run = csr_auto_run,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};

const sp_kernel sp_spmv_csr_omp_dynamic = {
    .name = "spmv_csr_omp_dynamic",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, omp parallel for over rows, schedule(dynamic, chunk)",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {"chunk", "64"}},
    .prepare = sp_spmv_cpu_prepare,
    .run = csr_dynamic_run,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};
