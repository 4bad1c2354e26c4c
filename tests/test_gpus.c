/* test_gpus.c — `spsweep sweep --gpus LIST`: one shard process per listed
 * GPU (CPU kernels here, so no GPU is needed), merged at the end into the
 * same combinations a single-process sweep runs, each once; run again, it
 * resumes and adds nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
