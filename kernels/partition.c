/*
 * partition.c — the `threads` axis and balanced splits (see partition.h).
 */
#include "partition.h"

int sp_threads_param(const sp_params *p, const char *who, int *threads, sp_err *err)
{
    long t = sp_param(p, "threads", 1);
    if (t < 1 || t > SP_THREADS_MAX)
        return sp_fail(err, "%s: threads = %ld outside 1..%d", who, t, SP_THREADS_MAX);
    *threads = (int)t;
    return 0;
}

int sp_chunk_param(const sp_params *p, const char *who, int *chunk, sp_err *err)
{
    long c = sp_param(p, "chunk", 1);
    if (c < 1 || c > SP_CHUNK_MAX)
        return sp_fail(err, "%s: chunk = %ld outside 1..%d", who, c, SP_CHUNK_MAX);
    *chunk = (int)c;
    return 0;
}

/* Binary search. */
int32_t sp_prefix_find(const int32_t *ptr, int32_t n, int64_t target)
{
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (ptr[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int32_t sp_split_prefix(const int32_t *ptr, int32_t n, int parts, int t)
{
    if (t <= 0 || n <= 0)
        return 0;
    if (t >= parts)
        return n;
    int64_t total = (int64_t)ptr[n] - ptr[0];
    return sp_prefix_find(ptr, n, ptr[0] + total * t / parts);
}
