/* test_configs_doc.c — docs/configs.md lists every config that ships
 * (configs/, configs/studies/, bench/), and every config it links exists
 * and loads: a new config without a line there, or a renamed one, fails
 * here. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner/plan/charts.h"
#include "testutil.h"

/* Every *.ini of dir is named as "`dir/NAME.ini`" in the page. */
static void all_listed(const char *page, const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ini"))
            continue;
        char want[512];
        snprintf(want, sizeof want, "`%s/%s`", dir, e->d_name);
        cr_expect_not_null(strstr(page, want), "docs/configs.md does not list %s", want);
        n++;
    }
    closedir(d);
    cr_assert_gt(n, 0, "no config in %s", dir);
}

Test(configs_doc, every_config_is_listed)
{
    char *page = tu_slurp("docs/configs.md", NULL);
    cr_assert_not_null(page);
    all_listed(page, "configs");
    all_listed(page, "configs/studies");
    all_listed(page, "bench");
    free(page);
}

/* Every "](../PATH.ini)" link points at a config that exists and that
 * `spsweep plan` accepts. */
Test(configs_doc, every_listed_config_exists_and_plans, .timeout = 120)
{
    char *page = tu_slurp("docs/configs.md", NULL);
    cr_assert_not_null(page);
    int n = 0;
    for (const char *p = page; (p = strstr(p, "](../"));) {
        p += 5;
        const char *end = strchr(p, ')');
        cr_assert_not_null(end);
        char path[512];
        snprintf(path, sizeof path, "%.*s", (int)(end - p), p);
        if (strlen(path) < 4 || strcmp(path + strlen(path) - 4, ".ini"))
            continue;
        cr_assert_eq(access(path, R_OK), 0, "docs/configs.md links %s, which is not there",
                     path);
        char args[700], *out = NULL;
        snprintf(args, sizeof args, "plan %s", path);
        int rc = tu_run_spsweep(args, &out);
        cr_expect_eq(rc, 0, "spsweep plan %s: exit %d\n%s", path, rc, out ? out : "");
        free(out);
        n++;
    }
    cr_assert_geq(n, 20, "%d configs linked", n);
    free(page);
}

/* The table of [chart] keys ("| `KEY` | ..." rows after the section's
 * heading) holds exactly the keys the config reader takes, each accepted
 * with a value of the table's own example. */
Test(configs_doc, the_chart_keys_table_is_the_readers)
{
    char *page = tu_slurp("docs/configs.md", NULL);
    const char *sec = strstr(page, "## Asking the report for charts: `[chart NAME]`");
    cr_assert_not_null(sec, "docs/configs.md has no [chart NAME] section");
    const char *end = strstr(sec + 3, "\n## ");
    cr_assert_not_null(end);
    int rows = 0;
    for (const char *p = strstr(sec, "\n| `"); p && p < end; p = strstr(p + 1, "\n| `")) {
        char key[32];
        cr_assert_eq(sscanf(p, "\n| `%31[^`]`", key), 1);
        int known = 0;
        for (int i = 0; sp_chart_key_name(i); i++)
            known |= !strcmp(sp_chart_key_name(i), key);
        cr_assert(known, "docs/configs.md documents [chart] key '%s', which the reader refuses",
                  key);
        rows++;
    }
    int keys = 0;
    while (sp_chart_key_name(keys)) {
        char want[48];
        snprintf(want, sizeof want, "\n| `%s` |", sp_chart_key_name(keys));
        const char *at = strstr(sec, want);
        cr_assert(at && at < end, "docs/configs.md does not document [chart] key '%s'",
                  sp_chart_key_name(keys));
        keys++;
    }
    cr_assert_eq(rows, keys, "%d rows, %d keys", rows, keys);
    /* the example in the page is a valid config once it has a kernel and a matrix */
    const char *ini = strstr(sec, "```ini\n"), *close = ini ? strstr(ini + 7, "```") : NULL;
    cr_assert(ini && close && close < end);
    char text[4096];
    snprintf(text, sizeof text, "[matrices]\nsource = gen:laplace2d?n=10\n"
             "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp_simd]\n"
             "[kernel spmv_hll_aligned_omp]\n%.*s", (int)(close - ini - 7), ini + 7);
    char path[600];
    char dir[512];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "example.ini");
    tu_write_file(path, text);
    char args[700], *out = NULL;
    snprintf(args, sizeof args, "plan %s", path);
    int rc = tu_run_spsweep(args, &out);
    cr_assert_eq(rc, 0, "the page's [chart] example:\n%s\n%s", text, out ? out : "");
    free(out);
    free(page);
}
