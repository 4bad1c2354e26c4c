/*
 * stream.c — the host's memory bandwidth ceiling for roofline charts:
 * the STREAM triad a[i] = b[i] + s·c[i] (McCalpin), OpenMP with the
 * sweep's largest thread count, static schedule, arrays first touched by
 * the threads that use them. GB/s counts 24 bytes per element (two reads,
 * one write), as STREAM reports; best of the passes. The arrays hold 3 x
 * 16 Mi doubles (384 MiB, far beyond any cache), fewer when memory is
 * short; about 0.2 s in all. The cache roof: the same triad on arrays
 * that fit in half the last-level cache, repeated so each pass is long
 * enough to time (sp_cache_triad).
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

#include "../plan/memguard.h"
#include "sweep.h"

#define TRIAD_N (16L << 20)
#define TRIAD_PASSES 5

/* Elements per array: TRIAD_N, or what a quarter of free memory holds. */
static long triad_size(void)
{
    uint64_t avail;
    long n = TRIAD_N;
    if (sp_host_mem_available(&avail) == 0)
        while (n > (1L << 16) && (uint64_t)n * 24 > avail / 4)
            n /= 2;
    return n;
}

/* The triad over arrays of n elements, `reps` times a pass, best of the
 * passes, GB/s; 0 when memory is short or the result is wrong. */
static double triad(long n, int reps, int threads)
{
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    double *c = malloc((size_t)n * sizeof *c), best = 0;
    if (threads < 1)
        threads = omp_get_num_procs();
    if (a && b && c) {
#pragma omp parallel num_threads(threads)
        {
#pragma omp for schedule(static)
            for (long i = 0; i < n; i++)
                a[i] = 0, b[i] = 1, c[i] = 2;
            for (int pass = 0; pass < TRIAD_PASSES; pass++) {
                double t0 = 0;
#pragma omp barrier
#pragma omp master
                t0 = omp_get_wtime();
                for (int r = 0; r < reps; r++) {
#pragma omp for schedule(static)
                    for (long i = 0; i < n; i++)
                        a[i] = b[i] + 3.0 * c[i];
                }
#pragma omp master
                {
                    double t = omp_get_wtime() - t0, gbs = 24.0 * (double)n * reps / t / 1e9;
                    if (t > 0 && gbs > best)
                        best = gbs;
                }
            }
        }
        if (a[n / 2] != 7.0)    /* 1 + 3·2; also keeps the loops from vanishing */
            best = 0;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

double sp_stream_triad(int threads)
{
    return triad(triad_size(), 1, threads);
}

/* The last-level cache's size in bytes (glibc's sysconf; 0 unknown). */
static uint64_t llc_bytes(void)
{
    long v = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 ? (uint64_t)v : 0;
}

double sp_cache_triad(int threads, uint64_t *cache_bytes)
{
    uint64_t llc = llc_bytes();
    *cache_bytes = llc;
    if (llc < (64u << 10))
        return 0;
    long n = (long)(llc / 2 / 24);      /* three arrays in half the cache */
    int reps = (int)((64L << 20) / (24 * n)) + 1;   /* about 64 MiB moved a pass */
    return triad(n, reps, threads);
}
