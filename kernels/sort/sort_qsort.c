/*
 * sort_qsort.c — libc qsort on one core: the serial baseline the issue
 * names. Keys alone are sorted as uint32_t; with values, the pairs are
 * packed into (key, value) structs, sorted by key, and unpacked — all
 * inside the timed part, since the input and the output are two arrays.
 * qsort is not stable (glibc's falls back to an in-place sort), and the
 * kernel does not claim to be.
 */
#include <stdlib.h>

#include "sort.h"

typedef struct pair32 {
    uint32_t key, val;
} pair32;

static int cmp_key(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void qsort_sort(sp_sort_cpu *s)
{
    int64_t n = s->n;
    if (!s->values) {
        qsort(s->key, (size_t)n, sizeof *s->key, cmp_key);
        return;
    }
    pair32 *p = s->pairs;
    for (int64_t i = 0; i < n; i++)
        p[i] = (pair32){s->key[i], s->val[i]};
    qsort(p, (size_t)n, sizeof *p, cmp_key);        /* the key is the first member */
    for (int64_t i = 0; i < n; i++)
        s->key[i] = p[i].key, s->val[i] = p[i].val;
}

static const sp_sort_cpu_kind kind = {
    .name = "sort_qsort", .stable = 0, .pairs = 1, .sort = qsort_sort,
};

SP_SORT_CPU_WRAPPERS(kind)

const sp_kernel sp_sort_qsort = {
    .name = "sort_qsort",
    .operation = "sort",
    .format = "keys",
    .backend = "serial",
    .summary = "libc qsort on one core (keys, or (key, value) structs); not stable",
    .naxes = 1,
    .axes = {{"values", SP_SORT_VALUES}},
    SP_SORT_CPU_FNS(kind),
};
