/*
 * segment.h — the segment of a position (the row of a nonzero), for host
 * and device code alike: prim.cuh's kernels and the symmetric path's
 * steps (transpose_symperm.h), which the CPU model in the unit tests runs.
 */
#ifndef SP_SEGMENT_H
#define SP_SEGMENT_H

#include <stdint.h>

#ifdef __CUDACC__
#define SP_HD_FN static __host__ __device__ __forceinline__
#else
#define SP_HD_FN static inline
#endif

/* The largest j < len with ptr[j] <= k (ptr ascending, ptr[0] <= k): the
 * segment (row) holding position k, skipping empty segments before it. */
SP_HD_FN int32_t sp_segment_of(const int32_t *ptr, int32_t len, int64_t k)
{
    int32_t lo = 0, hi = len;
    while (hi - lo > 1) {
        int32_t mid = lo + (hi - lo) / 2;
        if (ptr[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

#endif
