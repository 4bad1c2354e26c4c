/* test_qsort_study.c — the host side of study 004's 14 quicksort variants
 * (kernels/sort/qstudy.h) that needs no GPU: the registry entries and
 * their axes, option checks, the per-level list updates the driver makes
 * on the host (clean_vector, find_next_gws, 7's children from pivots),
 * the workspace layout, and the plan: its model of each variant sorts,
 * its tree depth on inputs whose depth is known, and its refusals (each
 * naming its bound) of inputs a variant could not finish, through the
 * kernels' need as the runner calls it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/kernel.h"
#include "../kernels/sort/qstudy.h"
#include "util_sort.h"

static uint32_t *keys_of(const char *dist, int64_t n, int seed)
{
    char src[128];
    snprintf(src, sizeof src, "keys:%s?n=%lld&seed=%d", dist, (long long)n, seed);
    sp_keys K;
    us_keys(src, &K);
    uint32_t *k = malloc((size_t)(n + 1) * 4);
    cr_assert_not_null(k);
    memcpy(k, K.key, (size_t)n * 4);
    sp_keys_free(&K);
    return k;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Every variant is registered under the name its table gives, a GPU sort
 * kernel whose axes are values plus blocksize and/or window, with defaults
 * that pass its check and equal sp_qstudy_defaults; the names map one to
 * one onto the seed's 14 variants. */
Test(qsort_study, fourteen_kernels_registered_by_seed_name)
{
    int found = 0;
    for (int i = 0; sp_kernels[i]; i++)
        found += !strncmp(sp_kernels[i]->name, "sort_qsort_study", 16);
    cr_assert_eq(found, SP_QSTUDY_NVARIANTS, "%d kernels named sort_qsort_study*", found);
    const char *seeds[] = {"1", "2", "3", "3 R1", "3 R2", "4", "4 R1", "4 R2",
                           "5", "5 R1", "6", "7", "8", "9"};
    for (int v = 0; v < SP_QSTUDY_NVARIANTS; v++) {
        const sp_qstudy_info *in = sp_qstudy_info_of((sp_qstudy_variant)v);
        cr_assert_str_eq(in->seed, seeds[v]);
        const sp_kernel *k = sp_kernel_find(in->kernel);
        cr_assert_not_null(k, "%s not registered", in->kernel);
        cr_assert_str_eq(k->operation, "sort");
        cr_assert(k->needs_gpu);
        cr_assert_not_null(k->need);
        cr_assert_str_eq(k->axes[0].name, "values");
        sp_qsort_opts d = sp_qstudy_defaults((sp_qstudy_variant)v), o = d;
        for (int a = 1; a < k->naxes; a++) {
            if (!strcmp(k->axes[a].name, "blocksize"))
                cr_assert_eq(atoi(k->axes[a].defaults), d.blocksize, "%s", in->kernel);
            else if (!strcmp(k->axes[a].name, "window")) {
                cr_assert(in->windowed, "%s: a window axis without a window", in->kernel);
                cr_assert_eq(atoi(k->axes[a].defaults), d.window, "%s", in->kernel);
            } else
                cr_assert_fail("%s: unexpected axis %s", in->kernel, k->axes[a].name);
        }
        cr_assert_eq(sp_qstudy_check_opts((sp_qstudy_variant)v, &o, NULL), 0, "%s",
                     in->kernel);
        /* the refinement suffix follows the seed's name */
        const char *r = strchr(in->seed, 'R');
        char want[64];
        snprintf(want, sizeof want, "sort_qsort_study%c%s%s", in->seed[0], r ? "_r" : "",
                 r ? r + 1 : "");
        cr_assert_str_eq(in->kernel, want);
    }
    cr_assert_null(sp_qstudy_info_of(SP_QSTUDY_NVARIANTS));
}

