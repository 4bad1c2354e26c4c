/*
 * qstudy_dev.cuh — what the kernels of study 004's variants share
 * (qstudy.h): the device arrays of a level, and small device helpers
 * (children, the subproblem of a key, the seed's per-thread scan, the split
 * into Smaller/Greater, the serial compaction, the count of a key's place).
 * The launchers (qstudy_kernels.cu) are what the driver calls.
 */
#ifndef SP_QSTUDY_DEV_CUH
#define SP_QSTUDY_DEV_CUH

#include <cuda_runtime.h>

#include "qstudy.h"

/* The device side of a level: the caller's keys (values NULL without the
 * `values` axis) and the workspace's arrays (NULL where the variant has
 * none; qstudy.h's layout). */
typedef struct qst_arrays {
    uint32_t *keys, *vals;
    int2 *delims, *app;
    int32_t *pivots, *map_idx, *map_sub;
    uint32_t *sm_key, *sm_val, *gr_key, *gr_val, *tmp_key, *tmp_val;
    uint8_t *sm_flag, *gr_flag;
    int32_t nsub;
} qst_arrays;

/* app[2t], app[2t+1]: the children of [s, e] around p (holes when solved). */
__device__ __forceinline__ void qst_write_children(int2 *app, int64_t t, int32_t s, int32_t e,
                                                   int32_t p)
{
    sp_qstudy_range kids[2];
    sp_qstudy_children(s, e, p, kids);
    app[2 * t] = make_int2(kids[0].s, kids[0].e);
    app[2 * t + 1] = make_int2(kids[1].s, kids[1].e);
}

/* The subproblem holding key idx: the list is sorted by start and
 * disjoint (the host keeps the children in order); -1 when idx lies in
 * none (finished). This is how 4, 6 and 7 do without the Map. */
__device__ __forceinline__ int32_t qst_find_sub(const int2 *delims, int32_t nsub, int64_t idx)
{
    int32_t lo = 0, hi = nsub - 1, found = -1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (delims[mid].x <= idx)
            found = mid, lo = mid + 1;
        else
            hi = mid - 1;
    }
    return found >= 0 && idx <= delims[found].y ? found : -1;
}

__device__ __forceinline__ void qst_swap(uint32_t *keys, uint32_t *vals, int64_t i, int64_t j)
{
    uint32_t t = keys[i];
    keys[i] = keys[j], keys[j] = t;
    if (vals) {
        t = vals[i];
        vals[i] = vals[j], vals[j] = t;
    }
}

/* The seed's scan (8, 9): each thread sums the flags up to its own,
 * inclusive — W^2/2 additions a window, on purpose. */
__device__ __forceinline__ int qst_own_scan(const int *cache, int t)
{
    int sum = 0;
    for (int j = 0; j <= t; j++)
        sum += cache[j];
    return sum;
}

/* Key x (value v) at slot j into Smaller (x <= pivot) or Greater, the
 * other array's flag cleared: the hole the seed marks with -1. */
__device__ __forceinline__ void qst_split_one(uint32_t x, uint32_t v, uint32_t pivot, int64_t j,
                                              uint32_t *sk, uint32_t *sv, uint8_t *sf,
                                              uint32_t *gk, uint32_t *gv, uint8_t *gf)
{
    int small = x <= pivot;
    if (small) {
        sk[j] = x;
        if (sv)
            sv[j] = v;
    } else {
        gk[j] = x;
        if (gv)
            gv[j] = v;
    }
    sf[j] = (uint8_t)small;
    gf[j] = (uint8_t)!small;
}

/* The serial stream compaction of one subproblem of len keys (2, 3, 4):
 * Smaller's keys in order, the pivot, Greater's in order, written over
 * keys[0..len) (vals alongside); slots 0..len-2 of the arrays (the pivot,
 * slot len-1, is in neither). Returns the pivot's slot. */
__device__ __forceinline__ int32_t qst_compact_serial(uint32_t *keys, uint32_t *vals,
                                                      int32_t len, uint32_t pk, uint32_t pv,
                                                      const uint32_t *sk, const uint32_t *sv,
                                                      const uint8_t *sf, const uint32_t *gk,
                                                      const uint32_t *gv, const uint8_t *gf)
{
    int32_t at = 0;
    for (int32_t j = 0; j < len - 1; j++)
        if (sf[j]) {
            keys[at] = sk[j];
            if (vals)
                vals[at] = sv[j];
            at++;
        }
    int32_t p = at++;
    keys[p] = pk;
    if (vals)
        vals[p] = pv;
    for (int32_t j = 0; j < len - 1; j++)
        if (gf[j]) {
            keys[at] = gk[j];
            if (vals)
                vals[at] = gv[j];
            at++;
        }
    return p;
}

/* 5, 6, 7: the place of the key at slot j of a subproblem of len keys
 * (src[0..len), its last the pivot): a key <= pivot goes after the
 * smaller ones on its left, a greater one before the greater ones on its
 * right (from the end). Both keep input order, and the pivot (<= itself)
 * lands right after the smaller keys. */
__device__ __forceinline__ int32_t qst_count_place(const uint32_t *src, int32_t len, int32_t j)
{
    uint32_t pivot = src[len - 1], x = src[j];
    int32_t c = 0;
    if (x <= pivot) {
        for (int32_t i = 0; i < j; i++)
            c += src[i] <= pivot;
        return c;
    }
    for (int32_t i = j + 1; i < len - 1; i++)
        c += src[i] > pivot;
    return len - 1 - c;
}

/* ---- launchers (qstudy_kernels.cu): each enqueues one kernel on s ----- */
/* 1: a thread per subproblem, Lomuto, children into app */
void qst_launch_lomuto_thread(const qst_arrays &A, int bs, cudaStream_t s);
/* 2-4, 9: a thread per work-item into Smaller/Greater; through the Map
 * (gws its work-items) or, map = 0, a thread per key of the array (gws = n) */
void qst_launch_split(const qst_arrays &A, int64_t gws, int map, int bs, cudaStream_t s);
/* 2-4: a thread per subproblem compacts serially, children into app */
void qst_launch_compact_serial(const qst_arrays &A, int bs, cudaStream_t s);
/* 9: a block of `window` threads per subproblem compacts by sliding window */
void qst_launch_compact_window(const qst_arrays &A, int window, cudaStream_t s);
/* 3, 4 block phase: a block per subproblem of `longest` keys or fewer,
 * `items` keys a thread, Smaller/Greater in shared memory when shared */
void qst_launch_block_split(const qst_arrays &A, int64_t longest, int items, int shared,
                            cudaStream_t s);
/* 5-7: a thread per work-item counts its place, writes tmp; the pivot's
 * work-item its place into pivots */
void qst_launch_count(const qst_arrays &A, int64_t gws, int map, int bs, cudaStream_t s);
/* 5, 6: a thread per subproblem, children from pivots into app */
void qst_launch_children(const qst_arrays &A, int bs, cudaStream_t s);
/* 5-7 block phase: a block per subproblem counts (in shared memory when
 * shared), writes tmp and pivots, and the children into app unless
 * host_update */
void qst_launch_block_count(const qst_arrays &A, int64_t longest, int shared, int host_update,
                            cudaStream_t s);
/* 8: a block of `window` threads per subproblem: flags, own scans, thread
 * 0's swaps in order */
void qst_launch_window_lomuto(const qst_arrays &A, int window, cudaStream_t s);

#endif
