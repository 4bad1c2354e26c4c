/*
 * prim.cuh — device helpers shared by the primitives and the GPU
 * transposition kernels: launch checks (the segment of a position is in
 * segment.h), the warp-aggregated atomic counter, and the merge-path search.
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