Test(qsort_study, bad_options_name_the_axis)
{
    struct {
        sp_qstudy_variant v;
        sp_qsort_opts o;
        const char *word;
    } bad[] = {{SP_QSTUDY_1, {33, 256, 1}, "blocksize = 33"},
               {SP_QSTUDY_3, {0, 256, 1}, "blocksize = 0"},
               {SP_QSTUDY_5, {2048, 256, 1}, "blocksize = 2048"},
               {SP_QSTUDY_8, {256, 0, 1}, "window = 0"},
               {SP_QSTUDY_9, {256, 1025, 1}, "window = 1025"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sp_err err = {{0}};
        cr_assert_eq(sp_qstudy_check_opts(bad[i].v, &bad[i].o, &err), -1, "%s", bad[i].word);
        cr_assert_not_null(strstr(err.msg, bad[i].word), "%s", err.msg);
        cr_assert_not_null(strstr(err.msg, sp_qstudy_info_of(bad[i].v)->kernel), "%s",
                           err.msg);
    }
    /* the window is no axis of 1: any value passes; 1..1024 for 8 */
    sp_qsort_opts o = {256, 99999, 1};
    cr_assert_eq(sp_qstudy_check_opts(SP_QSTUDY_1, &o, NULL), 0);
    o.window = 1;
    cr_assert_eq(sp_qstudy_check_opts(SP_QSTUDY_8, &o, NULL), 0);
    o.window = 1024;
    cr_assert_eq(sp_qstudy_check_opts(SP_QSTUDY_8, &o, NULL), 0);
    cr_assert_eq(sp_qstudy_check_opts(SP_QSTUDY_8, NULL, NULL), -1);
}

/* The children of [s, e] around p: a side of fewer than 2 keys is a hole. */
Test(qsort_study, children_and_host_list_updates)
{
    sp_qstudy_range k[2];
    sp_qstudy_children(0, 9, 5, k);
    cr_assert(k[0].s == 0 && k[0].e == 4 && k[1].s == 6 && k[1].e == 9);
    sp_qstudy_children(0, 9, 1, k);      /* left is one key: solved */
    cr_assert(k[0].s == -1 && k[0].e == -1 && k[1].s == 2 && k[1].e == 9);
    sp_qstudy_children(0, 9, 9, k);
    cr_assert(k[0].s == 0 && k[0].e == 8 && k[1].s == -1);
    sp_qstudy_children(3, 4, 3, k);      /* two keys: both sides solved */
    cr_assert(k[0].s == -1 && k[1].s == -1);

    /* clean_vector keeps the order and drops the holes */
    sp_qstudy_range app[6] = {{-1, -1}, {2, 4}, {7, 8}, {-1, -1}, {-1, -1}, {20, 30}}, d[6];
    cr_assert_eq(sp_qstudy_clean(app, 3, d), 3);
    cr_assert(d[0].s == 2 && d[1].s == 7 && d[2].s == 20 && d[2].e == 30);
    cr_assert_eq(sp_qstudy_clean(app, 0, d), 0);

    /* find_next_gws: a work-item per key of each subproblem, in order */
    int32_t idx[16], sub[16];
    cr_assert_eq(sp_qstudy_map(d, 2, idx, sub), 5);
    const int32_t want_idx[] = {2, 3, 4, 7, 8}, want_sub[] = {0, 0, 0, 1, 1};
    cr_assert_arr_eq(idx, want_idx, sizeof want_idx);
    cr_assert_arr_eq(sub, want_sub, sizeof want_sub);
    cr_assert_eq(sp_qstudy_longest(d, 3), 11);
    cr_assert_eq(sp_qstudy_longest(d, 0), 0);

    /* 7's host update from the pivots' places */
    sp_qstudy_range lst[3] = {{0, 9}, {12, 13}, {20, 25}}, next[6];
    int32_t piv[3] = {0, 13, 22};
    cr_assert_eq(sp_qstudy_next_from_pivots(lst, 3, piv, next), 3);
    cr_assert(next[0].s == 1 && next[0].e == 9);
    cr_assert(next[1].s == 20 && next[1].e == 21 && next[2].s == 23 && next[2].e == 25);
}

/* The model of every variant sorts every distribution and awkward size
 * the sort tests use (the same partitions and list updates as the GPU). */
Test(qsort_study, the_plan_sorts_every_distribution, .timeout = 120)
{
    static const int64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 1000, 4099};
    for (int v = 0; v < SP_QSTUDY_NVARIANTS; v++)
        for (int d = 0; d < 6; d++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                int64_t n = sizes[s];
                uint32_t *a = keys_of(us_dists[d], n, (int)s + 1), *ref = malloc((size_t)(n + 1) * 4);
                cr_assert_not_null(ref);
                memcpy(ref, a, (size_t)n * 4);
                qsort(ref, (size_t)n, 4, cmp_u32);
                sp_qstudy_plan pl;
                sp_err err = {{0}};
                cr_assert_eq(sp_qstudy_plan_sort((sp_qstudy_variant)v, a, n, &pl, &err), 0,
                             "%s", err.msg);
                cr_assert_eq(memcmp(a, ref, (size_t)n * 4), 0, "%s on %s n=%lld",
                             sp_qstudy_info_of((sp_qstudy_variant)v)->kernel, us_dists[d],
                             (long long)n);
                cr_assert(n < 2 ? pl.levels == 0 : pl.levels >= 1 && pl.levels < n);
                free(a);
                free(ref);
            }
}

