/* test_slurm.c — the sbatch scripts of `spsweep slurm`: exact text for
 * fixed options (deterministic), the resources a timed task asks for
 * (CPUs of the threads axis, whole nodes, account, QOS, constraint, extra
 * options), shell quoting of awkward paths, options refused before
 * anything is written, and `--no-submit` on the CLI. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner/scale/shards.h"
#include "testutil.h"
#include "util_shards.h"

static sp_slurm_opts base(void)
{
    return (sp_slurm_opts){.config = "configs/smoke.ini", .shards = 4, .partition = "gpu",
                           .time_limit = "1:00:00", .gpus_per_task = 1,
                           .cache_dir = "/shared/cache", .out_dir = "results/shards",
                           .bin = "/opt/spsweep/bin/spsweep", .workdir = "/home/u/spsweep"};
}

Test(slurm, array_script_text)
{
    sp_slurm_opts o = base();
    char *text;
    sp_err err;
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(text,
        "#!/bin/bash\n#SBATCH --job-name=spsweep\n"
        "#SBATCH --output=\"results/shards/slurm-%A_%a.out\"\n"
        "#SBATCH --chdir=\"/home/u/spsweep\"\n#SBATCH --ntasks=1\n"
        "#SBATCH --partition=gpu\n#SBATCH --time=1:00:00\n#SBATCH --array=0-3\n"
        "#SBATCH --gpus-per-task=1\n#\n"
        "# spsweep sweep configs/smoke.ini as 4 shards, one per array task, each into its own\n"
        "# database; a task run again resumes its shard. Written by `spsweep slurm`.\n"
        "# Resubmit tasks: sbatch --array=i,j,... THIS_SCRIPT\n"
        "# (`spsweep merge --shards` prints which).\n"
        "set -eu\nshard=$((SLURM_ARRAY_TASK_ID + 1))\n"
        "exec /opt/spsweep/bin/spsweep sweep configs/smoke.ini --shard \"$shard/4\" "
        "--db results/shards/shard-\"$shard\".db --quiet --cache-dir /shared/cache\n");
    char *again;
    cr_assert_eq(sp_slurm_array_script(&o, &again, &err), 0);
    cr_assert_str_eq(text, again, "the script depends only on the options");
    free(text);
    free(again);
}

Test(slurm, fetch_script_text)
{
    sp_slurm_opts o = base();
    o.partition = o.time_limit = NULL, o.cache_dir = NULL;
    char *text;
    sp_err err;
    cr_assert_eq(sp_slurm_fetch_script(&o, &text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(text,
        "#!/bin/bash\n#SBATCH --job-name=spsweep-fetch\n"
        "#SBATCH --output=\"results/shards/slurm-fetch-%j.out\"\n"
        "#SBATCH --chdir=\"/home/u/spsweep\"\n#SBATCH --ntasks=1\n#\n"
        "# Fetch the matrices of configs/smoke.ini once into the shared cache before the\n"
        "# array starts (tasks that still lack one wait on its fetch lock).\n"
        "set -eu\nexec /opt/spsweep/bin/spsweep fetch --config configs/smoke.ini "
        "--db results/shards/fetch.db --quiet\n");
    free(text);
}

Test(slurm, awkward_paths_are_quoted)
{
    sp_slurm_opts o = base();
    o.config = "my configs/it's.ini";
    o.out_dir = "/data/run 1";
    o.bin = "/opt/sp sweep/spsweep";
    char *text;
    sp_err err;
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), 0, "%s", err.msg);
    cr_assert_not_null(strstr(text, "exec '/opt/sp sweep/spsweep' sweep 'my configs/it'\\''s.ini'"
                                    " --shard \"$shard/4\" --db '/data/run 1'/shard-\"$shard\".db"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "#SBATCH --output=\"/data/run 1/slurm-%A_%a.out\"\n"));
    free(text);
    char q[64];
    cr_assert_eq(sp_shell_quote("", q, sizeof q), 0);
    cr_assert_str_eq(q, "''");
    cr_assert_eq(sp_shell_quote("a$b`c", q, sizeof q), 0);
    cr_assert_str_eq(q, "'a$b`c'");
    cr_assert_eq(sp_shell_quote("plain/path-1.ini", q, sizeof q), 0);
    cr_assert_str_eq(q, "plain/path-1.ini");
    cr_assert_eq(sp_shell_quote("'''''", q, 8), -1, "too small a buffer is refused");
}

/* merge --shards re-plans each shard with the cache the tasks used: it
 * reads the --cache-dir back from the array script, quoting undone. */
