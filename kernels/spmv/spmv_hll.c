/*
 * spmv_hll.c — sliced ELLPACK (HLL) SpMV, hacks stored row-major: each
 * hack of `hack` rows padded to its own longest row, each row's entries
 * contiguous. Serial, and OpenMP over hacks with three assignments:
 * static (equal hack counts), dynamic (`chunk` hacks at a time) and
 * balanced by stored entries.
 */
#include "spmv_hll.h"

/* Every hack, in order. */
static int hll_serial_run(void *state, double *seconds, sp_err *err)
{
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_serial: run without a state");
    double t0 = sp_seconds();
    sp_spmv_hll_rowmajor(&s->H, 0, s->H.nhacks, s->x, s->y);
    *seconds = sp_seconds() - t0;
    return 0;
}

static int hll_omp_static_run(void *state, double *seconds, sp_err *err)
{
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_omp_static: run without a state");
    double t0 = sp_seconds();
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int32_t h = 0; h < s->H.nhacks; h++)
        sp_spmv_hll_rowmajor(&s->H, h, h + 1, s->x, s->y);
    *seconds = sp_seconds() - t0;
    return 0;
}

static int hll_omp_dynamic_run(void *state, double *seconds, sp_err *err)
{
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_omp_dynamic: run without a state");
    double t0 = sp_seconds();
#pragma omp parallel for schedule(dynamic, s->chunk) num_threads(s->threads)
    for (int32_t h = 0; h < s->H.nhacks; h++)
        sp_spmv_hll_rowmajor(&s->H, h, h + 1, s->x, s->y);
    *seconds = sp_seconds() - t0;
    return 0;
}

static int hll_omp_nnz_run(void *state, double *seconds, sp_err *err)
{
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_omp_nnz: run without a state");
    double t0 = sp_seconds();
    sp_spmv_hll_balanced(s);
    *seconds = sp_seconds() - t0;
    return 0;
}

/* The descriptors differ only in name, summary, axes and run. */
#define HLL_KERNEL(id, name_, backend_, summary_, run_, ...)                          \
    const sp_kernel id = {                                                            \
        .name = name_, .operation = "spmv", .format = "hll", .backend = backend_,     \
        .summary = summary_,                                                          \
        .naxes = sizeof((sp_axis[]){__VA_ARGS__}) / sizeof(sp_axis),                  \
        .axes = {__VA_ARGS__}, .prepare = sp_spmv_hll_prepare, .run = run_,           \
        .result = sp_spmv_hll_result, .release = sp_spmv_hll_release,                 \
        .need = sp_spmv_hll_need,                                                     \
    }

#define THREADS {"threads", "1..nproc:*2,nproc"}
#define HACK {"hack", "32"}

HLL_KERNEL(sp_spmv_hll_serial, "spmv_hll_serial", "serial",
           "HLL row-major, hacks in order", hll_serial_run, HACK);
HLL_KERNEL(sp_spmv_hll_omp_static, "spmv_hll_omp_static", "openmp",
           "HLL row-major, omp for over hacks, static", hll_omp_static_run, THREADS, HACK);
HLL_KERNEL(sp_spmv_hll_omp_dynamic, "spmv_hll_omp_dynamic", "openmp",
           "HLL row-major, omp for over hacks, dynamic with `chunk` hacks",
           hll_omp_dynamic_run, THREADS, HACK, {"chunk", "8"});
HLL_KERNEL(sp_spmv_hll_omp_nnz, "spmv_hll_omp_nnz", "openmp",
           "HLL row-major, hacks split by stored entries (prefix search)", hll_omp_nnz_run,
           THREADS, HACK);