/* Depths known by hand: sorted and all-equal keys shed the pivot alone
 * each level (n - 1 levels, serial work n(n+1)/2 - 1); random keys give a
 * tree of a few log2(n) levels. */
Test(qsort_study, plan_depths)
{
    const int64_t n = 1000;
    for (int v = 0; v < SP_QSTUDY_NVARIANTS; v++) {
        const char *dists[] = {"sorted", "equal"};
        for (int d = 0; d < 2; d++) {
            uint32_t *a = keys_of(dists[d], n, 1);
            sp_qstudy_plan pl;
            cr_assert_eq(sp_qstudy_plan_keys((sp_qstudy_variant)v, a, n, &pl, NULL), 0);
            cr_assert_eq(pl.levels, n - 1, "%s %s: %lld levels",
                         sp_qstudy_info_of((sp_qstudy_variant)v)->kernel, dists[d],
                         (long long)pl.levels);
            cr_assert_eq(pl.serial_steps, n * (n + 1) / 2 - 1);
            cr_assert_eq(pl.max_subproblems, 1);
            free(a);
        }
        uint32_t *a = keys_of("uniform", 1 << 16, 7);
        sp_qstudy_plan pl;
        cr_assert_eq(sp_qstudy_plan_keys((sp_qstudy_variant)v, a, 1 << 16, &pl, NULL), 0);
        cr_assert(pl.levels > 16 && pl.levels < 100, "%lld levels", (long long)pl.levels);
        cr_assert_gt(pl.max_subproblems, 1000);
        cr_assert_eq(pl.pair_steps > 0, sp_qstudy_info_of((sp_qstudy_variant)v)->counting);
        free(a);
    }
}

/* Refusals name their bound: levels (9 has no serial part), serial work
 * (1 on sorted keys), counting pairs (5 on 2^22 random keys), n. */
Test(qsort_study, plan_refusals_name_the_bound)
{
    sp_err err = {{0}};
    sp_qstudy_plan pl;
    uint32_t *a = keys_of("sorted", 10000, 1);
    cr_assert_eq(sp_qstudy_plan_keys(SP_QSTUDY_9, a, 10000, &pl, &err), -1);
    cr_assert_not_null(strstr(err.msg, "SP_QSTUDY_LEVELS_MAX = 8192"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "sort_qsort_study9"), "%s", err.msg);
    free(a);
    a = keys_of("sorted", 8000, 1);
    cr_assert_eq(sp_qstudy_plan_keys(SP_QSTUDY_1, a, 8000, &pl, &err), 0,
                 "7999 levels, 3.2e7 keys walked serially: under the bounds: %s", err.msg);
    free(a);
    a = keys_of("equal", 1 << 14, 1);
    cr_assert_eq(sp_qstudy_plan_keys(SP_QSTUDY_1, a, 1 << 14, &pl, &err), -1);
    cr_assert_not_null(strstr(err.msg, "SP_QSTUDY_SERIAL_MAX"), "%s", err.msg);
    cr_assert_lt(pl.levels, SP_QSTUDY_LEVELS_MAX, "stopped at the bound, not later");
    free(a);
    a = keys_of("uniform", 1 << 22, 3);
    cr_assert_eq(sp_qstudy_plan_keys(SP_QSTUDY_5, a, 1 << 22, &pl, &err), -1);
    cr_assert_not_null(strstr(err.msg, "SP_QSTUDY_PAIRS_MAX"), "%s", err.msg);
    cr_assert_eq(pl.levels, 1, "refused after the first level");
    free(a);
    cr_assert_eq(sp_qstudy_plan_keys(SP_QSTUDY_2, NULL, -1, &pl, &err), -1);
    cr_assert_not_null(strstr(err.msg, "n = -1"), "%s", err.msg);
    cr_assert_eq(sp_qstudy_plan_keys(SP_QSTUDY_2, NULL, 0, &pl, &err), 0);
    cr_assert_eq(sp_qstudy_plan_keys(SP_QSTUDY_2, NULL, 5, &pl, &err), -1, "no keys");
}

/* The layout: 256-byte aligned, disjoint, in the order of the struct, with
 * exactly the arrays the variant uses; values add their arrays. */
