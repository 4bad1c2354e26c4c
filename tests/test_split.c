/* test_split.c — how shards split a plan (runner/plan/split.c): by matrix where
 * the matrices balance, so each process loads only its own; a matrix too
 * large for one shard's share, or fewer matrices than shards, cut into
 * contiguous pieces (as few as balance needs); every pair exactly once, in plan order, for every
 * shard count; suitesparse sizes from the cached index. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../runner/plan/select.h"
#include "testutil.h"

#define MAXM 16

typedef struct split_view {
    int shards_of[MAXM];        /* how many shards run a pair of matrix m */
    int owner[MAXM * 64];       /* shard of each plan position, 0 = none */
    double most, total;         /* busiest shard's run estimate, all of them */
} split_view;

static void parse(const char *text, sp_config *cfg, sp_plan *plan)
{
    sp_err err;
    cr_assert_eq(sp_config_parse("split.ini", text, NULL, cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_plan_expand(cfg, plan, &err), 0, "%s", err.msg);
    cr_assert_leq(cfg->nmatrices, MAXM);
    cr_assert_leq(cfg->nmatrices * plan->ncombos, MAXM * 64);
}

/* Select every shard of n; check each pair is taken exactly once and each
 * shard keeps plan order. */
static void view(const sp_config *cfg, const sp_plan *plan, int n, split_view *v)
{
    memset(v, 0, sizeof *v);
    sp_err err;
    for (int i = 1; i <= n; i++) {
        sp_worklist wl;
        sp_sweep_opts o = {.shard_index = i, .shard_count = n};
        cr_assert_eq(sp_select(cfg, plan, &o, &wl, &err), 0, "%s", err.msg);
        int seen[MAXM] = {0};
        for (int k = 0; k < wl.n; k++) {
            cr_assert_eq(v->owner[wl.w[k].order], 0, "%d shards: run %d taken twice", n,
                         wl.w[k].order);
            v->owner[wl.w[k].order] = i;
            if (!seen[wl.w[k].matrix]++)
                v->shards_of[wl.w[k].matrix]++;
            if (k)
                cr_assert_lt(wl.w[k - 1].order, wl.w[k].order, "plan order kept");
        }
        v->most = wl.total_cost > v->most ? wl.total_cost : v->most;
        v->total += wl.total_cost;
        sp_worklist_free(&wl);
    }
    for (int k = 0; k < cfg->nmatrices * plan->ncombos; k++)
        cr_assert_neq(v->owner[k], 0, "%d shards: run %d taken by none", n, k);
}

/* Six matrices of about 1.2e5 nonzeros each, 2 CPU + 4 GPU combinations. */
static const char *six =
    "[sweep]\nrepetitions = 10\nwarmup = 2\n"
    "[matrices]\nsource = gen:laplace2d?n=155\nsource = gen:laplace3d?n=26\n"
    "source = gen:banded?n=12000&bw=5\nsource = gen:uniform?rows=12000&cols=12000&per_row=10\n"
    "source = gen:rmat?scale=13&ef=15\nsource = gen:denserow?rows=12000&per_row=10&dense=100\n"
    "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 2\n"
    "[kernel spmv_csr_cuda_scalar]\nblocksize = 64,128,256,512\n";

Test(split, matrices_stay_whole_when_they_balance)
{
    sp_config cfg;
    sp_plan plan;
    parse(six, &cfg, &plan);
    static const int whole[] = {2, 3, 6};
    for (int i = 0; i < 3; i++) {
        int n = whole[i];
        split_view v;
        view(&cfg, &plan, n, &v);
        for (int m = 0; m < cfg.nmatrices; m++)
            cr_assert_eq(v.shards_of[m], 1, "%d shards: matrix %d loaded by %d shards", n, m,
                         v.shards_of[m]);
        cr_assert_leq(v.most, v.total / n * 1.1, "%d shards: %g of %g", n, v.most, v.total);
    }
    /* 6 into 4 or 5 leaves a shard with two matrices (1.33x or 1.67x the
     * mean) unless a few are cut: loading a small matrix twice is cheaper
     * than 4 GPU runs waiting */
    for (int n = 4; n <= 5; n++) {
        split_view v;
        view(&cfg, &plan, n, &v);
        int loads = 0;
        for (int m = 0; m < cfg.nmatrices; m++)
            loads += v.shards_of[m];
        cr_assert_leq(loads, 6 + 2 * n, "%d shards: %d loads", n, loads);
        cr_assert_leq(v.most, v.total / n * 1.2, "%d shards: %g of %g", n, v.most, v.total);
    }
    sp_plan_free(&plan);
    sp_config_free(&cfg);
}

Test(split, fewer_matrices_than_shards_cut_into_contiguous_pieces)
{
    sp_config cfg;
    sp_plan plan;
    parse("[matrices]\nsource = gen:laplace2d?n=300\nsource = gen:laplace2d?n=301\n"
          "[kernel spmv_csr_cuda_scalar]\nblocksize = 32..1024:*2\n"
          "[kernel spmv_csr_cuda_vector]\nblocksize = 32..1024:*2\n",
          &cfg, &plan);
    for (int n = 3; n <= 12; n++) {
        split_view v;
        view(&cfg, &plan, n, &v);
        int runs = 0;
        for (int m = 0; m < 2; m++) {
            runs += v.shards_of[m];
            /* pieces are contiguous runs of the matrix's combinations: at
             * least one piece per shard that runs it */
            int pieces = 1;
            for (int c = 1; c < plan.ncombos; c++)
                pieces += v.owner[m * plan.ncombos + c] != v.owner[m * plan.ncombos + c - 1];
            cr_assert_geq(pieces, v.shards_of[m], "%d shards, matrix %d", n, m);
        }
        cr_assert_geq(runs, n, "%d shards: every shard has work", n);
        cr_assert_leq(runs, 2 * n, "%d shards: %d matrix loads", n, runs);
        /* 24 runs of about equal cost: at most one run above the mean */
        double run = v.total / 24;
        cr_assert_leq(v.most, v.total / n + run * 1.01, "%d shards: %g of %g", n, v.most,
                      v.total);
    }
    sp_plan_free(&plan);
    sp_config_free(&cfg);
}

Test(split, one_large_matrix_cut_small_ones_whole)
{
    sp_config cfg;
    sp_plan plan;
    parse("[matrices]\nsource = gen:laplace2d?n=2000\nsource = gen:laplace2d?n=100\n"
          "source = gen:banded?n=10000&bw=2\nsource = gen:uniform?rows=5000&cols=5000&per_row=8\n"
          "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1..4\n",
          &cfg, &plan);
    for (int n = 2; n <= 4; n++) {
        split_view v;
        view(&cfg, &plan, n, &v);
        cr_assert_gt(v.shards_of[0], 1, "%d shards: the 2e7-nonzero matrix is cut", n);
        for (int m = 1; m < 4; m++)
            cr_assert_eq(v.shards_of[m], 1, "%d shards: matrix %d whole", n, m);
        cr_assert_leq(v.most, v.total / n * 1.6, "%d shards: %g of %g", n, v.most, v.total);
    }
    sp_plan_free(&plan);
    sp_config_free(&cfg);
}

Test(split, every_shard_count_covers_the_plan_once)
{
    sp_config cfg;
    sp_plan plan;
    parse(six, &cfg, &plan);
    for (int n = 1; n <= 40; n++) {
        split_view v;
        view(&cfg, &plan, n, &v);
    }
    sp_plan_free(&plan);
    sp_config_free(&cfg);
}

Test(split, suitesparse_size_from_the_cached_index)
{
    char dir[256], path[600];
    tu_tempdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/suitesparse", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/suitesparse/ssstats.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("2\n21-Nov-2026 00:00:00\n"
          "HB,big,1000,1000,7000000,1,0,0,0,1,1,structural problem,7000000\n"
          "HB,small,10,10,30,1,0,0,0,1,1,structural problem,30\n", f);
    fclose(f);
    char text[1400];
    snprintf(text, sizeof text,
             "[sweep]\ncache = %s\n[matrices]\nsource = suitesparse:HB/big\n"
             "source = suitesparse:HB/small\nsource = suitesparse:HB/absent\n"
             "[kernel spmv_csr_serial]\n", dir);
    sp_config cfg;
    sp_err err;
    cr_assert_eq(sp_config_parse("ss.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
    double nnz[3];
    sp_estimate_config_nnz(&cfg, nnz);
    cr_assert_float_eq(nnz[0], 7e6, 1e-9);
    cr_assert_float_eq(nnz[1], 30, 1e-9);
    cr_assert_float_eq(nnz[2], 1e6, 1e-9, "not in the index: the placeholder");
    sp_config_free(&cfg);
}
