/*
 * mm_parse.c — benchmark: Matrix Market parsing (text -> sorted CSR) and
 * reload from the binary CSR cache.
 *
 *   mm_parse --write-random PATH ROWS NNZ SEED   write a coordinate real general
 *                                                file, values with 17 digits
 *   mm_parse PATH [CACHE_PATH]                   time sp_mm_read (median of 3) and
 *                                                sp_cache_read (median of 5)
 *   mm_parse --reads PATH THREADS N [coo]        N reads at THREADS threads, each
 *                                                read's seconds on one line, then the
 *                                                CSR's checksum (A/B runs of two builds)
 * Prints one "key: value" line per measurement, for bench/run.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../fetch/matrix.h"
#include "../kernels/kernel.h"

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Values like real-world files: 17 significant digits, magnitudes 1e-3..1e3. */
static int write_random(const char *path, long rows, long nnz, uint64_t seed)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return perror(path), 1;
    setvbuf(f, NULL, _IOFBF, 1 << 22);
    static const double scale[7] = {1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3};
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%ld %ld %ld\n", rows, rows,
            nnz);
    for (long k = 0; k < nnz; k++) {
        uint64_t a = rng(&seed), b = rng(&seed);
        double v = ((double)(b >> 11) * 0x1.0p-53 * 2 - 1) * scale[b % 7];
        fprintf(f, "%ld %ld %.17g\n", (long)(a % (uint64_t)rows) + 1,
                (long)((a >> 32) % (uint64_t)rows) + 1, v);
    }
    return fclose(f) != 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : st.st_size;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --reads: the wall and CPU seconds of n reads, one read a line, and what
 * was read (checksum, source hash), so two builds' runs can be
 * interleaved and compared; CPU time says what a loaded machine's wall
 * time cannot. */
static int time_reads(const char *path, int threads, int n, int coo)
{
    sp_mm_opts o = {.quiet = 1, .threads = threads};
    sp_err err;
    uint64_t h = 0, sum = 0;
    for (int r = 0; r < n; r++) {
        sp_csr A;
        sp_coo T;
        double t0 = sp_seconds(), c0 = cpu_seconds();
        int rc = coo ? sp_mm_read_coo(path, &o, &T, &h, &err) : sp_mm_read(path, &o, &A, &h, &err);
        double t = sp_seconds() - t0, c = cpu_seconds() - c0;
        if (rc)
            return fprintf(stderr, "%s\n", err.msg), 1;
        printf("%.4f %.4f\n", t, c);
        if (coo) {
            sum = (uint64_t)T.nnz;
            sp_coo_free(&T);
        } else {
            sum = sp_csr_checksum(&A);
            sp_csr_free(&A);
        }
    }
    printf("checksum: %016llx hash: %016llx\n", (unsigned long long)sum, (unsigned long long)h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "--reads"))
        return time_reads(argv[2], atoi(argv[3]), atoi(argv[4]), argc > 5 && !strcmp(argv[5], "coo"));
    if (argc == 6 && !strcmp(argv[1], "--write-random"))
        return write_random(argv[2], atol(argv[3]), atol(argv[4]), strtoull(argv[5], 0, 10));
    if (argc < 2) {
        fprintf(stderr, "usage: mm_parse PATH [CACHE_PATH] | --write-random PATH ROWS NNZ SEED\n");
        return 2;
    }
    const char *cache = argc > 2 ? argv[2] : "bench-cache.csr";
    sp_mm_opts o = {.quiet = 1};
    sp_err err;
    sp_csr A;
    uint64_t h = 0;
    double t[5], c[3];
    for (int r = 0; r < 3; r++) {
        double t0 = sp_seconds(), c0 = cpu_seconds();
        if (sp_mm_read(argv[1], &o, &A, &h, &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
        t[r] = sp_seconds() - t0;
        c[r] = cpu_seconds() - c0;
        if (r < 2)
            sp_csr_free(&A);
    }
    double parse = median(t, 3), mb = (double)file_size(argv[1]) / 1e6;
    double parse_lo = t[0], parse_hi = t[2];        /* median sorted them */
    double parse_cpu = median(c, 3);
    for (int r = 0; r < 3; r++) {           /* the same, stopping at COO */
        sp_coo T;
        double t0 = sp_seconds();
        if (sp_mm_read_coo(argv[1], &o, &T, NULL, &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
        t[r] = sp_seconds() - t0;
        sp_coo_free(&T);
    }
    double coo = median(t, 3);
    printf("coo_s: %.3f\ncoo_mb_s: %.1f\ncoo_min_s: %.3f\ncoo_max_s: %.3f\n", coo, mb / coo,
           t[0], t[2]);
    printf("parse_min_s: %.3f\nparse_max_s: %.3f\nparse_cpu_s: %.3f\n", parse_lo, parse_hi,
           parse_cpu);
    printf("file_mb: %.1f\nnnz: %d\nparse_s: %.3f\nparse_mb_s: %.1f\n", mb, A.nnz, parse,
           mb / parse);
    sp_cache_info info = {.src_hash = h, .data_hash = sp_csr_checksum(&A)};
    if (sp_cache_write(cache, &A, &info, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    sp_csr_free(&A);
    for (int r = 0; r < 5; r++) {
        double t0 = sp_seconds();
        if (sp_cache_read(cache, NULL, &A, &info, &err) != 0)
            return fprintf(stderr, "%s\n", err.msg), 1;
        t[r] = sp_seconds() - t0;
        sp_csr_free(&A);
    }
    double reload = median(t, 5), gb = (double)file_size(cache) / 1e9;
    printf("cache_gb: %.3f\nreload_s: %.3f\nreload_gb_s: %.2f\n", gb, reload, gb / reload);
    remove(cache);
    return 0;
}
