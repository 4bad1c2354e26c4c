/*
 * partition.h — how the CPU kernels divide work among threads: the
 * `threads` axis, equal splits, and splits balanced over a prefix array
 * (a CSR row pointer, an HLL hack offset array) found by binary search.
 */
#ifndef SP_PARTITION_H
#define SP_PARTITION_H

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The runner's bound for the `threads` axis (runner/plan/axis.c). */
#define SP_THREADS_MAX 4096

/* The `threads` axis of p (1 when absent) into *threads; -1 with the reason
 * when it lies outside 1..SP_THREADS_MAX. `who` names the kernel. */
int sp_threads_param(const sp_params *p, const char *who, int *threads, sp_err *err);

/* Bound of the `chunk` axis (OpenMP dynamic schedule chunk). */
#define SP_CHUNK_MAX (1 << 20)

/* The `chunk` axis of p (1 when absent) into *chunk; -1 with the reason
 * when it lies outside 1..SP_CHUNK_MAX. */
int sp_chunk_param(const sp_params *p, const char *who, int *chunk, sp_err *err);

/* Start of part t (0 <= t <= parts) when n items are cut into `parts`
 * equal parts: part t is [sp_split_equal(n, parts, t), ...(t + 1)). */
static inline int64_t sp_split_equal(int64_t n, int parts, int t)
{
    return n * t / parts;
}

/* First i in [0, n] with ptr[i] >= target (ptr[0..n] nondecreasing). */
int32_t sp_prefix_find(const int32_t *ptr, int32_t n, int64_t target);

/* Start of part t when the n items behind prefix array ptr[0..n] (item i
 * weighs ptr[i+1] - ptr[i]) are cut into `parts` parts of equal weight:
 * the first item i with ptr[i] >= t·ptr[n]/parts; 0 for t = 0 and n for
 * t = parts, so trailing weightless items (empty rows) still belong to the
 * last part. Monotone in t, so the parts tile 0..n. */
int32_t sp_split_prefix(const int32_t *ptr, int32_t n, int parts, int t);

#ifdef __cplusplus
}
#endif
#endif
