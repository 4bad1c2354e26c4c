/* test_charts.c — [chart NAME] sections of a config (runner/plan/charts.h):
 * read and checked with the config, each error naming the config line and
 * the nearest valid word; read back from the stored text for the report
 * the same way; the format families `split = family` groups by. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner/plan/charts.h"
#include "../runner/runner.h"

#define HEAD                                                                            \
    "[matrices]\nsource = gen:laplace2d?n=10\n"   /* lines 1-2 */                       \
    "[kernel spmv_csr_serial]\n"                  /* 3 */                               \
    "[kernel spmv_csr_omp_simd]\nthreads = 1,2\n" /* 4-5 */                             \
    "[kernel spmv_hll_aligned_omp]\nthreads = 1,2\nhack = 16,32\n" /* 6-8 */

static void parse_ok(const char *text, sp_config *cfg)
{
    sp_err err = {{0}};
    cr_assert_eq(sp_config_parse("t.ini", text, NULL, cfg, &err), 0, "%s", err.msg);
}

/* The config is refused with "t.ini:LINE:" and a message holding word. */
static void parse_err(const char *text, int line, const char *word)
{
    sp_config cfg;
    sp_err err = {{0}};
    cr_assert_eq(sp_config_parse("t.ini", text, NULL, &cfg, &err), -1, "accepted:\n%s", text);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t.ini:%d:", line);
    cr_assert(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' should start with '%s'",
              err.msg, prefix);
    cr_assert(strstr(err.msg, word), "'%s' lacks '%s'", err.msg, word);
}

Test(charts, every_key_is_read_with_its_line)
{
    sp_config cfg;
    parse_ok(HEAD "[chart gflops-threads]\n"    /* 9 */
                  "y = speedup\n"               /* 10 */
                  "x = threads\n"               /* 11 */
                  "split = family\n"
                  "kernels = spmv_csr_*, *_aligned_*\n"
                  "device = cpu\n"
                  "operation = spmv\n"
                  "baseline = spmv_csr_serial   ; the study's\n"
                  "stat = mean\n"
                  "[chart t.hack]\nx = hack\ny = time\n"    /* 18-20 */
                  "[chart plain]\nx = threads\n",           /* 21-22 */
             &cfg);
    cr_assert_eq(cfg.ncharts, 3);
    const sp_chart_spec *c = &cfg.charts[0];
    cr_assert_str_eq(c->name, "gflops-threads");
    cr_assert_eq(c->line, 9);
    cr_assert_eq(c->y, SP_CHART_SPEEDUP);
    cr_assert_str_eq(c->x, "threads");
    cr_assert_eq(sp_chart_line(c, SP_CHART_KEY_X), 11);
    cr_assert_eq(c->split, SP_CHART_SPLIT_FAMILY);
    cr_assert_str_eq(c->kernels, "spmv_csr_*, *_aligned_*");
    cr_assert_str_eq(c->device, "cpu");
    cr_assert_str_eq(c->operation, "spmv");
    cr_assert_str_eq(c->baseline, "spmv_csr_serial", "inline comment dropped: '%s'",
                     c->baseline);
    cr_assert_eq(c->mean, 1);
    cr_assert(sp_chart_selects(c, "spmv_csr_omp_simd"));
    cr_assert(sp_chart_selects(c, "spmv_hll_aligned_omp"));
    cr_assert_not(sp_chart_selects(c, "spmv_hll_omp_static"));
    cr_assert_str_eq(cfg.charts[1].name, "t.hack");
    cr_assert_eq(cfg.charts[1].y, SP_CHART_TIME);
    cr_assert_str_eq(cfg.charts[1].x, "hack");
    /* the defaults: rate, one chart per matrix, median, every kernel */
    c = &cfg.charts[2];
    cr_assert_eq(c->y, SP_CHART_RATE);
    cr_assert_eq(c->split, SP_CHART_SPLIT_NONE);
    cr_assert_eq(c->mean, 0);
    cr_assert_str_eq(c->device, "");
    cr_assert_str_eq(c->baseline, "");
    cr_assert(sp_chart_selects(c, "anything"));
    cr_assert_eq(sp_chart_line(c, SP_CHART_KEY_Y), 21, "a key not given: the section's line");
    sp_config_free(&cfg);
}

