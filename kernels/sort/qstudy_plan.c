/*
 * qstudy_plan.c — the host side of study 004's quicksort variants
 * (qstudy.h) that needs no CUDA: the variant table, option checks, the
 * plan that refuses inputs a variant cannot finish, the workspace layout,
 * and the per-level list updates the driver makes on the host (the
 * seed's clean_vector and find_next_gws, and 7's children from pivots).
 * Unit-tested in tests/test_qsort_study.c.
 */
#include <stdlib.h>
#include <string.h>

#include "qstudy.h"

/*                        kernel                  seed   lom map cnt blk it shm host win ser */
static const sp_qstudy_info infos[SP_QSTUDY_NVARIANTS] = {
    [SP_QSTUDY_1] = {"sort_qsort_study1", "1", 1, 0, 0, 0, 1, 0, 0, 0, 1},
    [SP_QSTUDY_2] = {"sort_qsort_study2", "2", 0, 1, 0, 0, 1, 0, 0, 0, 1},
    [SP_QSTUDY_3] = {"sort_qsort_study3", "3", 0, 1, 0, 1, 1, 0, 0, 0, 1},
    [SP_QSTUDY_3_R1] = {"sort_qsort_study3_r1", "3 R1", 0, 1, 0, 1, SP_QSTUDY_ITEMS_R1, 0, 0, 0, 1},
    [SP_QSTUDY_3_R2] = {"sort_qsort_study3_r2", "3 R2", 0, 1, 0, 1, 1, 1, 0, 0, 1},
    [SP_QSTUDY_4] = {"sort_qsort_study4", "4", 0, 0, 0, 1, 1, 0, 0, 0, 1},
    [SP_QSTUDY_4_R1] = {"sort_qsort_study4_r1", "4 R1", 0, 0, 0, 1, SP_QSTUDY_ITEMS_R1, 0, 0, 0, 1},
    [SP_QSTUDY_4_R2] = {"sort_qsort_study4_r2", "4 R2", 0, 0, 0, 1, 1, 1, 0, 0, 1},
    [SP_QSTUDY_5] = {"sort_qsort_study5", "5", 0, 1, 1, 1, 1, 0, 0, 0, 1},
    [SP_QSTUDY_5_R1] = {"sort_qsort_study5_r1", "5 R1", 0, 1, 1, 1, 1, 1, 0, 0, 1},
    [SP_QSTUDY_6] = {"sort_qsort_study6", "6", 0, 0, 1, 1, 1, 0, 0, 0, 1},
    [SP_QSTUDY_7] = {"sort_qsort_study7", "7", 0, 0, 1, 1, 1, 0, 1, 0, 1},
    [SP_QSTUDY_8] = {"sort_qsort_study8", "8", 1, 0, 0, 0, 1, 0, 0, 1, 1},
    [SP_QSTUDY_9] = {"sort_qsort_study9", "9", 0, 1, 0, 0, 1, 0, 0, 1, 0},
};

const sp_qstudy_info *sp_qstudy_info_of(sp_qstudy_variant v)
{
    return (unsigned)v < SP_QSTUDY_NVARIANTS ? &infos[v] : NULL;
}

sp_qsort_opts sp_qstudy_defaults(sp_qstudy_variant v)
{
    const sp_qstudy_info *in = sp_qstudy_info_of(v);
    int bs = in && in->block_phase ? 1024 : 256;
    return (sp_qsort_opts){.blocksize = bs, .window = 256, .cutoff = SP_SORT_GPU_CUTOFF};
}

int sp_qstudy_check_opts(sp_qstudy_variant v, const sp_qsort_opts *o, sp_err *err)
{
    const sp_qstudy_info *in = sp_qstudy_info_of(v);
    if (!in)
        return sp_fail(err, "qstudy: unknown variant %d", (int)v);
    if (!o)
        return sp_fail(err, "%s: no options", in->kernel);
    if (o->blocksize < 32 || o->blocksize > 1024 || o->blocksize % 32)
        return sp_fail(err, "%s: blocksize = %d: must be a multiple of 32 in 32..1024",
                       in->kernel, o->blocksize);
    if (in->windowed && (o->window < 1 || o->window > 1024))
        return sp_fail(err,
                       "%s: window = %d outside 1..1024 (the window is the block's "
                       "threads)",
                       in->kernel, o->window);
    return 0;
}

/* Lomuto around a[e], as 1 and 8 partition: the pivot's final place. */
static int64_t lomuto(uint32_t *a, int64_t s, int64_t e)
{
    uint32_t pivot = a[e];
    int64_t i = s;
    for (int64_t j = s; j <= e; j++)
        if (a[j] <= pivot) {
            uint32_t t = a[i];
            a[i++] = a[j];
            a[j] = t;
        }
    return i - 1;
}

/* The stable split around a[e] of 2-7 and 9 (Smaller, pivot, Greater, each
 * in input order), through tmp: the pivot's final place. */
