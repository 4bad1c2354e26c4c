/* test_slurm_cluster.c — `spsweep slurm` against a real single-node Slurm
 * cluster (tests/slurm/cluster.sh: Debian's munged, slurmctld and slurmd
 * on loopback, everything in a temporary directory, started and stopped
 * here). Skipped with one line where it cannot start (packages missing,
 * not root, daemons not up in time), never failed for that.
 *
 * 1. A 4-shard job array (after its fetch job), merged: exactly the
 *    combinations of a single-process sweep, each once.
 * 2. One array task cancelled before it runs: `merge --shards` names that
 *    shard and prints the resubmit command; running that command and
 *    merging again ends with the complete database. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "util_shards.h"

static char dir[256];       /* per test: Criterion runs each in its own process */

static void cluster_stop(void)
{
    char *out;
    if (dir[0]) {
        us_sh(&out, "tests/slurm/cluster.sh stop %s/cluster", dir);
        free(out);
    }
}

/* Start the cluster, or skip the test with the script's one line. */
static void cluster_start(void)
{
    char *out, conf[400];
    tu_tempdir(dir, sizeof dir);
    int rc = us_sh(&out, "tests/slurm/cluster.sh start %s/cluster", dir);
    if (rc == 77) {
        fprintf(stderr, "%s", out);
        cr_skip_test("%s", out);
    }
    cr_assert_eq(rc, 0, "cluster.sh: %s", out);
    free(out);
    snprintf(conf, sizeof conf, "%s/cluster/slurm.conf", dir);
    setenv("SLURM_CONF", conf, 1);
}

/* Wait until Slurm holds no job (90 s at most). */
static void wait_idle(void)
{
    time_t end = time(NULL) + 90;
    for (;;) {
        char *out;
        int rc = us_sh(&out, "squeue -h -o %%i");
        int empty = rc == 0 && out[strspn(out, " \n")] == 0;
        free(out);
        if (empty)
            return;
        cr_assert_lt(time(NULL), end, "jobs still queued after 90 s");
        usleep(300000);
    }
}

/* `spsweep slurm` of a small config into dir/shards; the array's job id. */
static long submit(char *cfg, size_t len)
{
    char *out;
    us_small_config(dir, "small.ini", cfg, len);
    int rc = us_sh(&out, "%s slurm %s --shards 4 --partition debug --time 5:00 --cache-dir "
                   "%s/cache --out-dir %s/shards", tu_spsweep_bin(), cfg, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    const char *at = strstr(out, "job array ");
    cr_assert_not_null(at, "%s", out);
    long job = strtol(at + 10, NULL, 10);
    cr_assert_gt(job, 0, "%s", out);
    free(out);
    return job;
}

/* The merged database equals a single-process sweep of cfg. */
static void check_complete(const char *cfg)
{
    char *out, merged[400], single[400];
    snprintf(merged, sizeof merged, "%s/all.db", dir);
    snprintf(single, sizeof single, "%s/single.db", dir);
    int rc = us_sh(&out, "%s sweep %s --db %s --quiet", tu_spsweep_bin(), cfg, single);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char *a = us_combos(merged), *b = us_combos(single);
    cr_assert_str_eq(a, b, "merged array = single sweep, each combination once");
    cr_assert_eq(strlen(a) > 0 && strchr(a, '\n') != NULL, 1);
    free(a);
    free(b);
}

TestSuite(slurm_cluster, .init = cluster_start, .fini = cluster_stop, .timeout = 150);

Test(slurm_cluster, four_shard_array_merges_to_single_sweep)
{
    char cfg[400], *out;
    long job = submit(cfg, sizeof cfg);
    wait_idle();
    int rc = us_sh(&out, "%s merge --shards %s/shards --expect 4 --job %ld %s/all.db",
                   tu_spsweep_bin(), dir, job, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "merged 4 of 4 shards"), "%s", out);
    free(out);
    check_complete(cfg);
}

Test(slurm_cluster, cancelled_task_named_and_resubmitted)
{
    char cfg[400], *out;
    /* partition down: the array waits, so cancelling task 2 cannot race it */
    int rc = us_sh(&out, "scontrol update PartitionName=debug State=DOWN");
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    long job = submit(cfg, sizeof cfg);
    rc = us_sh(&out, "scancel %ld_2 && scontrol update PartitionName=debug State=UP", job);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    wait_idle();
    rc = us_sh(&out, "%s merge --shards %s/shards --expect 4 --job %ld %s/all.db",
               tu_spsweep_bin(), dir, job, dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "shard 3/4 (array task 2): missing"), "%s", out);
    char *cmd = strstr(out, "resubmit: ");
    cr_assert_not_null(cmd, "%s", out);
    cmd += strlen("resubmit: ");
    cmd[strcspn(cmd, "\n")] = 0;
    char want[400];
    snprintf(want, sizeof want, "sbatch --array=2 %s/shards/sweep.sbatch", dir);
    cr_assert_str_eq(cmd, want);
    char *sub;
    rc = us_sh(&sub, "%s", cmd);
    cr_assert_eq(rc, 0, "%s: %s", cmd, sub);
    free(sub);
    free(out);
    wait_idle();
    rc = us_sh(&out, "%s merge --shards %s/shards --expect 4 %s/all.db", tu_spsweep_bin(),
               dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "merged 4 of 4 shards"), "%s", out);
    free(out);
    check_complete(cfg);
}
