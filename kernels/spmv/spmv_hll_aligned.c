/*
 * spmv_hll_aligned.c — sliced ELLPACK with every hack stored column-major,
 * 64-byte aligned and padded to a multiple of 16 rows (hll.h), so the loop
 * down a hack's column is an aligned unit-stride vector loop
 * (sp_spmv_colmajor_rows: with gcc 12 -O3 -march=native it compiles to
 * vgatherdpd + vfmadd over 4 or 8 rows; bench/RESULTS.md shows the
 * -fopt-info-vec line). Serial, and OpenMP over hacks with the three
 * assignments of the row-major HLL kernels (spmv_hll.c), study 002's HLL
 * solutions on this layout:
 *   spmv_hll_aligned_omp_static   solution 1: omp for, static;
 *   spmv_hll_aligned_omp_dynamic  solution 2: omp for, dynamic, `chunk` hacks;
 *   spmv_hll_aligned_omp          solution 3: a range of hacks per thread,
 *                                 split by stored entries.
 */
#include "spmv_hll.h"

static int hll_aligned_serial_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_aligned_serial: launch without a state");
    sp_spmv_hll_colmajor(&s->H, 0, s->H.nhacks, s->x, s->y);
    return 0;
}

static int hll_aligned_static_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_aligned_omp_static: launch without a state");
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int32_t h = 0; h < s->H.nhacks; h++)
        sp_spmv_hll_colmajor(&s->H, h, h + 1, s->x, s->y);
    return 0;
}

static int hll_aligned_dynamic_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_aligned_omp_dynamic: launch without a state");
#pragma omp parallel for schedule(dynamic, s->chunk) num_threads(s->threads)
    for (int32_t h = 0; h < s->H.nhacks; h++)
        sp_spmv_hll_colmajor(&s->H, h, h + 1, s->x, s->y);
    return 0;
}

static int hll_aligned_omp_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_aligned_omp: launch without a state");
    sp_spmv_hll_balanced(s);
    return 0;
}

const sp_kernel sp_spmv_hll_aligned_serial = {
    .name = "spmv_hll_aligned_serial",
    .operation = "spmv",
    .format = "hll",
    .backend = "serial",
    .summary = "HLL column-major, 64-byte aligned hacks, vectorized down the columns",
    .naxes = 1,
    .axes = {{"hack", "32", "1..65536"}},
    .prepare = sp_spmv_hll_aligned_prepare,
    .launch = hll_aligned_serial_launch,
    .result = sp_spmv_hll_result,
    .release = sp_spmv_hll_release,
    .need = sp_spmv_hll_aligned_need,
};

const sp_kernel sp_spmv_hll_aligned_omp = {
    .name = "spmv_hll_aligned_omp",
    .operation = "spmv",
    .format = "hll",
    .backend = "openmp",
    .summary = "HLL column-major aligned, hacks split by stored entries",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {"hack", "32", "1..65536"}},
    .prepare = sp_spmv_hll_aligned_prepare,
    .launch = hll_aligned_omp_launch,
    .result = sp_spmv_hll_result,
    .release = sp_spmv_hll_release,
    .need = sp_spmv_hll_aligned_need,
};

const sp_kernel sp_spmv_hll_aligned_omp_static = {
    .name = "spmv_hll_aligned_omp_static",
    .operation = "spmv",
    .format = "hll",
    .backend = "openmp",
    .summary = "HLL column-major aligned, omp for over hacks, static",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {"hack", "32", "1..65536"}},
    .prepare = sp_spmv_hll_aligned_prepare,
    .launch = hll_aligned_static_launch,
    .result = sp_spmv_hll_result,
    .release = sp_spmv_hll_release,
    .need = sp_spmv_hll_aligned_need,
};

const sp_kernel sp_spmv_hll_aligned_omp_dynamic = {
    .name = "spmv_hll_aligned_omp_dynamic",
    .operation = "spmv",
    .format = "hll",
    .backend = "openmp",
    .summary = "HLL column-major aligned, omp for over hacks, dynamic with `chunk` hacks",
    .naxes = 3,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {"hack", "32", "1..65536"}, {"chunk", "8"}},
    .prepare = sp_spmv_hll_aligned_prepare,
    .launch = hll_aligned_dynamic_launch,
    .result = sp_spmv_hll_result,
    .release = sp_spmv_hll_release,
    .need = sp_spmv_hll_aligned_need,
};