static int64_t stable_split(uint32_t *a, uint32_t *tmp, int64_t s, int64_t e)
{
    uint32_t pivot = a[e];
    int64_t c = s;
    for (int64_t j = s; j < e; j++)
        if (a[j] <= pivot)
            tmp[c++] = a[j];
    int64_t p = c;
    tmp[c++] = pivot;
    for (int64_t j = s; j < e; j++)
        if (a[j] > pivot)
            tmp[c++] = a[j];
    memcpy(a + s, tmp + s, (size_t)(e - s + 1) * 4);
    return p;
}

/* The bound a level passed, or 0 when it passed none. */
static int over_a_bound(const sp_qstudy_info *in, const sp_qstudy_plan *pl, int64_t n,
                        sp_err *err)
{
    if (in->serial && pl->serial_steps > SP_QSTUDY_SERIAL_MAX)
        return sp_fail(err,
                       "%s: n = %lld: refused, its serial partitions would walk more than "
                       "SP_QSTUDY_SERIAL_MAX = %lld keys (the longest subproblem of each "
                       "level, summed; the last key as pivot makes sorted, reverse or "
                       "repeated keys quadratic)",
                       in->kernel, (long long)n, (long long)SP_QSTUDY_SERIAL_MAX);
    if (in->counting && pl->pair_steps > SP_QSTUDY_PAIRS_MAX)
        return sp_fail(err,
                       "%s: n = %lld: refused, counting each key's place would compare more "
                       "than SP_QSTUDY_PAIRS_MAX = %lld pairs of keys (len^2/2 a "
                       "subproblem, summed over the levels)",
                       in->kernel, (long long)n, (long long)SP_QSTUDY_PAIRS_MAX);
    if (pl->visits > SP_QSTUDY_VISITS_MAX)
        return sp_fail(err,
                       "%s: n = %lld: refused, the levels would visit more than "
                       "SP_QSTUDY_VISITS_MAX = %lld keys in all",
                       in->kernel, (long long)n, (long long)SP_QSTUDY_VISITS_MAX);
    return 0;
}

int sp_qstudy_plan_keys(sp_qstudy_variant v, const uint32_t *keys, int64_t n,
                        sp_qstudy_plan *pl, sp_err *err)
{
    memset(pl, 0, sizeof *pl);
    if (n < 2 || n > SP_QSTUDY_N_MAX || !keys)
        return sp_qstudy_plan_sort(v, NULL, n, pl, err);
    uint32_t *a = malloc((size_t)n * 4);
    if (!a)
        return sp_fail(err, "%s: out of memory planning %lld keys",
                       sp_qstudy_info_of(v) ? sp_qstudy_info_of(v)->kernel : "qstudy",
                       (long long)n);
    memcpy(a, keys, (size_t)n * 4);
    int rc = sp_qstudy_plan_sort(v, a, n, pl, err);
    free(a);
    return rc;
}

int sp_qstudy_plan_sort(sp_qstudy_variant v, uint32_t *a, int64_t n, sp_qstudy_plan *pl,
                        sp_err *err)
{
    const sp_qstudy_info *in = sp_qstudy_info_of(v);
    memset(pl, 0, sizeof *pl);
    if (!in)
        return sp_fail(err, "qstudy: unknown variant %d", (int)v);
    if (n < 0 || n > SP_QSTUDY_N_MAX)
        return sp_fail(err, "%s: n = %lld outside 0..%lld (32-bit subproblem bounds)",
                       in->kernel, (long long)n, (long long)SP_QSTUDY_N_MAX);
    if (n < 2)
        return 0;
    if (!a)
        return sp_fail(err, "%s: no keys to plan", in->kernel);
    int64_t cap = n / 2 + 1;
    uint32_t *tmp = in->lomuto ? NULL : malloc((size_t)n * 4);
    sp_qstudy_range *cur = malloc((size_t)cap * sizeof *cur),
                    *nxt = malloc((size_t)cap * sizeof *nxt);
    int rc = -1;
    if (!cur || !nxt || (!in->lomuto && !tmp)) {
        sp_fail(err, "%s: out of memory planning %lld keys", in->kernel, (long long)n);
        goto out;
    }
    cur[0] = (sp_qstudy_range){0, (int32_t)(n - 1)};
    int64_t nsub = 1;
    while (nsub > 0) {
        if (pl->levels >= SP_QSTUDY_LEVELS_MAX) {
            sp_fail(err,
                    "%s: n = %lld: refused, the call tree is deeper than "
                    "SP_QSTUDY_LEVELS_MAX = %d levels (the last key as pivot: sorted, "
                    "reverse or repeated keys shed one key a level)",
                    in->kernel, (long long)n, SP_QSTUDY_LEVELS_MAX);
            goto out;
        }
        pl->levels++;
        if (nsub > pl->max_subproblems)
            pl->max_subproblems = nsub;
        int64_t m = 0, longest = 0;
        for (int64_t t = 0; t < nsub; t++) {
            int64_t s = cur[t].s, e = cur[t].e, len = e - s + 1;
            pl->visits += len;
            longest = len > longest ? len : longest;
            if (in->counting)
                pl->pair_steps += len * len / 2;
            int64_t p = in->lomuto ? lomuto(a, s, e) : stable_split(a, tmp, s, e);
            sp_qstudy_range kids[2];
            sp_qstudy_children((int32_t)s, (int32_t)e, (int32_t)p, kids);
            for (int k = 0; k < 2; k++)
                if (kids[k].s >= 0)
                    nxt[m++] = kids[k];
        }
        pl->serial_steps += longest;
        if (over_a_bound(in, pl, n, err))
            goto out;
        sp_qstudy_range *t = cur;
        cur = nxt, nxt = t, nsub = m;
    }
    rc = 0;
out:
    free(tmp);
    free(cur);
    free(nxt);
    return rc;
}