Test(charts, bad_sections_name_their_line_and_the_nearest_word)
{
    parse_err(HEAD "[chart a]\nx = threads\nsplt = family\n", 11,
              "unknown key 'splt' in [chart a]; did you mean split?");
    parse_err(HEAD "[chart a]\nx = threads\ny = rates\n", 11,
              "'y' must be one of rate, time, speedup, not 'rates'; did you mean rate?");
    parse_err(HEAD "[chart a]\nx = threads\nsplit = famly\n", 11, "did you mean family?");
    parse_err(HEAD "[chart a]\nx = threads\ndevice = GPU\n", 11, "'device' must be one of");
    parse_err(HEAD "[chart a]\nx = threads\nstat = average\n", 11, "'stat' must be one of");
    parse_err(HEAD "[chart a]\nx = threads\nx = hack\n", 11, "'x' of [chart a] given twice");
    parse_err(HEAD "[chart a]\nx = thread s\n", 10, "a single name expected");
    parse_err(HEAD "[chart a]\nx = threads\nkernels = spmv_csr_*,,x\n", 11, "an empty entry");
    /* checked against the config's kernels: the key's own line */
    parse_err(HEAD "[chart a]\ny = rate\nx = thread\n", 11,
              "x = thread: no kernel of this config has that axis; did you mean threads?");
    parse_err(HEAD "[chart a]\nx = blocksize\n", 10, "no kernel of this config has that axis");
    parse_err(HEAD "[chart a]\nx = hack\nkernels = spmv_csr_*\n", 10,
              "no kernel the chart selects has that axis");
    parse_err(HEAD "[chart a]\nx = threads\ndevice = gpu\n", 10,
              "no kernel the chart selects has that axis");
    parse_err(HEAD "[chart a]\nx = threads\nkernels = spmv_ell_*\n", 11,
              "kernels: 'spmv_ell_*' matches no kernel of this config");
    parse_err(HEAD "[chart a]\nx = threads\ny = speedup\nbaseline = spmv_csr_seral\n", 12,
              "baseline = spmv_csr_seral is not a kernel of this config; did you mean "
              "spmv_csr_serial?");
    parse_err(HEAD "[chart a]\nx = threads\nbaseline = spmv_csr_serial\n", 9,
              "'baseline' is for y = speedup");
    parse_err(HEAD "[chart a]\nx = threads\noperation = spvm\n", 11, "no such operation");
    /* x = kernel is no axis: any config takes it, but not split */
    parse_err(HEAD "[chart a]\nx = kernel\nsplit = family\n", 11,
              "[chart a]: x = kernel draws every kernel on one chart; split does not apply");
    parse_err(HEAD "[chart a]\ny = rate\n", 9, "[chart a] has no 'x'");
    parse_err(HEAD "[chart a]\nx = threads\n[chart a]\nx = threads\n", 11,
              "chart 'a' appears twice");
    parse_err(HEAD "[chart a/b]\nx = threads\n", 9, "a chart name is 1 to 40");
    parse_err(HEAD "[chart]\nx = threads\n", 9, "a chart name is 1 to 40");
    parse_err(HEAD "[charts a]\nx = threads\n", 9,
              "expected [sweep], [matrices], [fetch], [kernel NAME] or [chart NAME]");
}

/* The report reads the sections back from the stored text: the same
 * values as the config reader, the other sections skipped. */
