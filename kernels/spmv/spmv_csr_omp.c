/*
 * spmv_csr_omp.c — CSR SpMV with `omp parallel for` over rows, static
 * schedule: equal row counts per thread, so skewed rows show up as
 * imbalance (which is what the sweep wants to see).
 */
#include "spmv.h"

/* y = A·x with s->threads threads; the wall time of the parallel region. */
static int csr_omp_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp: launch without a state");
    const sp_csr *A = s->A;
    const double *restrict x = s->x;
    double *restrict y = s->y;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = sp_spmv_csr_row(A, x, i);
    return 0;
}

/* Memory beyond the problem: y (rows + 1 doubles, as prepare allocates)
 * and the state. Pure arithmetic: the runner calls it before forking. */
static int csr_omp_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    (void)p, (void)err;
    need->host_bytes = ((uint64_t)pb->A->rows + 1) * sizeof(double) + sizeof(sp_spmv_cpu);
    need->device_bytes = 0;
    return 0;
}

const sp_kernel sp_spmv_csr_omp = {
    .name = "spmv_csr_omp",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, omp parallel for over rows, static schedule",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_cpu_prepare,
    .launch = csr_omp_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = csr_omp_need,
};
