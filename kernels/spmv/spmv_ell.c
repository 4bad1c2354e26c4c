/*
 * spmv_ell.c — ELLPACK SpMV: every row padded to the longest one.
 *
 * Stored column-major (hll.h), the classic ELLPACK layout, because on a
 * CPU that is the one whose inner loop vectorizes without a reduction:
 * going down a column, consecutive rows are consecutive in val, col and y,
 * so eight rows are one AVX-512 multiply-add (x through a gather). Rows
 * are walked in strips of SP_ELL_STRIP so the strip of y stays in L1
 * across the columns. Row-major ELLPACK would be the row-major HLL with
 * one hack: a short dot product per row, as CSR does.
 */
#include "spmv_hll.h"

/* All strips, one after another. */
static int ell_serial_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_ell_serial: launch without a state");
    sp_spmv_hll_colmajor(&s->H, 0, s->H.nhacks, s->x, s->y);
    return 0;
}

/* Strips shared out statically among the threads. */
static int ell_omp_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_ell_omp: launch without a state");
    const sp_hll *H = &s->H;
    const int32_t strips = (int32_t)(((int64_t)H->rows + SP_ELL_STRIP - 1) / SP_ELL_STRIP);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int32_t q = 0; q < strips; q++) {
        int32_t i = q * SP_ELL_STRIP, n = H->rows - i;
        const double *v;
        const int32_t *c;
        sp_hll_strip(H, 0, i, &v, &c);
        sp_spmv_colmajor_rows(v, c, H->ld, H->width[0], n < SP_ELL_STRIP ? n : SP_ELL_STRIP,
                              s->x, s->y + i);
    }
    return 0;
}

const sp_kernel sp_spmv_ell_serial = {
    .name = "spmv_ell_serial",
    .operation = "spmv",
    .format = "ell",
    .backend = "serial",
    .summary = "ELLPACK column-major, strips of 512 rows, vectorized down the columns",
    .prepare = sp_spmv_ell_prepare,
    .launch = ell_serial_launch,
    .result = sp_spmv_hll_result,
    .release = sp_spmv_hll_release,
    .need = sp_spmv_ell_need,
};

const sp_kernel sp_spmv_ell_omp = {
    .name = "spmv_ell_omp",
    .operation = "spmv",
    .format = "ell",
    .backend = "openmp",
    .summary = "ELLPACK column-major, strips of 512 rows shared statically",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = sp_spmv_ell_prepare,
    .launch = ell_omp_launch,
    .result = sp_spmv_hll_result,
    .release = sp_spmv_hll_release,
    .need = sp_spmv_ell_need,
};