Test(qsort_study, workspace_layout)
{
    for (int v = 0; v < SP_QSTUDY_NVARIANTS; v++) {
        const sp_qstudy_info *in = sp_qstudy_info_of((sp_qstudy_variant)v);
        const int64_t n = 100003;
        sp_qstudy_layout L, Lv;
        cr_assert_eq(sp_qstudy_layout_of((sp_qstudy_variant)v, n, 0, &L, NULL), 0);
        cr_assert_eq(sp_qstudy_layout_of((sp_qstudy_variant)v, n, 1, &Lv, NULL), 0);
        cr_assert_eq(L.sub_cap, n / 2 + 1);
        size_t off[] = {L.delims, L.app,    L.pivots, L.map_idx, L.map_sub, L.sm_key, L.sm_val,
                        L.sm_flag, L.gr_key, L.gr_val, L.gr_flag, L.tmp_key, L.tmp_val, L.total};
        for (int i = 0; i < 13; i++) {
            cr_assert_eq(off[i] % 256, 0);
            cr_assert_geq(off[i + 1], off[i]);
        }
        cr_assert_geq(L.app - L.delims, (size_t)L.sub_cap * 8);
        cr_assert_geq(L.pivots - L.app, (size_t)L.sub_cap * 16);
        int split = !in->lomuto && !in->counting;
        cr_assert_eq(L.map_sub > L.map_idx, in->map, "%s map", in->kernel);
        cr_assert_eq(L.sm_val > L.sm_key, split, "%s Smaller", in->kernel);
        cr_assert_eq(L.total > L.tmp_key, in->counting, "%s Input_App", in->kernel);
        cr_assert_eq(L.map_idx > L.pivots, in->counting, "%s pivots", in->kernel);
        cr_assert_eq(Lv.total > L.total, split || in->counting, "%s values", in->kernel);
        cr_assert_eq(sp_qstudy_workspace((sp_qstudy_variant)v, n, 1), Lv.total);
        cr_assert_eq(sp_qstudy_workspace((sp_qstudy_variant)v, -1, 1), 0);
        cr_assert_eq(sp_qstudy_host_bytes((sp_qstudy_variant)v, n) >= (size_t)L.sub_cap * 24, 1);
    }
}

/* need, as the runner calls it: the study's own input (2^19 and 2^20
 * uniform keys, seed 20) accepted by all 14 with their memory stated;
 * 2^20 sorted keys refused by all 14 with the bound named; and in a
 * build with CUDA, prepare refuses the same way and leaves no state. */
Test(qsort_study, need_plans_the_keys, .timeout = 240)
{
    const char *srcs[] = {"keys:uniform?n=2^19&seed=20", "keys:uniform?n=2^20&seed=20",
                          "keys:sorted?n=2^20"};
    const sp_operation *op = sp_operation_find("sort");
    sp_params keys_only = us_params(0, 0, NULL, NULL);
    for (int s = 0; s < 3; s++) {
        sp_keys K;
        us_keys(srcs[s], &K);
        sp_problem pb;
        sp_err err = {{0}};
        cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0, "%s", err.msg);
        for (int v = 0; v < SP_QSTUDY_NVARIANTS; v++) {
            const sp_kernel *k = sp_kernel_find(sp_qstudy_info_of((sp_qstudy_variant)v)->kernel);
            sp_need need = {0};
            int rc = k->need(&pb, &keys_only, &need, &err);
            if (s < 2) {
                cr_assert_eq(rc, 0, "%s on %s: %s", k->name, srcs[s], err.msg);
                cr_assert_geq(need.device_bytes,
                              sp_qstudy_workspace((sp_qstudy_variant)v, K.n, 0) + 8 * K.n);
                cr_assert_geq(need.host_bytes, sp_qstudy_host_bytes((sp_qstudy_variant)v, K.n));
                continue;
            }
            cr_assert_eq(rc, -1, "%s took 2^20 sorted keys", k->name);
            cr_assert(strstr(err.msg, k->name) && strstr(err.msg, "refused") &&
                          strstr(err.msg, "SP_QSTUDY_"),
                      "%s", err.msg);
            if (k->prepare) {
                void *state = &err;
                cr_assert_eq(k->prepare(&pb, &keys_only, &state, &err), -1, "%s", k->name);
                cr_assert_null(state);
                cr_assert_not_null(strstr(err.msg, "refused"), "%s", err.msg);
            }
        }
        op->teardown(&pb);
        sp_keys_free(&K);
    }
}