Test(slurm, cache_dir_read_back_from_the_script)
{
    const char *dirs[] = {"/scratch/me/cache", "/data/it's a cache", "/x/$HOME `y`"};
    for (int i = 0; i < 3; i++) {
        sp_slurm_opts o = base();
        o.cache_dir = dirs[i];
        char *text, back[256];
        sp_err err;
        cr_assert_eq(sp_slurm_array_script(&o, &text, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_slurm_script_cache_dir(text, back, sizeof back), 1, "%s", text);
        cr_assert_str_eq(back, dirs[i]);
        free(text);
    }
    sp_slurm_opts o = base();
    o.cache_dir = NULL;
    char *text, back[256];
    sp_err err;
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_slurm_script_cache_dir(text, back, sizeof back), 0, "none given");
    free(text);
}

Test(slurm, bad_options_refused)
{
    sp_slurm_opts o;
    char *text = NULL;
    sp_err err;
    o = base(), o.partition = "gpu; rm -rf /";
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), -1);
    cr_assert_not_null(strstr(err.msg, "not a valid partition"), "%s", err.msg);
    o = base(), o.time_limit = "1:00 $(x)";
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), -1);
    o = base(), o.out_dir = "a\"b";
    cr_assert_eq(sp_slurm_fetch_script(&o, &text, &err), -1);
    cr_assert_not_null(strstr(err.msg, "double quote"), "%s", err.msg);
    o = base(), o.shards = 0;
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), -1);
    cr_assert_null(text);
}

/* What a timed sweep asks of the cluster: the CPUs of its threads axis,
 * whole nodes, the account, QOS and node features, any extra sbatch
 * options; exact text. The fetch job gets the account, QOS and extra
 * options only (it times nothing). */
Test(slurm, resource_options_text)
{
    sp_slurm_opts o = base();
    const char *extra[] = {"--mem=64G", "--reservation=bench"};
    o.gpus_per_task = 0, o.cpus_per_task = 16, o.exclusive = 1;
    o.account = "proj42", o.qos = "long", o.constraint = "intel&(ib|opa)";
    o.sbatch_args = extra, o.nsbatch_args = 2;
    o.why_cpus = "CPUs per task: 16, the config's largest threads value";
    char *text;
    sp_err err;
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(text,
        "#!/bin/bash\n#SBATCH --job-name=spsweep\n"
        "#SBATCH --output=\"results/shards/slurm-%A_%a.out\"\n"
        "#SBATCH --chdir=\"/home/u/spsweep\"\n#SBATCH --ntasks=1\n"
        "#SBATCH --partition=gpu\n#SBATCH --time=1:00:00\n"
        "#SBATCH --account=proj42\n#SBATCH --qos=long\n#SBATCH --array=0-3\n"
        "#SBATCH --cpus-per-task=16\n#SBATCH --exclusive\n"
        "#SBATCH --constraint=intel&(ib|opa)\n"
        "#SBATCH --mem=64G\n#SBATCH --reservation=bench\n#\n"
        "# spsweep sweep configs/smoke.ini as 4 shards, one per array task, each into its own\n"
        "# database; a task run again resumes its shard. Written by `spsweep slurm`.\n"
        "# Resubmit tasks: sbatch --array=i,j,... THIS_SCRIPT\n"
        "# (`spsweep merge --shards` prints which).\n"
        "# CPUs per task: 16, the config's largest threads value\n"
        "set -eu\nshard=$((SLURM_ARRAY_TASK_ID + 1))\n"
        "exec /opt/spsweep/bin/spsweep sweep configs/smoke.ini --shard \"$shard/4\" "
        "--db results/shards/shard-\"$shard\".db --quiet --cache-dir /shared/cache\n");
    free(text);
    cr_assert_eq(sp_slurm_fetch_script(&o, &text, &err), 0, "%s", err.msg);
    cr_assert(strstr(text, "#SBATCH --account=proj42\n#SBATCH --qos=long\n"
                           "#SBATCH --mem=64G\n#SBATCH --reservation=bench\n#\n"), "%s", text);
    cr_assert(!strstr(text, "--exclusive") && !strstr(text, "--cpus-per-task") &&
                  !strstr(text, "--constraint"), "the fetch job times nothing: %s", text);
    free(text);
    const char *bad[] = {"--mem 64G", "mem=64G", "--comment='x'", "--x=$(id)"};
    for (int i = 0; i < 4; i++) {
        o.sbatch_args = &bad[i], o.nsbatch_args = 1;
        cr_assert_eq(sp_slurm_array_script(&o, &text, &err), -1, "%s accepted", bad[i]);
        cr_assert(strstr(err.msg, "one sbatch option as one word"), "%s", err.msg);
    }
    o.nsbatch_args = 0, o.account = "a b";
    cr_assert_eq(sp_slurm_array_script(&o, &text, &err), -1);
    cr_assert(strstr(err.msg, "not a valid account"), "%s", err.msg);
}

/* The CLI reads the CPUs from the config: the largest threads value, or
 * (threads up to nproc) a whole node; --cpus-per-task and --no-exclusive
 * change that; the options reach the script. */
