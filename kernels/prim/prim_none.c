/*
 * prim_none.c — the host wrappers of the GPU primitives in a CPU-only build
 * (no nvcc, or `make CUDA=0`): they refuse with the reason. In CUDA builds
 * kernels/prim/prim_gpu.cu defines them.
 */
#ifndef SP_HAVE_CUDA
#include "prim.h"

static int no_cuda(const char *what, sp_err *err)
{
    return sp_fail(err, "%s: spsweep was built without CUDA", what);
}

int sp_gpu_scan_host(const int32_t *in, int32_t *out, int64_t n, int bs, sp_err *err)
{
    (void)in, (void)out, (void)n, (void)bs;
    return no_cuda("scan", err);
}

int sp_gpu_histogram_host(const int32_t *idx, int64_t n, int32_t *counts, int32_t bins, int bs,
                          sp_err *err)
{
    (void)idx, (void)n, (void)counts, (void)bins, (void)bs;
    return no_cuda("histogram", err);
}

int sp_gpu_idx2ptr_host(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins, int bs,
                        sp_err *err)
{
    (void)sorted, (void)n, (void)ptr, (void)bins, (void)bs;
    return no_cuda("idx2ptr", err);
}

int sp_gpu_ptr2idx_host(const int32_t *ptr, int32_t nseg, int32_t *idx, int bs, sp_err *err)
{
    (void)ptr, (void)nseg, (void)idx, (void)bs;
    return no_cuda("ptr2idx", err);
}

int sp_gpu_segsort_host(const uint64_t *in, uint64_t *out, int64_t n, int bs, sp_err *err)
{
    (void)in, (void)out, (void)n, (void)bs;
    return no_cuda("segsort", err);
}

int sp_gpu_merge_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run, int bs,
                      sp_err *err)
{
    (void)in, (void)out, (void)n, (void)run, (void)bs;
    return no_cuda("merge", err);
}
int sp_gpu_segsort_seg_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t segment,
                            int bs, sp_err *err)
{
    (void)in, (void)out, (void)n, (void)segment, (void)bs;
    return no_cuda("segsort", err);
}

int sp_gpu_merge_dist_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run,
                           int64_t sp_dist, int bs, sp_err *err)
{
    (void)in, (void)out, (void)n, (void)run, (void)sp_dist, (void)bs;
    return no_cuda("merge", err);
}

int sp_gpu_hist_idx2ptr_host(const int32_t *idx, int64_t n, int32_t bins, int64_t segment,
                             int vertical, int bs, int32_t *ptr, int32_t *offsets, sp_err *err)
{
    (void)idx, (void)n, (void)bins, (void)segment, (void)vertical, (void)bs, (void)ptr,
        (void)offsets;
    return no_cuda("hist_idx2ptr", err);
}
#else
typedef int sp_prim_none_empty; /* ISO C: a translation unit is not empty */
#endif