Test(charts, read_back_from_the_stored_text_as_the_config_reads_them)
{
    const char *text = HEAD "[chart s]\n  y = speedup ; inline\nx: threads\nsplit = kernel\n"
                            "baseline = spmv_csr_serial\n\n[sweep]\nrepetitions = 3\n"
                            "[chart r]\nx = hack\nkernels = *aligned*\n";
    sp_config cfg;
    parse_ok(text, &cfg);
    sp_chart_spec *specs;
    int n;
    sp_err err = {{0}};
    cr_assert_eq(sp_chart_specs_parse("t.ini", text, &specs, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, cfg.ncharts);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(specs[i].name, cfg.charts[i].name);
        cr_assert_eq(specs[i].line, cfg.charts[i].line);
        cr_assert_eq(specs[i].y, cfg.charts[i].y);
        cr_assert_str_eq(specs[i].x, cfg.charts[i].x);
        cr_assert_eq(specs[i].split, cfg.charts[i].split);
        cr_assert_str_eq(specs[i].kernels, cfg.charts[i].kernels);
        cr_assert_str_eq(specs[i].baseline, cfg.charts[i].baseline);
        cr_assert_eq(specs[i].given, cfg.charts[i].given);
    }
    cr_assert_eq(specs[0].y, SP_CHART_SPEEDUP);
    cr_assert_eq(specs[0].split, SP_CHART_SPLIT_KERNEL);
    free(specs);
    sp_config_free(&cfg);

    cr_assert_eq(sp_chart_specs_parse("c.ini", "[sweep]\n[chart q]\ny = rate\n", &specs, &n,
                                      &err), -1);
    cr_assert(strstr(err.msg, "c.ini:2:") && strstr(err.msg, "no 'x'"), "%s", err.msg);
    cr_assert_null(specs);
    cr_assert_eq(sp_chart_specs_parse("c.ini", "[chart q]\nx = threads\nwhy = rate\n", &specs,
                                      &n, &err), -1);
    cr_assert(strstr(err.msg, "c.ini:3:") && strstr(err.msg, "did you mean y?"), "%s",
              err.msg);
    cr_assert_eq(sp_chart_specs_parse("c.ini", "[sweep]\nrepetitions = 2\n", &specs, &n, &err),
                 0);
    cr_assert_eq(n, 0);
    cr_assert_null(specs);
}

Test(charts, families_keep_hll_aligned_apart_from_hll)
{
    char f[64];
    sp_chart_family("spmv_hll_aligned_omp_static", "hll", f, sizeof f);
    cr_assert_str_eq(f, "hll-aligned");
    sp_chart_family("spmv_hll_cuda_aligned", "hll", f, sizeof f);
    cr_assert_str_eq(f, "hll-aligned");
    sp_chart_family("spmv_hll_omp_dynamic", "hll", f, sizeof f);
    cr_assert_str_eq(f, "hll");
    sp_chart_family("spmv_csr_omp_simd_auto", "csr", f, sizeof f);
    cr_assert_str_eq(f, "csr");
    sp_chart_family("sort_qsort", "", f, sizeof f);
    cr_assert_str_eq(f, "other");
}

/* Every study config's charts are valid against its own kernels. */
Test(charts, the_study_configs_ask_for_their_figures)
{
    sp_config cfg;
    sp_err err = {{0}};
    cr_assert_eq(sp_config_load("configs/studies/002-spmv-csr-hll.ini", NULL, &cfg, &err), 0,
                 "%s", err.msg);
    int threads_family = 0, block_family = 0, speedup_threads = 0, speedup_block = 0;
    for (int i = 0; i < cfg.ncharts; i++) {
        const sp_chart_spec *c = &cfg.charts[i];
        int family = c->split == SP_CHART_SPLIT_FAMILY;
        threads_family |= c->y == SP_CHART_RATE && !strcmp(c->x, "threads") && family;
        block_family |= c->y == SP_CHART_RATE && !strcmp(c->x, "blocksize") && family;
        speedup_threads |= c->y == SP_CHART_SPEEDUP && !strcmp(c->x, "threads") &&
                           !strcmp(c->baseline, "spmv_csr_serial");
        speedup_block |= c->y == SP_CHART_SPEEDUP && !strcmp(c->x, "blocksize");
    }
    cr_assert(threads_family && block_family && speedup_threads && speedup_block,
              "002: GFLOPS against threads and block size per family, speedup against both");
    sp_config_free(&cfg);
    cr_assert_eq(sp_config_load("configs/studies/004-quicksort.ini", NULL, &cfg, &err), 0,
                 "%s", err.msg);
    int time_window = 0, rate_window = 0;
    for (int i = 0; i < cfg.ncharts; i++) {
        time_window |= cfg.charts[i].y == SP_CHART_TIME && !strcmp(cfg.charts[i].x, "window");
        rate_window |= cfg.charts[i].y == SP_CHART_RATE && !strcmp(cfg.charts[i].x, "window");
    }
    cr_assert(time_window && rate_window, "004: runtime and keys/s against the window");
    sp_config_free(&cfg);
}
