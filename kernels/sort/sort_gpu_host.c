/*
 * sort_gpu_host.c — the plain-C half of the GPU sort harness (sort_gpu.h):
 * axis checks and the memory statement, which the runner evaluates in a
 * process that never touches CUDA.
 */
#include "sort_gpu.h"

int sp_sort_gpu_axes(const char *kernel, const sp_params *p, int *values, sp_qsort_opts *o,
                     sp_err *err)
{
    if (sp_sort_values_axis(kernel, p, values, err))
        return -1;
    long bs = sp_param(p, "blocksize", SP_SORT_GPU_BLOCKSIZE);
    long win = sp_param(p, "window", SP_SORT_GPU_WINDOW);
    long cut = sp_param(p, "cutoff", SP_SORT_GPU_CUTOFF);
    if (bs < 1 || bs > 1024)
        return sp_fail(err, "%s: blocksize = %ld outside 1..1024", kernel, bs);
    if (win < 1 || win > (1L << 30))
        return sp_fail(err, "%s: window = %ld outside 1..2^30", kernel, win);
    if (cut < 1 || cut > (1L << 30))
        return sp_fail(err, "%s: cutoff = %ld outside 1..2^30", kernel, cut);
    o->blocksize = (int)bs, o->window = (int)win, o->cutoff = (int)cut;
    return 0;
}

int sp_sort_gpu_design_axes(const sp_sort_gpu_design *d, const sp_params *p, int *values,
                            sp_qsort_opts *o, sp_err *err)
{
    if (sp_sort_gpu_axes(d->name, p, values, o, err))
        return -1;
    if (d->check && d->check(o, err))
        return sp_fail_prefix(err, "%s", d->name);
    return 0;
}

/* cudaMalloc hands out memory in 2 MiB pages: each array counts rounded up
 * to that, and never less than one page. */
static uint64_t device_array(uint64_t bytes)
{
    const uint64_t page = 2u << 20;
    return ((bytes ? bytes : 1) + page - 1) / page * page;
}

int sp_sort_gpu_need(const sp_sort_gpu_design *d, const sp_problem *pb, const sp_params *p,
                     sp_need *need, sp_err *err)
{
    int values;
    sp_qsort_opts o;
    if (!d || !d->workspace)
        return sp_fail(err, "%s: not built into this binary", d ? d->name : "GPU sort");
    if (!pb || pb->nkeys < 0 || (!pb->keys && pb->nkeys > 0))
        return sp_fail(err, "%s: problem without keys", d->name);
    if (sp_sort_gpu_design_axes(d, p, &values, &o, err))
        return -1;
    uint64_t n = (uint64_t)pb->nkeys;
    need->host_bytes = 4096;
    need->device_bytes = device_array(4 * n) * (2 + (uint64_t)values) +
                         device_array(d->workspace(pb->nkeys, values, &o));
    return 0;
}
