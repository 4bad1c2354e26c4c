/* test_gpus.c — `spsweep sweep --gpus LIST`: one shard process per listed
 * GPU (CPU kernels here, so no GPU is needed), merged at the end into the
 * same combinations a single-process sweep runs, each once; run again, it
 * resumes and adds nothing. */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner/scale/shards.h"
#include "testutil.h"
#include "util_shards.h"

Test(gpus, list_runs_one_shard_per_gpu_and_merges)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "%s sweep %s --gpus 0,1 --db %s/multi.db", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "GPU 0: shard 1/2"), "%s", out);
    cr_assert_not_null(strstr(out, "GPU 1: shard 2/2"), "%s", out);
    cr_assert_not_null(strstr(out, "merged 2 shards"), "%s", out);
    free(out);
    char path[600];
    snprintf(path, sizeof path, "%s/gpu-shards/shard-2.db", dir);
    cr_assert_eq(access(path, R_OK), 0, "each shard has its own database");
    rc = us_sh(&out, "%s sweep %s --db %s/single.db --quiet", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char multi[600], single[600];
    snprintf(multi, sizeof multi, "%s/multi.db", dir);
    snprintf(single, sizeof single, "%s/single.db", dir);
    char *a = us_combos(multi), *b = us_combos(single);
    cr_assert_str_eq(a, b);
    free(a);
    rc = us_sh(&out, "%s sweep %s --gpus=0,1 --db %s", tu_spsweep_bin(), cfg, multi);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "0 runs, 9 already there"), "resumed: %s", out);
    free(out);
    a = us_combos(multi);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
}

Test(gpus, bad_lists_refused)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    const char *bad[] = {"0,,1", "x", "-1", ""};
    for (int i = 0; i < 4; i++) {
        int rc = us_sh(&out, "%s sweep %s --gpus '%s' --db %s/x.db", tu_spsweep_bin(), cfg,
                       bad[i], dir);
        cr_assert_eq(rc, 1, "--gpus '%s': %s", bad[i], out);
        cr_assert_not_null(strstr(out, "--gpus"), "%s", out);
        free(out);
    }
    int rc = us_sh(&out, "%s sweep %s --gpus 0 --shard 1/2", tu_spsweep_bin(), cfg);
    cr_assert_eq(rc, 1);
    cr_assert_not_null(strstr(out, "leave out --shard"), "%s", out);
    free(out);
}

/* Inside a Slurm job CUDA_VISIBLE_DEVICES already names the job's GPUs:
 * --gpus numbers are positions in that list, as CUDA numbers them. */
Test(gpus, numbers_map_through_an_inherited_visible_list)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "CUDA_VISIBLE_DEVICES=5,GPU-abc %s sweep %s --gpus 0,1 --db %s/m.db "
                   "--only kernel=spmv_csr_serial", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "GPU 5: shard 1/2"), "%s", out);
    cr_assert_not_null(strstr(out, "GPU GPU-abc: shard 2/2"), "%s", out);
    free(out);
    rc = us_sh(&out, "CUDA_VISIBLE_DEVICES=5 %s sweep %s --gpus 1 --db %s/n.db",
               tu_spsweep_bin(), cfg, dir);
    cr_assert_neq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "GPU 1 is not among CUDA_VISIBLE_DEVICES=5"), "%s", out);
    free(out);
}

/* The shares of the CPUs: disjoint, together all of them, sizes within one
 * of each other, for every shard count up to the CPU count. */
Test(gpus, cpu_shares_split_the_allowed_cpus)
{
    cpu_set_t all;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    int ncpu = CPU_COUNT(&all);
    for (int n = 1; n <= ncpu; n++) {
        cpu_set_t seen;
        CPU_ZERO(&seen);
        int least = ncpu, most = 0;
        for (int k = 0; k < n; k++) {
            cpu_set_t set, both;
            int got = sp_cpu_share(k, n, &set);
            cr_assert_eq(got, CPU_COUNT(&set));
            CPU_AND(&both, &set, &seen);
            cr_assert_eq(CPU_COUNT(&both), 0, "%d shares: share %d overlaps", n, k);
            CPU_OR(&seen, &seen, &set);
            least = got < least ? got : least;
            most = got > most ? got : most;
        }
        cr_assert(CPU_EQUAL(&seen, &all), "%d shares cover the CPUs", n);
        cr_assert_leq(most - least, 1, "%d shares: %d to %d CPUs", n, least, most);
    }
    cpu_set_t none;
    cr_assert_eq(sp_cpu_share(0, ncpu + 1, &none), 0, "more shards than CPUs: no pinning");
    char text[64];
    CPU_ZERO(&none);
    CPU_SET(0, &none), CPU_SET(1, &none), CPU_SET(2, &none), CPU_SET(5, &none);
    sp_cpuset_text(&none, text, sizeof text);
    cr_assert_str_eq(text, "0-2,5");
}

/* Each GPU shard ran on its own CPUs with as many OpenMP threads, and its
 * sweep's provenance says so. */
