/*
 * stream.c — the host's memory bandwidth ceiling for roofline charts:
 * the STREAM triad a[i] = b[i] + s·c[i] (McCalpin), OpenMP with the
 * sweep's largest thread count, static schedule, arrays first touched by
 * the threads that use them. GB/s counts 24 bytes per element (two reads,
 * one write), as STREAM reports; best of the passes. The arrays hold 3 x
 * 16 Mi doubles (384 MiB, far beyond any cache), fewer when memory is
 * short; about 0.2 s in all.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "memguard.h"
#include "runner.h"

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

double sp_stream_triad(int threads)
{
    long n = triad_size();
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    double *c = malloc((size_t)n * sizeof *c), best = 0;
    if (threads < 1)
        threads = omp_get_num_procs();
    if (a && b && c) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (long i = 0; i < n; i++)
            a[i] = 0, b[i] = 1, c[i] = 2;
        for (int pass = 0; pass < TRIAD_PASSES; pass++) {
            double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(threads)
            for (long i = 0; i < n; i++)
                a[i] = b[i] + 3.0 * c[i];
            double t = omp_get_wtime() - t0;
            if (t > 0 && 24.0 * (double)n / t / 1e9 > best)
                best = 24.0 * (double)n / t / 1e9;
        }
        if (a[n / 2] != 7.0)    /* 1 + 3·2; also keeps the loops from vanishing */
            best = 0;
    }
    free(a);
    free(b);
    free(c);
    return best;
}
