/*
 * compare_verdict.c — the verdict on one combination measured in two
 * sweeps (the rules are at the top of compare.h). Pure C, no database:
 * tests/test_compare.c judges synthetic runs with it directly.
 */
#include <math.h>
#include <string.h>

#include "compare.h"

void sp_cmp_opts_default(sp_cmp_opts *o)
{
    o->min_effect = SP_CMP_MIN_EFFECT;
    o->alpha = SP_CMP_ALPHA;
    o->max_noise = SP_CMP_MAX_NOISE;
}

const char *sp_cmp_verdict_name(sp_cmp_verdict v)
{
    static const char *const names[SP_CMP_NVERDICTS] = {"slower", "faster", "noisy",
                                                        "gone",   "new",    "same"};
    return v >= 0 && v < SP_CMP_NVERDICTS ? names[v] : "?";
}

double sp_cmp_noise(const sp_cmp_run *r)
{
    return (r->hi - r->lo) / 2 / r->median;
}

/* Do the two runs' intervals miss each other (B/A's bounds exclude 1)? */
static int beyond_noise(const sp_cmp_run *a, const sp_cmp_run *b)
{
    return b->lo > a->hi || a->lo > b->hi;
}

/* run_stats.noisy's definition, or the threshold the caller gave; a run
 * without an interval, or measured on an unfit machine, always. */
static int is_noisy(const sp_cmp_run *r, const sp_cmp_opts *o)
{
    if (r->from_range || r->unfit)
        return 1;
    return o->max_noise >= 0 ? sp_cmp_noise(r) > o->max_noise : r->noisy;
}

int sp_cmp_judge(const sp_cmp_run *a, const sp_cmp_run *b, const sp_cmp_opts *o,
                 sp_cmp_row *row, sp_err *err)
{
    memset(row, 0, sizeof *row);
    row->a = a;
    row->b = b;
    row->noise_a = sp_cmp_noise(a);
    row->noise_b = sp_cmp_noise(b);
    row->ratio = b->median / a->median;
    row->ratio_lo = b->lo / a->hi;
    row->ratio_hi = b->hi / a->lo;
    sp_mwu t;
    /* the loader gives every run at least one finite sample: a failure
     * here is the allocation */
    if (sp_mann_whitney(a->samples, a->n, b->samples, b->n, &t))
        return sp_fail(err, "compare: out of memory in the rank test (%d and %d samples)",
                       a->n, b->n);
    row->p = t.p;
    row->method = t.method;
    if (is_noisy(a, o) || is_noisy(b, o))
        row->verdict = SP_CMP_NOISY;
    else if (row->p < o->alpha && fabs(row->ratio - 1) > o->min_effect && beyond_noise(a, b))
        row->verdict = row->ratio > 1 ? SP_CMP_SLOWER : SP_CMP_FASTER;
    else
        row->verdict = SP_CMP_SAME;
    return 0;
}

void sp_cmp_count(const sp_cmp_row *rows, int n, int counts[SP_CMP_NVERDICTS])
{
    memset(counts, 0, SP_CMP_NVERDICTS * sizeof *counts);
    for (int i = 0; i < n; i++)
        counts[rows[i].verdict]++;
}
