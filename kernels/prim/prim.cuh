/*
 * prim.cuh — device helpers shared by the primitives and the GPU
 * transposition kernels: launch checks (the segment of a position is in
 * segment.h), the warp-aggregated atomic counter, the merge-path search,
 * and the primitives on device arrays, enqueued on a caller's stream.
 */
#ifndef SP_PRIM_CUH
#define SP_PRIM_CUH

#include <stdint.h>

#include "../cuda_check.h"
#include "prim.h"
#include "segment.h"

/* After a launch: a failed launch becomes an sp_err naming the kernel. */
#define SP_LAUNCHED(what, err) SP_CUDA(cudaGetLastError(), err)

#define SP_FULL_MASK 0xffffffffu

/* ---- the primitives on device arrays (prim_*.cu) ------------------------
 * Everything (kernels, memsets) enqueued on `stream`, nothing waited for:
 * the harness's stream in a kernel's launch, 0 in the host wrappers.
 * Return 0, or -1 with the failing call in err. n may be 0. C linkage, as
 * they had in prim.h. */
extern "C" {
/* d_out[0..n] = exclusive scan of d_in[0..n-1]; d_out may equal d_in. */
int sp_gpu_scan(const int32_t *d_in, int32_t *d_out, int64_t n, int bs, void *d_temp,
                cudaStream_t stream, sp_err *err);
/* d_counts[0..bins-1] = histogram of d_idx[0..n-1] (zeroed first). */
int sp_gpu_histogram(const int32_t *d_idx, int64_t n, int32_t *d_counts, int32_t bins, int bs,
                     cudaStream_t stream, sp_err *err);
int sp_gpu_idx2ptr(const int32_t *d_sorted, int64_t n, int32_t *d_ptr, int32_t bins, int bs,
                   cudaStream_t stream, sp_err *err);
/* d_idx[0..ptr[nseg]-1]; n = ptr[nseg]. */
int sp_gpu_ptr2idx(const int32_t *d_ptr, int32_t nseg, int32_t *d_idx, int64_t n, int bs,
                   cudaStream_t stream, sp_err *err);
/* d_out = d_in with each segment of SP_PRIM_SEG keys sorted. */
int sp_gpu_segsort(const uint64_t *d_in, uint64_t *d_out, int64_t n, int bs,
                   cudaStream_t stream, sp_err *err);
/* The same with segments of `segment` keys (1..SP_PRIM_SEG_MAX). */
int sp_gpu_segsort_seg(const uint64_t *d_in, uint64_t *d_out, int64_t n, int64_t segment,
                       int bs, cudaStream_t stream, sp_err *err);
/* Merge rounds: d_in holds sorted runs of `run` keys; pairs are merged into
 * d_a, d_b alternately until one run remains; *d_result is d_a or d_b (or
 * d_in when n <= run). */
/* d_b may be d_in (it is read in the first round only). Splitters every
 * bs * SP_PRIM_MERGE_ITEMS outputs (the transpositions' merge). */
int sp_gpu_merge(const uint64_t *d_in, uint64_t *d_a, uint64_t *d_b, int64_t n, int64_t run,
                 int bs, const uint64_t **d_result, cudaStream_t stream, sp_err *err);
/* The same with runs of any length >= 1 and splitters every sp_dist
 * outputs (1..SP_PRIM_SP_DIST_MAX). */
int sp_gpu_merge_dist(const uint64_t *d_in, uint64_t *d_a, uint64_t *d_b, int64_t n,
                      int64_t run, int64_t sp_dist, int bs, const uint64_t **d_result,
                      cudaStream_t stream, sp_err *err);
/* Index-to-pointers of unsorted indices (prim_vertical.cu): d_ptr[0..bins]
 * the exclusive scan of their histogram, made from partial histograms of
 * `segment` indices each (d_parts: sp_prim_nparts(n, segment) x bins)
 * scanned vertically by `vertical` (SP_VERTICAL_*; TRANSPOSE leaves them
 * transposed in d_parts_t, bins x nparts); d_totals (bins) the column
 * totals; d_temp sp_gpu_scan's for bins elements. */
int sp_gpu_hist_idx2ptr(const int32_t *d_idx, int64_t n, int32_t bins, int64_t segment,
                        int vertical, int bs, int32_t *d_parts, int32_t *d_parts_t,
                        int32_t *d_totals, int32_t *d_ptr, void *d_temp, cudaStream_t stream,
                        sp_err *err);
}

/* Blocks of bs threads covering n items, items per thread each. */
static inline unsigned sp_grid(int64_t n, int64_t per_block)
{
    int64_t g = (n + per_block - 1) / per_block;
    return (unsigned)(g > 0 ? g : 1);
}

/* counter[key] += 1 for each of the `active` lanes (the lanes executing
 * this call), one atomic per distinct key in the warp; returns the value
 * each lane's increment got, lanes with the same key ranked in lane order. */
__device__ __forceinline__ int32_t sp_warp_atomic_inc(int32_t *counter, int32_t key,
                                                      unsigned active)
{
    unsigned peers = __match_any_sync(active, key);
    int lane = threadIdx.x & 31;
    int leader = __ffs(peers) - 1;
    int rank = __popc(peers & ((1u << lane) - 1u));
    int32_t base = 0;
    if (lane == leader)
        base = atomicAdd(counter + key, __popc(peers));
    base = __shfl_sync(active, base, leader);
    return base + rank;
}

/* Merge path: how many of the first diag outputs of the stable merge of
 * a[0..la) and b[0..lb) come from a (ties go to a). */
template <typename T>
__device__ __forceinline__ int64_t sp_merge_path(const T *a, int64_t la, const T *b, int64_t lb,
                                                 int64_t diag)
{
    int64_t lo = diag > lb ? diag - lb : 0, hi = diag < la ? diag : la;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (a[mid] <= b[diag - 1 - mid])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
