/*
 * spmv_csr_omp_split.c — CSR SpMV with the rows split among the threads by
 * hand, one contiguous range each, inside one parallel region:
 *   spmv_csr_omp_blocks  equal row counts (what schedule(static) does,
 *                        written out);
 *   spmv_csr_omp_nnz     equal nonzero counts: thread t starts at the first
 *                        row whose rowptr reaches t·nnz/threads (a binary
 *                        search over the row pointer, done by each thread
 *                        for itself, inside the timed region);
 *   spmv_csr_omp_nnz_ilp the nonzero split with each row's dot product
 *                        in four partial sums: one running sum makes
 *                        every multiply-add wait for the one before
 *                        (the add's latency, 3-4 cycles a nonzero, where
 *                        a CSR row that fits in no cache wants ~1); four
 *                        independent sums keep four loads and adds in
 *                        flight without vector gathers (slow on AMD's
 *                        cores, which is why the `omp simd` kernels lose
 *                        there). The sums' order differs from the serial
 *                        loop's by a few ulps of the row's magnitude.
 */
#include <omp.h>

#include "../partition.h"
#include "spmv.h"

/* y[i] for rows [i0, i1). */
static void csr_rows(const sp_csr *A, const double *restrict x, double *restrict y,
                     int32_t i0, int32_t i1)
{
    for (int32_t i = i0; i < i1; i++)
        y[i] = sp_spmv_csr_row(A, x, i);
}

static int csr_nnz_ilp_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_nnz_ilp: launch without a state");
    const sp_csr *A = s->A;
    const int32_t *restrict rp = A->rowptr;
    const double *restrict x = s->x;
    double *restrict y = s->y;
#pragma omp parallel num_threads(s->threads) if (s->threads > 1)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int32_t i1 = sp_split_prefix(rp, A->rows, nt, t + 1);
        for (int32_t i = sp_split_prefix(rp, A->rows, nt, t); i < i1; i++)
            y[i] = sp_spmv_csr_row4(A->colidx, A->val, x, rp[i], rp[i + 1]);
    }
    return 0;
}

static int csr_blocks_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_blocks: launch without a state");
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        csr_rows(s->A, s->x, s->y, (int32_t)sp_split_equal(s->A->rows, nt, t),
                 (int32_t)sp_split_equal(s->A->rows, nt, t + 1));
    }
    return 0;
}

static int csr_nnz_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_omp_nnz: launch without a state");
    const sp_csr *A = s->A;
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        csr_rows(A, s->x, s->y, sp_split_prefix(A->rowptr, A->rows, nt, t),
                 sp_split_prefix(A->rowptr, A->rows, nt, t + 1));
    }
    return 0;
}

const sp_kernel sp_spmv_csr_omp_blocks = {
    .name = "spmv_csr_omp_blocks",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, rows split by hand into equal contiguous blocks",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_cpu_prepare,
    .launch = csr_blocks_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};

const sp_kernel sp_spmv_csr_omp_nnz = {
    .name = "spmv_csr_omp_nnz",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, rows split so each thread gets an equal share of nonzeros",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_cpu_prepare,
    .launch = csr_nnz_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};

const sp_kernel sp_spmv_csr_omp_nnz_ilp = {
    .name = "spmv_csr_omp_nnz_ilp",
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, equal nonzero shares, each row in four independent partial sums",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_cpu_prepare,
    .launch = csr_nnz_ilp_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = sp_spmv_csr_y_need,
};