int64_t sp_qstudy_clean(const sp_qstudy_range *app, int64_t nsub, sp_qstudy_range *delims)
{
    int64_t m = 0;
    for (int64_t i = 0; i < 2 * nsub; i++)
        if (app[i].s >= 0)
            delims[m++] = app[i];
    return m;
}

int64_t sp_qstudy_map(const sp_qstudy_range *delims, int64_t nsub, int32_t *map_idx,
                      int32_t *map_sub)
{
    int64_t g = 0;
    for (int64_t t = 0; t < nsub; t++)
        for (int32_t i = delims[t].s; i <= delims[t].e; i++, g++)
            map_idx[g] = i, map_sub[g] = (int32_t)t;
    return g;
}

int64_t sp_qstudy_next_from_pivots(const sp_qstudy_range *delims, int64_t nsub,
                                   const int32_t *pivots, sp_qstudy_range *next)
{
    int64_t m = 0;
    for (int64_t t = 0; t < nsub; t++) {
        sp_qstudy_range kids[2];
        sp_qstudy_children(delims[t].s, delims[t].e, pivots[t], kids);
        for (int k = 0; k < 2; k++)
            if (kids[k].s >= 0)
                next[m++] = kids[k];
    }
    return m;
}

int64_t sp_qstudy_longest(const sp_qstudy_range *delims, int64_t nsub)
{
    int64_t longest = 0;
    for (int64_t t = 0; t < nsub; t++) {
        int64_t len = (int64_t)delims[t].e - delims[t].s + 1;
        longest = len > longest ? len : longest;
    }
    return longest;
}

static size_t up256(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

static size_t place(size_t *at, size_t bytes)
{
    size_t here = *at;
    *at += up256(bytes);
    return here;
}

int sp_qstudy_layout_of(sp_qstudy_variant v, int64_t n, int with_vals, sp_qstudy_layout *L,
                        sp_err *err)
{
    const sp_qstudy_info *in = sp_qstudy_info_of(v);
    memset(L, 0, sizeof *L);
    if (!in)
        return sp_fail(err, "qstudy: unknown variant %d", (int)v);
    if (n < 0 || n > SP_QSTUDY_N_MAX)
        return sp_fail(err, "%s: n = %lld outside 0..%lld", in->kernel, (long long)n,
                       (long long)SP_QSTUDY_N_MAX);
    size_t keys = (size_t)n * 4, vals = with_vals ? keys : 0;
    int split = !in->lomuto && !in->counting;  /* Smaller and Greater arrays */
    L->sub_cap = n / 2 + 1;
    size_t at = 0;
    L->delims = place(&at, (size_t)L->sub_cap * 8);
    L->app = place(&at, (size_t)L->sub_cap * 16);
    L->pivots = place(&at, in->counting ? (size_t)L->sub_cap * 4 : 0);
    L->map_idx = place(&at, in->map ? keys : 0);
    L->map_sub = place(&at, in->map ? keys : 0);
    L->sm_key = place(&at, split ? keys : 0);
    L->sm_val = place(&at, split ? vals : 0);
    L->sm_flag = place(&at, split ? (size_t)n : 0);
    L->gr_key = place(&at, split ? keys : 0);
    L->gr_val = place(&at, split ? vals : 0);
    L->gr_flag = place(&at, split ? (size_t)n : 0);
    L->tmp_key = place(&at, in->counting ? keys : 0);
    L->tmp_val = place(&at, in->counting ? vals : 0);
    L->total = at;
    return 0;
}

size_t sp_qstudy_workspace(sp_qstudy_variant v, int64_t n, int with_vals)
{
    sp_qstudy_layout L;
    return sp_qstudy_layout_of(v, n, with_vals, &L, NULL) ? 0 : L.total;
}

size_t sp_qstudy_host_bytes(sp_qstudy_variant v, int64_t n)
{
    const sp_qstudy_info *in = sp_qstudy_info_of(v);
    if (!in || n < 0)
        return 0;
    size_t cap = (size_t)(n / 2 + 1);
    return cap * 8 * 3 + (in->map ? (size_t)n * 8 : 0) + (in->counting ? cap * 4 : 0);
}
