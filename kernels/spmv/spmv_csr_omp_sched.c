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

static int csr_auto_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_auto: launch without a state");
    const sp_csr *A = s->A;
    double *restrict y = s->y;
#pragma omp parallel for schedule(auto) num_threads(s->threads)
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = sp_spmv_csr_row(A, s->x, i);
    return 0;
}

static int csr_dynamic_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_dynamic: launch without a state");
    const sp_csr *A = s->A;
    double *restrict y = s->y;
#pragma omp parallel for schedule(dynamic, s->chunk) num_threads(s->threads)
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = sp_spmv_csr_row(A, s->x, i);
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
    .launch = csr_auto_launch,
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
    .launch = csr_dynamic_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};
