/*
 * spmv_csr_omp_simd.c — CSR SpMV with `omp for` over rows and an inner
 * `omp simd` reduction over each row's nonzeros: the row's dot product
 * vectorizes (gathers for x) with partial sums per lane, so its rounding
 * differs from the serial order by a few ulps of the row's magnitude.
 * Pays off on long rows; on short ones the vector prologue and the final
 * horizontal add cost more than they save.
 *   spmv_csr_omp_simd       study 002's CSR solution 3: the rows statically;
 *   spmv_csr_omp_simd_auto  its solution 4: solution 3 with schedule(auto)
 *                           (the runtime's choice; libgomp maps it to
 *                           static, so the two differ only where another
 *                           runtime chooses otherwise).
 */
#include "spmv.h"

/* Row i with a vectorized reduction. */
static inline double csr_row_simd(const sp_csr *A, const double *restrict x, int32_t i)
{
    const int32_t *restrict col = A->colidx;
    const double *restrict val = A->val;
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        sum += val[k] * x[col[k]];
    return sum;
}

static int csr_simd_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_simd: launch without a state");
    const sp_csr *A = s->A;
    double *restrict y = s->y;
#pragma omp parallel num_threads(s->threads)
#pragma omp for schedule(static)
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = csr_row_simd(A, s->x, i);
    return 0;
}

static int csr_simd_auto_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_simd_auto: launch without a state");
    const sp_csr *A = s->A;
    double *restrict y = s->y;
#pragma omp parallel for schedule(auto) num_threads(s->threads)
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = csr_row_simd(A, s->x, i);
    return 0;
}

const sp_kernel sp_spmv_csr_omp_simd = {
    .name = "spmv_csr_omp_simd",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, omp for over rows, omp simd reduction inside each row",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_cpu_prepare,
    .launch = csr_simd_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};

const sp_kernel sp_spmv_csr_omp_simd_auto = {
    .name = "spmv_csr_omp_simd_auto",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, omp parallel for schedule(auto), omp simd reduction inside each row",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_cpu_prepare,
    .launch = csr_simd_auto_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};
