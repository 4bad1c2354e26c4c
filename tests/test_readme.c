/* test_readme.c — every ```sql block of docs/database.md (the manual's
 * example queries, linked from README.md) runs against a database
 * that a real sweep filled (CPU kernels, a test kernel that fails its
 * check, a matrix that cannot be loaded) and returns at least one row: the
 * examples users copy keep working as the schema moves. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner/runner.h"
#include "testutil.h"

static int wrong_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)state, (void)ex, (void)err;
    return 0;               /* y never written: the check fails */
}

extern const sp_kernel sp_spmv_csr_serial;

/* docs/database.md into a malloc'd string (run from the repository root). */
static char *readme(void)
{
    return tu_slurp("docs/database.md", NULL);
}

/* Sweep into dir/r.db: 2 loadable matrices, 1 missing, serial + omp + a
 * wrong kernel, 6 repetitions (so the CI columns are set). */
static void fill(const char *dir, char *db, size_t len)
{
    static sp_kernel wrong;
    wrong = sp_spmv_csr_serial;
    wrong.name = "test_readme_wrong", wrong.backend = "test", wrong.launch = wrong_launch;
    const sp_kernel *const extra[] = {&wrong, NULL};
    char text[2048];
    tu_path(db, len, dir, "r.db");
    snprintf(text, sizeof text, "[sweep]\nrepetitions = 6\nwarmup = 1\ndatabase = %s\n"
             "[matrices]\nsource = gen:laplace2d?n=40\nsource = file:%s/missing.mtx\n"
             "source = gen:banded?n=2000&bw=4\n[kernel spmv_csr_serial]\n"
             "[kernel spmv_csr_omp]\nthreads = 1,2\n[kernel test_readme_wrong]\n", db, dir);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("readme.ini", text, extra, &cfg, &err), 0, "%s", err.msg);
    /* the sweep warns about the missing file on stderr: checked, not printed */
    tu_stderr_begin(dir);
    int rc = sp_sweep_run(&cfg, &(sp_sweep_opts){0}, &res, &err);
    char *buf = tu_stderr_end();
    cr_assert_eq(rc, 0, "%s", err.msg);
    sp_config_free(&cfg);
    cr_assert(strstr(buf, "readme.ini:7: file:") && strstr(buf, "missing.mtx"), "%s", buf);
    free(buf);
}

/* Run one query; returns its row count. */
static int rows_of(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s\n%s",
                 sqlite3_errmsg(db), sql);
    int n = 0, step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        n++;
    cr_assert_eq(step, SQLITE_DONE, "%s\n%s", sqlite3_errmsg(db), sql);
    sqlite3_finalize(s);
    return n;
}

Test(readme, every_sql_example_runs_and_returns_rows, .timeout = 60)
{
    char dir[256], db[300];
    tu_tempdir(dir, sizeof dir);
    fill(dir, db, sizeof db);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char *text = readme();
    int blocks = 0;
    for (char *p = strstr(text, "```sql\n"); p; p = strstr(p, "```sql\n")) {
        p += 7;
        char *end = strstr(p, "```");
        cr_assert_not_null(end, "unterminated sql block");
        *end = 0;
        cr_assert_gt(rows_of(h, p), 0, "no rows from the docs/database.md query:\n%s", p);
        blocks++;
        p = end + 3;
    }
    cr_assert_geq(blocks, 6, "docs/database.md lost its example queries (%d found)", blocks);
    free(text);
    sqlite3_close(h);
}

/* README.md is the quick start and a map: every docs/ page it links exists,
 * and every page of docs/ is linked. */
Test(readme, the_map_links_every_manual_page)
{
    char *text = tu_slurp("README.md", NULL);
    static const char *const pages[] = {"matrices", "sweeps", "kernels", "database", "report",
                                        "benchmarks", "cli", "troubleshooting"};
    for (int i = 0; i < (int)(sizeof pages / sizeof *pages); i++) {
        char link[64], path[64];
        snprintf(link, sizeof link, "](docs/%s.md)", pages[i]);
        snprintf(path, sizeof path, "docs/%s.md", pages[i]);
        cr_assert_not_null(strstr(text, link), "README does not link %s", path);
        cr_assert_eq(access(path, R_OK), 0, "%s is linked but missing", path);
    }
    free(text);
}