Test(slurm, cli_asks_for_the_threads_axis_cpus_and_whole_nodes)
{
    char dir[256], cfg[512], nproc_cfg[512], path[600], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);     /* threads = 1,2 */
    int rc = us_sh(&out, "%s slurm %s --shards 2 --out-dir %s/a --no-submit --account p1 "
                   "--qos q --constraint avx512 --sbatch-arg --mem=0 --sbatch-arg "
                   "--requeue", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/a/sweep.sbatch", dir);
    char *text = tu_slurp(path, NULL);
    cr_assert(strstr(text, "#SBATCH --account=p1\n#SBATCH --qos=q\n#SBATCH --array=0-1\n"
                           "#SBATCH --cpus-per-task=2\n#SBATCH --exclusive\n"
                           "#SBATCH --constraint=avx512\n#SBATCH --mem=0\n"
                           "#SBATCH --requeue\n"), "%s", text);
    cr_assert(strstr(text, "# CPUs per task: 2, the config's largest threads value\n"), "%s",
              text);
    free(text);
    rc = us_sh(&out, "%s slurm %s --shards 2 --out-dir %s/b --no-submit --no-exclusive "
               "--cpus-per-task 8", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/b/sweep.sbatch", dir);
    text = tu_slurp(path, NULL);
    cr_assert(strstr(text, "#SBATCH --cpus-per-task=8\n#\n"), "%s", text);
    cr_assert(!strstr(text, "--exclusive"), "%s", text);
    free(text);
    /* threads = 1..nproc: the whole node, whatever its CPUs */
    tu_path(nproc_cfg, sizeof nproc_cfg, dir, "nproc.ini");
    tu_write_file(nproc_cfg, "[matrices]\nsource = gen:laplace2d?n=20\n"
                             "[kernel spmv_csr_omp]\nthreads = 1..nproc\n");
    rc = us_sh(&out, "%s slurm %s --shards 2 --out-dir %s/c --no-submit", tu_spsweep_bin(),
               nproc_cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/c/sweep.sbatch", dir);
    text = tu_slurp(path, NULL);
    cr_assert(strstr(text, "#SBATCH --exclusive\n") && !strstr(text, "--cpus-per-task"), "%s",
              text);
    cr_assert(strstr(text, "threads up to nproc, so the whole node"), "%s", text);
    free(text);
    rc = us_sh(&out, "%s slurm %s --shards 2 --no-submit --sbatch-arg 'a b'", tu_spsweep_bin(),
               cfg);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "one sbatch option as one word"), "%s", out);
    free(out);
}

Test(slurm, cli_no_submit_writes_both_scripts)
{
    char dir[256], cfg[512], *out;
    tu_tempdir(dir, sizeof dir);
    us_small_config(dir, "small.ini", cfg, sizeof cfg);
    int rc = us_sh(&out, "PATH=/nonexistent %s slurm %s --shards 3 --time 5:00 --out-dir "
                   "%s/sh --no-submit", tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "submit with: jid=$(sbatch --parsable"), "%s", out);
    free(out);
    char path[600];
    snprintf(path, sizeof path, "%s/sh/sweep.sbatch", dir);
    cr_assert_eq(access(path, X_OK), 0, "%s written, executable", path);
    snprintf(path, sizeof path, "%s/sh/fetch.sbatch", dir);
    cr_assert_eq(access(path, X_OK), 0);
    rc = us_sh(&out, "%s slurm %s --shards 0 --no-submit", tu_spsweep_bin(), cfg);
    cr_assert_eq(rc, 1);
    cr_assert_not_null(strstr(out, "--shards expects N"), "%s", out);
    free(out);
    rc = us_sh(&out, "PATH=/nonexistent %s slurm %s --shards 2 --out-dir %s/sh2",
               tu_spsweep_bin(), cfg, dir);
    cr_assert_eq(rc, 1, "without sbatch the submission fails: %s", out);
    cr_assert_not_null(strstr(out, "cannot run sbatch"), "%s", out);
    free(out);
}

/* `make slurm` and `make merge` pass their variables on as options. */
Test(slurm, make_targets_pass_variables)
{
    char *out;
    int rc = us_sh(&out, "make -s --no-print-directory -n slurm CONFIG=c.ini SHARDS=4 "
                   "PARTITION=p TIME=1:00 GPUS_PER_TASK=2 CACHE_DIR=/s/c NO_SUBMIT=1");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "bin/spsweep slurm c.ini --shards 4 --out-dir results/shards "
                                   "--partition p --time 1:00 --gpus-per-task 2 --cache-dir /s/c "
                                   "--no-submit\n"), "%s", out);
    free(out);
    rc = us_sh(&out, "make -s --no-print-directory -n merge SHARDS=4 JOB=17 DB=o.db");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "bin/spsweep merge --shards results/shards --expect 4 "
                                   "--job 17 o.db\n"), "%s", out);
    free(out);
    rc = us_sh(&out, "make -s --no-print-directory -n slurm CONFIG=c.ini");
    cr_assert_neq(rc, 0);
    free(out);
}
