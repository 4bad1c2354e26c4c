/*
 * stream_triad.c — STREAM triad a[i] = b[i] + s·c[i] (J. McCalpin's
 * kernel, not his code), to rate the CPU kernels' effective bandwidth.
 *
 *   build/bench/stream_triad [THREADS [MIB_PER_ARRAY [REPS]]]
 *
 * Three arrays of MIB_PER_ARRAY MiB (default 1024: 3 GiB in all, far beyond
 * any last-level cache), first touched by the threads that use them, OpenMP
 * static schedule, pinned as the environment says (OMP_PROC_BIND). Prints
 * the best and the median of REPS (default 20) in GB/s, counting 24 bytes a
 * element (STREAM's convention: no write-allocate traffic counted).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../kernels/kernel.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed triad; seconds. */
static double triad(double *restrict a, const double *restrict b, const double *restrict c,
                    size_t n, int threads)
{
    const double s = 3.0;
    double t0 = sp_seconds();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
    return sp_seconds() - t0;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
    size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
    int reps = argc > 3 ? atoi(argv[3]) : 20;
    if (threads < 1 || mib < 1 || reps < 1) {
        fprintf(stderr, "usage: stream_triad [THREADS [MIB_PER_ARRAY [REPS]]]\n");
        return 2;
    }
    size_t n = mib << 20 >> 3;
    double *a = sp_alloc_large(n * 8), *b = sp_alloc_large(n * 8), *c = sp_alloc_large(n * 8);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!a || !b || !c || !t) {
        fprintf(stderr, "stream_triad: out of memory for 3 x %zu MiB\n", mib);
        return 1;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
    triad(a, b, c, n, threads);                         /* warm-up */
    for (int r = 0; r < reps; r++)
        t[r] = triad(a, b, c, n, threads);
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    double bytes = 24.0 * (double)n;
    printf("threads: %d\narray_mib: %zu\nbest_gb_s: %.2f\nmedian_gb_s: %.2f\ncheck: %g\n",
           threads, mib, bytes / t[0] * 1e-9, bytes / t[reps / 2] * 1e-9, a[n / 2]);
    free(a), free(b), free(c), free(t);
    return 0;
}
