/*
 * prim_kernels.c — the GPU kernels of the primitive operations (prim.h):
 * their descriptors with their axes and the values each takes (checked
 * when a config is read), the axes' checks in prepare, and the device
 * memory each needs. In a CPU-only build their entry points are NULL and
 * the runner skips them with the reason.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../kernel.h"
#include "prim.h"

int sp_prim_blocksize(const char *kernel, const sp_params *p, int *bs, sp_err *err)
{
    long v = sp_param(p, "blocksize", 256);
    if (v < 1 || v > SP_PRIM_BS_MAX)
        return sp_fail(err, "%s: blocksize = %ld is outside 1..%d", kernel, v, SP_PRIM_BS_MAX);
    *bs = (int)v;
    return 0;
}

int sp_prim_axis(const char *kernel, const sp_params *p, const char *axis, long dflt, long max,
                 int64_t *v, sp_err *err)
{
    long x = sp_param(p, axis, dflt);
    if (x < 1 || x > max)
        return sp_fail(err, "%s: %s = %ld is outside 1..%ld", kernel, axis, x, max);
    *v = x;
    return 0;
}

double sp_hist_owner_reads(int64_t n, int32_t bins, int bs)
{
    double span = (double)bs * SP_HIST_OWN_BINS;
    return (double)n * ceil((double)bins / span) * bs;
}

size_t sp_gpu_scan_temp_bytes(int64_t n, int bs)
{
    int64_t tile = (int64_t)bs * SP_SCAN_ITEMS, total = 0;
    for (int64_t nb = (n + tile - 1) / tile; nb > 1; nb = (nb + tile - 1) / tile)
        total += nb + 1;
    return (size_t)total * sizeof(int32_t);
}

uint64_t sp_prim_gpu_bytes(const char *op, const sp_prim_shape *sh, int bs, int64_t segment)
{
    uint64_t n = (uint64_t)sh->n, bins = (uint64_t)sh->bins;
    if (!strcmp(op, "scan"))
        return sp_gpu_array_bytes((uint64_t)sh->scan_n, 4) +
               sp_gpu_array_bytes((uint64_t)sh->scan_n + 1, 4) +
               sp_gpu_array_bytes(sp_gpu_scan_temp_bytes(sh->scan_n, bs), 1);
    if (!strcmp(op, "histogram"))
        return sp_gpu_array_bytes(n, 4) + sp_gpu_array_bytes(bins, 4);
    if (!strcmp(op, "idx2ptr"))
        return sp_gpu_array_bytes(n, 4) + sp_gpu_array_bytes(bins + 1, 4);
    if (!strcmp(op, "ptr2idx"))
        return sp_gpu_array_bytes((uint64_t)sh->nseg + 1, 4) + sp_gpu_array_bytes(n, 4);
    if (!strcmp(op, "segsort"))
        return 2 * sp_gpu_array_bytes(n, 8);
    if (!strcmp(op, "hist_idx2ptr"))    /* indices, partial counts, totals, pointers */
        return sp_gpu_array_bytes(n, 4) +
               sp_gpu_array_bytes((uint64_t)sp_prim_nparts(sh->n, segment) * bins, 4) +
               sp_gpu_array_bytes(bins, 4) + sp_gpu_array_bytes(bins + 1, 4) +
               sp_gpu_array_bytes(sp_gpu_scan_temp_bytes(sh->bins, bs), 1) +
               sp_gpu_array_bytes((uint64_t)sp_prim_nparts(sh->n, segment) * bins, 4);
    return 3 * sp_gpu_array_bytes(n, 8);     /* merge: input and two buffers */
}

/* need of each kernel: the derived input on the host, the arrays on the
 * device; a value outside an axis is refused here already. */
static int prim_need(const char *op, const char *kname, const sp_problem *pb,
                     const sp_params *p, sp_need *need, sp_err *err)
{
    int bs = 0;
    int64_t seg = SP_PRIM_SEG, dist = SP_PRIM_SP_DIST;
    sp_prim_shape sh = {0};
    if (sp_prim_blocksize(kname, p, &bs, err) || sp_prim_shape_of(pb, &sh, err))
        return -1;
    if (!strcmp(op, "segsort") &&
        sp_prim_axis(kname, p, "segment", SP_PRIM_SEG, SP_PRIM_SEG_MAX, &seg, err))
        return -1;
    if (!strcmp(op, "merge") &&
        (sp_prim_axis(kname, p, "segment", SP_PRIM_SEG, SP_PRIM_RUN_MAX, &seg, err) ||
         sp_prim_axis(kname, p, "sp_dist", SP_PRIM_SP_DIST, SP_PRIM_SP_DIST_MAX, &dist, err)))
        return -1;
    if (!strcmp(op, "hist_idx2ptr") &&
        sp_prim_axis(kname, p, "segment", 4096, SP_PRIM_HIST_SEG_MAX, &seg, err))
        return -1;
    int wide = !strcmp(op, "segsort") || !strcmp(op, "merge");
    need->host_bytes = 4096 + ((uint64_t)sh.n + sh.bins + sh.nseg + sh.scan_n + 1) * (wide ? 8 : 4);
    need->device_bytes = sp_prim_gpu_bytes(op, &sh, bs, seg);
    return 0;
}

#define PRIM_BS {"blocksize", SP_PRIM_BLOCKSIZES, SP_PRIM_VALID_BS}

