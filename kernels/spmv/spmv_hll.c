/*
 * spmv_hll.c — sliced ELLPACK (HLL) SpMV, hacks stored row-major: each
 * hack of `hack` rows padded to its own longest row, each row's entries
 * contiguous. Serial, and OpenMP over hacks with three assignments:
 * static (equal hack counts), dynamic (`chunk` hacks at a time) and
 * balanced by stored entries.
 */
#include "spmv_hll.h"

/* Every hack, in order. */
static int hll_serial_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_serial: launch without a state");
    sp_spmv_hll_rowmajor(&s->H, 0, s->H.nhacks, s->x, s->y);
    return 0;
}

static int hll_omp_static_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_omp_static: launch without a state");
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int32_t h = 0; h < s->H.nhacks; h++)
        sp_spmv_hll_rowmajor(&s->H, h, h + 1, s->x, s->y);
    return 0;
}

static int hll_omp_dynamic_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_omp_dynamic: launch without a state");
#pragma omp parallel for schedule(dynamic, s->chunk) num_threads(s->threads)
    for (int32_t h = 0; h < s->H.nhacks; h++)
        sp_spmv_hll_rowmajor(&s->H, h, h + 1, s->x, s->y);
    return 0;
}

static int hll_omp_nnz_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_hll *s = state;
    if (!s)
        return sp_fail(err, "spmv_hll_omp_nnz: launch without a state");
    sp_spmv_hll_balanced(s);
    return 0;
}

/* The descriptors differ only in name, summary, axes and launch. */
#define HLL_KERNEL(id, name_, backend_, summary_, launch_, ...)                        \
    const sp_kernel id = {                                                            \
        .name = name_, .operation = "spmv", .format = "hll", .backend = backend_,     \
        .summary = summary_,                                                          \
        .naxes = sizeof((sp_axis[]){__VA_ARGS__}) / sizeof(sp_axis),                  \
        .axes = {__VA_ARGS__}, .prepare = sp_spmv_hll_prepare, .launch = launch_,     \
        .result = sp_spmv_hll_result, .release = sp_spmv_hll_release,                 \
        .need = sp_spmv_hll_need,                                                     \
    }

#define THREADS {"threads", "1..nproc:*2,nproc", NULL}
#define HACK {"hack", "32", "1..65536"}

HLL_KERNEL(sp_spmv_hll_serial, "spmv_hll_serial", "serial",
           "HLL row-major, hacks in order", hll_serial_launch, HACK);
HLL_KERNEL(sp_spmv_hll_omp_static, "spmv_hll_omp_static", "openmp",
           "HLL row-major, omp for over hacks, static", hll_omp_static_launch, THREADS, HACK);
HLL_KERNEL(sp_spmv_hll_omp_dynamic, "spmv_hll_omp_dynamic", "openmp",
           "HLL row-major, omp for over hacks, dynamic with `chunk` hacks",
           hll_omp_dynamic_launch, THREADS, HACK, {"chunk", "8", NULL});
HLL_KERNEL(sp_spmv_hll_omp_nnz, "spmv_hll_omp_nnz", "openmp",
           "HLL row-major, hacks split by stored entries (prefix search)", hll_omp_nnz_launch,
           THREADS, HACK);
