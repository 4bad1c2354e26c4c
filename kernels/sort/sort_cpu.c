/*
 * sort_cpu.c — what the CPU sort kernels share: a state holding the arrays
 * sorted in place, scratch when the kernel asks, and the result's place.
 * Before each timed sort, run copies the input keys back and writes the
 * positions 0..n-1 as values (untimed: every run sorts the same input).
 */
#include <stdlib.h>
#include <string.h>

#include "../partition.h"
#include "sort.h"

/* (key, value) as qsort of pairs sorts them: 8 bytes, key first. */
typedef struct pair32 {
    uint32_t key, val;
} pair32;

static int check_problem(const char *who, const sp_problem *pb, sp_err *err)
{
    if (!pb || (!pb->keys && pb->nkeys > 0) || pb->nkeys < 0)
        return sp_fail(err, "%s: problem without keys", who);
    return 0;
}

/* Axes: values (0/1) and, for threaded kernels, threads. */
static int axes(const sp_sort_cpu_kind *k, const sp_params *p, int *values, int *threads,
                sp_err *err)
{
    *threads = 1;
    if (sp_sort_values_axis(k->name, p, values, err))
        return -1;
    return k->threaded ? sp_threads_param(p, k->name, threads, err) : 0;
}

/* Bytes the state allocates for n keys: the arrays sorted, scratch, pairs. */
static uint64_t state_bytes(const sp_sort_cpu_kind *k, int64_t n, int values, int threads)
{
    uint64_t per = 4 * (1 + (uint64_t)values);      /* key (+ val) */
    uint64_t b = per * (uint64_t)n;
    if (k->scratch)
        b += per * (uint64_t)n;
    if (k->pairs && values)
        b += sizeof(pair32) * (uint64_t)n;
    if (k->work)
        b += k->work(threads);
    return b + 4096;
}

int sp_sort_cpu_need(const sp_sort_cpu_kind *k, const sp_problem *pb, const sp_params *p,
                     sp_need *need, sp_err *err)
{
    int values, threads;
    if (check_problem(k->name, pb, err) || axes(k, p, &values, &threads, err))
        return -1;
    need->host_bytes = state_bytes(k, pb->nkeys, values, threads);
    need->device_bytes = 0;
    return 0;
}

/* An array of n entries of elem bytes (one entry for n = 0). */
static void *array(int64_t n, size_t elem)
{
    return sp_alloc_large((size_t)(n > 0 ? n : 1) * elem);
}

int sp_sort_cpu_prepare(const sp_sort_cpu_kind *k, const sp_problem *pb, const sp_params *p,
                        void **state, sp_err *err)
{
    int values, threads;
    *state = NULL;
    if (check_problem(k->name, pb, err) || axes(k, p, &values, &threads, err))
        return -1;
    sp_sort_cpu *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "%s: out of memory for the state", k->name);
    s->pb = pb, s->n = pb->nkeys, s->values = values, s->threads = threads;
    s->stable = k->stable;
    int fail = !(s->key = array(s->n, 4)) || (values && !(s->val = array(s->n, 4)));
    if (!fail && k->scratch)
        fail = !(s->tmp_key = array(s->n, 4)) || (values && !(s->tmp_val = array(s->n, 4)));
    if (!fail && k->pairs && values)
        fail = !(s->pairs = array(s->n, sizeof(pair32)));
    if (!fail && k->work)
        fail = !(s->work = malloc(k->work(threads)));
    if (fail) {
        sp_sort_cpu_release(s);
        return sp_fail(err, "%s: out of memory for %lld keys (%llu bytes)", k->name,
                       (long long)pb->nkeys,
                       (unsigned long long)state_bytes(k, pb->nkeys, values, threads));
    }
    s->res_key = s->key, s->res_val = s->val;
    *state = s;
    return 0;
}

/* The input back in place: keys copied, values = positions. */
static void restore(sp_sort_cpu *s)
{
    int64_t n = s->n;
    const uint32_t *in = s->pb->keys;
    uint32_t *key = s->key, *val = s->val;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int64_t i = 0; i < n; i++) {
        key[i] = in[i];
        if (val)
            val[i] = (uint32_t)i;
    }
    s->res_key = s->key, s->res_val = s->val;
}

int sp_sort_cpu_reset(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    if (!state)
        return sp_fail(err, "sort (CPU): reset without a state");
    restore(state);
    return 0;
}

int sp_sort_cpu_launch(const sp_sort_cpu_kind *k, void *state, sp_err *err)
{
    sp_sort_cpu *s = state;
    if (!s)
        return sp_fail(err, "%s: launch without a state", k->name);
    k->sort(s);
    return 0;
}

int sp_sort_cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_sort_cpu *s = state;
    (void)ex;
    if (!s || !out)
        return sp_fail(err, "sort (CPU): result without a state or an output buffer");
    sp_sort_out o;
    sp_sort_view(out, s->n, &o);
    o.h->n = (uint64_t)s->n;
    o.h->values = (uint32_t)s->values;
    o.h->stable = (uint32_t)s->stable;
    memcpy(o.key, s->res_key, (size_t)s->n * 4);
    if (s->values)
        memcpy(o.val, s->res_val, (size_t)s->n * 4);
    return 0;
}

void sp_sort_cpu_release(void *state)
{
    sp_sort_cpu *s = state;
    if (s) {
        free(s->key);
        free(s->val);
        free(s->tmp_key);
        free(s->tmp_val);
        free(s->pairs);
        free(s->work);
    }
    free(s);
}