/* A kernel of operation OP with NAXES axes, (AXES) in parentheses. */
#define PRIM_UNPAREN(...) __VA_ARGS__
#define PRIM_KERNEL(NAME, OP, SUMMARY, NAXES, AXES)                                       \
    static int NAME##_need(const sp_problem *pb, const sp_params *p, sp_need *need,       \
                           sp_err *err)                                                   \
    {                                                                                     \
        return prim_need(#OP, #NAME, pb, p, need, err);                                   \
    }                                                                                     \
    const sp_kernel sp_##NAME = {                                                         \
        .name = #NAME,                                                                    \
        .operation = #OP,                                                                 \
        .format = "array",                                                                \
        .backend = "cuda",                                                                \
        .summary = SUMMARY,                                                               \
        .needs_gpu = 1,                                                                   \
        .naxes = NAXES,                                                                   \
        .axes = {PRIM_UNPAREN AXES},                                                      \
        .prepare = SP_GPU_FN(sp_##NAME##_prepare),                                        \
        .upload = SP_GPU_FN(sp_prim_gpu_upload),                                          \
        .launch = SP_GPU_FN(sp_prim_gpu_launch),                                          \
        .result = SP_GPU_FN(sp_prim_gpu_result),                                          \
        .release = SP_GPU_FN(sp_prim_gpu_release),                                        \
        .need = NAME##_need,                                                              \
    };

#define SEGSORT_SEG {"segment", "1024", SP_PRIM_VALID_SEG}
#define MERGE_SEG {"segment", "1024", SP_PRIM_VALID_RUN}
#define MERGE_DIST {"sp_dist", "1024", SP_PRIM_VALID_SP_DIST}
#define HIST_SEG {"segment", "4096", SP_PRIM_VALID_HIST_SEG}

PRIM_KERNEL(scan_cuda, scan, "exclusive scan: Blelloch per block (any block size), multi-level",
            1, (PRIM_BS))
PRIM_KERNEL(histogram_cuda, histogram,
            "histogram of indices: shared-memory or warp-aggregated atomics", 1, (PRIM_BS))
PRIM_KERNEL(idx2ptr_cuda, idx2ptr, "index-to-pointers: sorted indices -> pointers", 1,
            (PRIM_BS))
PRIM_KERNEL(ptr2idx_cuda, ptr2idx, "pointers-to-index: pointers -> segment of each position", 1,
            (PRIM_BS))
PRIM_KERNEL(segsort_cuda, segsort,
            "stable sort of 64-bit keys in segments of `segment` keys, in shared memory", 2,
            (PRIM_BS, SEGSORT_SEG))
PRIM_KERNEL(merge_cuda, merge,
            "merge rounds from sorted runs of `segment`: merge path, splitters every sp_dist",
            3, (PRIM_BS, MERGE_SEG, MERGE_DIST))
PRIM_KERNEL(hist_idx2ptr_cuda_loop, hist_idx2ptr,
            "index-to-pointers of unsorted indices: partial histograms, a thread a column", 2,
            (PRIM_BS, HIST_SEG))
PRIM_KERNEL(hist_idx2ptr_cuda_transpose, hist_idx2ptr,
            "index-to-pointers of unsorted indices: partial histograms transposed, a scan a bin",
            2, (PRIM_BS, HIST_SEG))

/* Study 000's section VIII: its need also refuses a count whose passes
 * over the bins would read more than SP_HIST_OWN_MAX_READS indices. */
static int hist_idx2ptr_cuda_owners_need(const sp_problem *pb, const sp_params *p,
                                         sp_need *need, sp_err *err)
{
    const char *name = "hist_idx2ptr_cuda_owners";
    int bs = 0;
    sp_prim_shape sh = {0};
    if (prim_need("hist_idx2ptr", name, pb, p, need, err) ||
        sp_prim_blocksize(name, p, &bs, err) || sp_prim_shape_of(pb, &sh, err))
        return -1;
    double reads = sp_hist_owner_reads(sh.n, sh.bins, bs);
    if (reads > (double)SP_HIST_OWN_MAX_READS)
        return sp_fail(err, "%s: each of its %d threads a block reads every index once per "
                            "%d bins: %lld indices in %d bins take %.3g reads (at most %.3g); "
                            "a larger blocksize or fewer bins",
                       name, bs, bs * SP_HIST_OWN_BINS, (long long)sh.n, sh.bins, reads,
                       (double)SP_HIST_OWN_MAX_READS);
    return 0;
}

const sp_kernel sp_hist_idx2ptr_cuda_owners = {
    .name = "hist_idx2ptr_cuda_owners",
    .operation = "hist_idx2ptr",
    .format = "array",
    .backend = "cuda",
    .summary = "index-to-pointers of unsorted indices: partial histograms counted by bin "
               "owners reading the whole segment (study 000 sec. VIII), a thread a column",
    .needs_gpu = 1,
    .naxes = 2,
    .axes = {PRIM_BS, HIST_SEG},
    .prepare = SP_GPU_FN(sp_hist_idx2ptr_cuda_owners_prepare),
    .upload = SP_GPU_FN(sp_prim_gpu_upload),
    .launch = SP_GPU_FN(sp_prim_gpu_launch),
    .result = SP_GPU_FN(sp_prim_gpu_result),
    .release = SP_GPU_FN(sp_prim_gpu_release),
    .need = hist_idx2ptr_cuda_owners_need,
};
