/* test_slurm.c — the sbatch scripts of `spsweep slurm`: exact text for
 * fixed options (deterministic), shell quoting of awkward paths, options
 * refused before anything is written, and `--no-submit` on the CLI. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner/shards.h"
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
