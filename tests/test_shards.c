/* test_shards.c — `spsweep merge --shards`: complete shards merged, a
 * missing one, one that stopped short of its part of the plan and one of
 * another shard count each named with the reason, and the sbatch command
 * that resubmits exactly those array tasks; exit 2 until all are there,
 * then 0 with the merged database equal to one unsharded sweep. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util_shards.h"

/* Run shard i/n of cfg into dir/shards/shard-i.db (extra: more options). */
static void run_shard(const char *cfg, const char *dir, int i, int n, const char *extra)
{
    char *out;
    int rc = us_sh(&out, "%s sweep %s --shard %d/%d --db %s/shards/shard-%d.db --quiet %s",
                   tu_spsweep_bin(), cfg, i, n, dir, i, extra);
    cr_assert_eq(rc, 0, "shard %d/%d: %s", i, n, out);
    free(out);
}

Test(shards, missing_and_incomplete_named_then_resubmitted)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    run_shard(cfg, dir, 1, 4, "");
    run_shard(cfg, dir, 3, 4, "--only kernel=spmv_csr_serial");    /* stops short */
    run_shard(cfg, dir, 4, 4, "");
    int rc = us_sh(&out, "%s merge --shards %s/shards --expect 4 %s/all.db", tu_spsweep_bin(),
                   dir, dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "shard 1/4 (array task 0): complete"), "%s", out);
    cr_assert_not_null(strstr(out, "shard 2/4 (array task 1): missing"), "%s", out);
    /* --only kept the one serial run of shard 3's part */
    cr_assert_not_null(strstr(out, "shard 3/4 (array task 2): incomplete: 1 of "), "%s", out);
    cr_assert_not_null(strstr(out, "merged 2 of 4 shards"), "%s", out);
    char want[600];
    snprintf(want, sizeof want, "resubmit: sbatch --array=1,2 %s/shards/sweep.sbatch\n", dir);
    cr_assert_not_null(strstr(out, want), "%s", out);
    free(out);
    run_shard(cfg, dir, 2, 4, "");
    run_shard(cfg, dir, 3, 4, "");      /* resumes: adds what --only left out */
    rc = us_sh(&out, "%s merge --shards %s/shards %s/all.db", tu_spsweep_bin(), dir, dir);
    cr_assert_eq(rc, 0, "N from the shard databases: %s", out);
    cr_assert_null(strstr(out, "resubmit"), "%s", out);
    free(out);
    char single[600], all[600];
    snprintf(single, sizeof single, "%s/single.db", dir);
    snprintf(all, sizeof all, "%s/all.db", dir);
    rc = us_sh(&out, "%s sweep %s --db %s --quiet", tu_spsweep_bin(), cfg, single);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char *a = us_combos(all), *b = us_combos(single);
    cr_assert_str_eq(a, b, "merged shards hold a single sweep's combinations, each once");
    free(a);
    free(b);
}

Test(shards, wrong_shard_count_and_no_databases)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "mkdir -p %s/shards && %s merge --shards %s/shards %s/all.db", dir,
                   tu_spsweep_bin(), dir, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_not_null(strstr(out, "give --expect N"), "%s", out);
    free(out);
    run_shard(cfg, dir, 1, 3, "");
    rc = us_sh(&out, "%s merge --shards %s/shards --expect 2 --script my.sbatch %s/all.db",
               tu_spsweep_bin(), dir, dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "it holds shard 1/3, not 1/2"), "%s", out);
    cr_assert_not_null(strstr(out, "resubmit: sbatch --array=0,1 my.sbatch"), "%s", out);
    cr_assert_not_null(strstr(out, "no complete shard to merge yet"), "%s", out);
    free(out);
    rc = us_sh(&out, "%s merge --shards %s/shards --job 12x", tu_spsweep_bin(), dir);
    cr_assert_eq(rc, 1);
    free(out);
}
