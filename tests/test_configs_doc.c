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
