/*
 * keys_stats.c — what a key array looks like (`spsweep info keys:...`, and
 * the tests of the distributions): range, distinct values, the most
 * frequent value, and how much of it is already in order. Distinct counts
 * come from a sorted copy (serial LSD radix sort, 4 passes of 8 bits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* Sort a[0..n) ascending with tmp[n] as scratch (LSD radix, stable). */
static void radix_sort(uint32_t *a, uint32_t *tmp, int64_t n)
{
    for (int shift = 0; shift < 32; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++)
            count[((a[i] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++)
            tmp[count[(a[i] >> shift) & 0xff]++] = a[i];
        uint32_t *t = a;
        a = tmp, tmp = t;
    }
}

int sp_keys_stats_compute(const sp_keys *K, sp_keys_stats *st, sp_err *err)
{
    memset(st, 0, sizeof *st);
    st->n = K->n;
    if (K->n == 0)
        return 0;
    size_t bytes = (size_t)K->n * sizeof(uint32_t);
    uint32_t *a = sp_alloc_large(bytes), *tmp = sp_alloc_large(bytes);
    if (!a || !tmp) {
        free(a), free(tmp);
        return sp_fail(err, "out of memory for the statistics of %lld keys", (long long)K->n);
    }
    memcpy(a, K->key, bytes);
    for (int64_t i = 0; i + 1 < K->n; i++)
        st->ascending += K->key[i] <= K->key[i + 1];
    radix_sort(a, tmp, K->n);           /* 4 passes: the result is back in a */
    st->min = a[0];
    st->max = a[K->n - 1];
    for (int64_t i = 0, run = 0; i < K->n; i++) {
        run = i > 0 && a[i] == a[i - 1] ? run + 1 : 1;
        st->distinct += run == 1;
        if (run > st->top_count)
            st->top_count = run, st->top_value = a[i];
    }
    free(a);
    free(tmp);
    return 0;
}

void sp_keys_stats_print(const sp_keys_stats *st, void *file)
{
    FILE *out = file ? (FILE *)file : stdout;
    double pairs = st->n > 1 ? (double)(st->n - 1) : 1;
    fprintf(out, "keys: %lld\n", (long long)st->n);
    fprintf(out, "key_min: %u\nkey_max: %u\n", st->min, st->max);
    fprintf(out, "distinct: %lld\n", (long long)st->distinct);
    fprintf(out, "most_frequent: %u (%lld times, %.4g%%)\n", st->top_value,
            (long long)st->top_count, st->n ? 100.0 * (double)st->top_count / (double)st->n : 0);
    fprintf(out, "ascending_pairs: %.6g\n", st->n > 1 ? (double)st->ascending / pairs : 1.0);
}
