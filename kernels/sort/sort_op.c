/*
 * sort_op.c — the sort operation (sort.h): input from a key workload or a
 * matrix's column indices, the multiset-hash reference and the check.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

size_t sp_sort_output_bytes(int64_t n)
{
    return sizeof(sp_sort_header) + 2 * (size_t)n * sizeof(uint32_t);
}

void sp_sort_view(void *buf, int64_t n, sp_sort_out *o)
{
    o->h = buf;
    o->key = (uint32_t *)(o->h + 1);
    o->val = o->key + n;
}

int sp_sort_values_axis(const char *kernel, const sp_params *p, int *values, sp_err *err)
{
    long v = sp_param(p, "values", 1);
    if (v != 0 && v != 1)
        return sp_fail(err, "%s: values = %ld is neither 0 (keys only) nor 1 (key-value "
                       "pairs)", kernel, v);
    *values = (int)v;
    return 0;
}

/* The keys to sort: the workload's, or the matrix's column indices (as
 * unsigned: they are never negative). */
static int sort_setup(sp_problem *pb, const sp_workload *w, sp_err *err)
{
    if (!pb || !w || (!w->A && !w->keys))
        return sp_fail(err, "sort setup: no problem or no workload");
    memset(pb, 0, sizeof *pb);
    if (w->keys) {
        pb->key_workload = w->keys;
        pb->keys = w->keys->key;
        pb->nkeys = w->keys->n;
    } else {
        pb->A = w->A;
        pb->keys = (const uint32_t *)w->A->colidx;
        pb->nkeys = w->A->nnz;
    }
    return 0;
}

static void sort_teardown(sp_problem *pb)
{
    (void)pb;
}

/* The output; never less than the reference's three words (n = 0, 1). */
static size_t sort_output_bytes(const sp_problem *pb)
{
    size_t b = sp_sort_output_bytes(pb->nkeys);
    return b < 3 * sizeof(uint64_t) ? 3 * sizeof(uint64_t) : b;
}

/* Two independent 64-bit mixes (splitmix64's finaliser on different
 * offsets): the multiset hash is their sums over the keys, which any
 * order of the same keys gives and a different multiset misses with
 * probability about 2^-64 per sum. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void multiset_hash(const uint32_t *key, int64_t n, uint64_t h[2])
{
    uint64_t a = 0, b = 0;
#pragma omp parallel for schedule(static) reduction(+ : a, b)
    for (int64_t i = 0; i < n; i++) {
        a += mix64(key[i] + 0x9e3779b97f4a7c15ull);
        b += mix64(((uint64_t)key[i] << 32) ^ 0xd1b54a32d192ed03ull);
    }
    h[0] = a, h[1] = b;
}

/* The reference: n and the multiset hashes of the input keys, in the
 * header's place (the rest of the buffer stays unused). */
static int sort_reference(const sp_problem *pb, void *out, sp_err *err)
{
    if (!pb || !out || (!pb->keys && pb->nkeys > 0))
        return sp_fail(err, "sort reference: problem not set up");
    uint64_t *r = out;
    r[0] = (uint64_t)pb->nkeys;
    multiset_hash(pb->keys, pb->nkeys, r + 1);
    return 0;
}

/* Keys ascending. */
static int ascending(const uint32_t *key, int64_t n)
{
    int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
    for (int64_t i = 1; i < n; i++)
        bad += key[i - 1] > key[i];
    return bad == 0;
}

/* The values are a permutation of 0..n-1 that carries each key: for every
 * i, in[val[i]] == key[i], and no position twice (a bitmap set with atomic
 * ORs). Stable: equal keys have ascending values. In parallel: at 2^28
 * pairs the gathers in[val[i]] are random accesses over a GiB. A bitmap
 * that cannot be allocated fails the check (+Inf), never passes it. */
static int values_follow(const uint32_t *in, const sp_sort_out *o, int64_t n, int stable)
{
    uint64_t *seen = calloc((size_t)(n / 64 + 1), sizeof *seen);
    if (!seen)
        return 0;
    int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
    for (int64_t i = 0; i < n; i++) {
        uint32_t v = o->val[i];
        if (v >= (uint64_t)n || in[v] != o->key[i]) {
            bad++;
            continue;
        }
        uint64_t bit = 1ull << (v % 64);
        bad += (__atomic_fetch_or(&seen[v / 64], bit, __ATOMIC_RELAXED) & bit) != 0;
        if (stable && i > 0 && o->key[i - 1] == o->key[i])
            bad += o->val[i - 1] >= v;
    }
    free(seen);
    return bad == 0;
}

static double sort_error(const sp_problem *pb, const void *out, const void *ref)
{
    const uint64_t *r = ref;
    sp_sort_out o;
    int64_t n = pb->nkeys;
    sp_sort_view((void *)out, n, &o);
    if (o.h->n != (uint64_t)n || r[0] != (uint64_t)n || o.h->values > 1 || o.h->stable > 1)
        return INFINITY;
    if (!ascending(o.key, n))
        return INFINITY;
    uint64_t h[2];
    multiset_hash(o.key, n, h);
    if (h[0] != r[1] || h[1] != r[2])
        return INFINITY;
    if (o.h->values && !values_follow(pb->keys, &o, n, (int)o.h->stable))
        return INFINITY;
    return 0.0;
}

/* n keys: the rate is keys per second. */
static double sort_flops(const sp_workload *w)
{
    return w->keys ? (double)w->keys->n : w->A ? (double)w->A->nnz : NAN;
}

/* Every key read once and written once (keys: no precision). */
static double sort_bytes(const sp_workload *w, sp_precision prec)
{
    (void)prec;
    return 8 * sort_flops(w);
}

const sp_operation sp_op_sort = {
    .name = "sort",
    .rate_unit = SP_SORT_UNIT,
    .workloads = SP_WL_MATRIX | SP_WL_KEYS,
    .setup = sort_setup,
    .teardown = sort_teardown,
    .output_bytes = sort_output_bytes,
    .reference = sort_reference,
    .error = sort_error,
    .flops = sort_flops,
    .bytes = sort_bytes,
};