Test(gpus, each_shard_runs_on_its_own_cpus)
{
    cpu_set_t all;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) < 2) {
        cr_log_info("one CPU: shards are not pinned");
        return;
    }
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "%s sweep %s --gpus 0,1 --db %s/p.db --only kernel=spmv_csr_serial",
                   tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char want[2][256];
    for (int k = 0; k < 2; k++) {
        cpu_set_t set;
        int n = sp_cpu_share(k, 2, &set);
        char cpus[200];
        sp_cpuset_text(&set, cpus, sizeof cpus);
        snprintf(want[k], sizeof want[k], "OMP_NUM_THREADS=%d CPUs=%s", n, cpus);
        rc = us_sh(&out, "sqlite3 %s/gpu-shards/shard-%d.db 'SELECT omp_binding FROM sweeps'",
                   dir, k + 1);
        cr_assert_eq(rc, 0, "%s", out);
        cr_assert_not_null(strstr(out, want[k]), "shard %d: want '%s' in %s", k + 1, want[k],
                           out);
        free(out);
    }
    cr_assert_str_neq(want[0], want[1]);
}

/* Every run of dir/db holds both of its 2 samples (us_small_config: 9
 * runs, 18 samples): nothing lost, nothing stored twice. */
static void assert_all_samples(const char *dir, const char *db)
{
    char *bad, *total;
    int rc = us_sh(&bad, "sqlite3 %s/%s 'SELECT run_id FROM samples GROUP BY run_id "
                   "HAVING count(*) != 2'", dir, db);
    cr_assert_eq(rc, 0, "%s", bad);
    rc = us_sh(&total, "sqlite3 %s/%s 'SELECT count(*) FROM samples'", dir, db);
    cr_assert_eq(rc, 0, "%s", total);
    cr_assert_str_eq(bad, "", "%s: runs without exactly 2 samples: %s", db, bad);
    cr_assert_str_eq(total, "18\n", "%s", db);
    free(bad);
    free(total);
}

/* A shard killed by a signal (kill -9 at its 2nd stored run of each
 * attempt, through the resume tests' hook) is started again on its GPU
 * and resumes: every combination stored once with all its samples, as in
 * a single-process sweep, and the time breakdown names each shard. */
Test(gpus, killed_shard_starts_again_and_resumes)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "SPSWEEP_TEST_KILL_AFTER=2 %s sweep %s --gpus 0,1 --db %s/k.db",
                   tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "GPU 0: shard 1/2 killed by signal 9"), "%s", out);
    cr_assert_not_null(strstr(out, "started again on the same GPU"), "%s", out);
    cr_assert_not_null(strstr(out, "done (exit 0, after a restart)"), "%s", out);
    cr_assert_not_null(strstr(out, "time: GPU 1: shard 2/2"), "%s", out);
    cr_assert_not_null(strstr(out, "the killed attempts"), "%s", out);
    free(out);
    rc = us_sh(&out, "%s sweep %s --db %s/one.db --quiet", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char k[600], one[600];
    snprintf(k, sizeof k, "%s/k.db", dir);
    snprintf(one, sizeof one, "%s/one.db", dir);
    char *a = us_combos(k), *b = us_combos(one);
    cr_assert_str_eq(a, b, "killed and restarted:\n%s\nsingle process:\n%s", a, b);
    free(a);
    free(b);
    assert_all_samples(dir, "k.db");
}

/* A shard that keeps dying is given up after its restarts (exit 1, the
 * runs stored so far merged); the same command run again completes the
 * sweep without storing anything twice. */
Test(gpus, shard_given_up_after_its_restarts_resumes_when_run_again)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "SPSWEEP_TEST_KILL_AFTER=1 %s sweep %s --gpus 0 --db %s/g.db",
                   tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_not_null(strstr(out, "shard 1/1 failed (exit 1, after a restart)"), "%s", out);
    cr_assert_not_null(strstr(out, "merged 1 shards"), "%s", out);
    free(out);
    rc = us_sh(&out, "sqlite3 %s/g.db 'SELECT count(*) FROM runs'", dir);
    cr_assert_str_eq(out, "3\n", "three attempts, one run each: %s", out);
    free(out);
    rc = us_sh(&out, "%s sweep %s --gpus 0 --db %s/g.db", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "6 runs, 3 already there"), "%s", out);
    free(out);
    assert_all_samples(dir, "g.db");
}

/* --read-threads goes to every shard with its value, before or after the
 * config: a good count runs, a bad one is refused by the shards, named. */
Test(gpus, read_threads_forwarded_to_the_shards, .timeout = 120)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "%s sweep --read-threads 1 %s --gpus 0,1 --db %s/r.db --quiet",
                   tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "the value is not taken for the config: %s", out);
    cr_assert_not_null(strstr(out, "merged 2 shards"), "%s", out);
    free(out);
    char bad[300], log[600];
    snprintf(bad, sizeof bad, "%s/bad", dir);
    cr_assert_eq(mkdir(bad, 0755), 0);
    rc = us_sh(&out, "%s sweep %s --read-threads 5000 --gpus 0,1 --db %s/bad.db", tu_spsweep_bin(),
               cfg, bad);
    cr_assert_neq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "shard 1/2 failed"), "%s", out);
    free(out);
    for (int s = 1; s <= 2; s++) {
        snprintf(log, sizeof log, "%s/gpu-shards/shard-%d.log", bad, s);
        char *text = tu_slurp(log, NULL);
        cr_assert_not_null(strstr(text, "--read-threads: expected an integer in 0..4096, not "
                                        "'5000'"), "%s: %s", log, text);
        free(text);
    }
}
