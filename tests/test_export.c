/* test_export.c — `spsweep export`: the JSON document is valid and carries
 * the view's values; CSV has a header, one line per row, and quotes fields
 * the way the sqlite3 shell does. Also the sweep command's --dry-run,
 * --only and --shard through the binary. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../db/store.h"
#include "testutil.h"
#include "util_db.h"

static const sp_kernel k_omp = {.name = "spmv_csr_omp", .operation = "spmv",
                                .format = "csr", .backend = "openmp"};

/* A database with one sweep: two ok runs and a skipped one. */
static void make_db(char *path, size_t len)
{
    char dir[256];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, len, dir, "e.db");
    sp_store *st;
    sp_err err;
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    sp_sweep_meta m;
    sp_sweep_meta_init(&m);
    int64_t sw, mx;
    cr_assert_eq(sp_store_begin_sweep(st, &m, &sw, &err), 0, "%s", err.msg);
    sp_matrix M;
    memset(&M, 0, sizeof M);
    snprintf(M.src.text, sizeof M.src.text, "gen:e");
    snprintf(M.src.name, sizeof M.src.name, "e, \"quoted\"");
    M.feat.size_class = "small";
    cr_assert_eq(sp_store_matrix(st, &M, &mx, &err), 0, "%s", err.msg);
    const double s1[] = {2, 4, 3}, s2[] = {1.5};
    const char *axes[] = {"{\"threads\":1}", "{\"threads\":2}"};
    const double *s[] = {s1, s2};
    for (int i = 0; i < 2; i++) {
        sp_run_record r = {.sweep_id = sw, .matrix_id = mx, .kernel = &k_omp,
                           .axes_json = axes[i], .status = "ok", .flops = 6e9,
                           .nsamples = i ? 1 : 3, .samples = s[i]};
        cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
    }
    sp_store_close(st);
}

/* Export into a malloc'd string. */
static char *export(const char *db, const char *what, int json)
{
    FILE *f = tmpfile();
    sp_err err;
    cr_assert_eq(sp_store_export(db, what, 0, json, f, &err), 0, "%s", err.msg);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

/* A value of the JSON text through SQLite's JSON functions. */
static double json_num(const char *json, const char *path)
{
    sqlite3 *h;
    sqlite3_stmt *s;
    sqlite3_open(":memory:", &h);
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT json_extract(?1, ?2)", -1, &s, NULL), SQLITE_OK);
    sqlite3_bind_text(s, 1, json, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    double v = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return v;
}

Test(export, json_is_one_array_with_the_views_values)
{
    char db[300];
    make_db(db, sizeof db);
    char *j = export(db, NULL, 1);
    cr_assert_eq(json_num(j, "$[#-1].run_id"), 2, "%s", j);
    cr_assert_eq(json_num(j, "$[0].median"), 3, "median of 2, 4, 3");
    cr_assert_eq(json_num(j, "$[0].rate"), 2, "6e9 / 3 / 1e9");
    cr_assert_eq(json_num(j, "$[1].n"), 1);
    cr_assert(strstr(j, "\"ci_lo\":null"), "%s", j);
    free(j);
    j = export(db, "samples", 1);
    cr_assert_eq(json_num(j, "$[2].seconds"), 3);
    free(j);
}

Test(export, csv_header_rows_and_quoting)
{
    char db[300];
    make_db(db, sizeof db);
    char *c = export(db, NULL, 0);
    cr_assert(!strncmp(c, "run_id,sweep_id,matrix_id,matrix,kernel,", 40), "%s", c);
    int lines = 0;
    for (char *p = c; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 3, "header + 2 runs:\n%s", c);
    cr_assert(strstr(c, ",\"e, \"\"quoted\"\"\",spmv_csr_omp,"), "%s", c);
    cr_assert(strstr(c, ",\"{\"\"threads\"\":2}\","), "%s", c);
    free(c);
    FILE *f = tmpfile();
    sp_err err;
    cr_assert_eq(sp_store_export(db, "bogus", 0, 0, f, &err), -1);
    cr_assert(strstr(err.msg, "unknown --what 'bogus'"), "%s", err.msg);
    fclose(f);
}

/* bin/spsweep ARGS with stderr merged into a malloc'd string; exit status. */
static int cli(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", tu_spsweep_bin(), args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, p);
    buf[n] = 0;
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

Test(export, cli_dry_run_only_shard_and_export, .timeout = 60)
{
    char dir[256], db[300], args[1024], *out;
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "c.db");
    snprintf(args, sizeof args, "sweep configs/smoke.ini --db %s --dry-run --only "
             "'kernel=spmv_csr_omp' --shard 1/1", db);
    cr_assert_eq(cli(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "# 4 of 12 runs"), "%s", out);
    cr_assert_eq(access(db, F_OK), -1, "a dry run writes nothing");
    free(out);
    snprintf(args, sizeof args, "sweep configs/smoke.ini --db %s --only 'kernel=spmv_csr_*,"
             "matrix=laplace*' --repetitions 2", db);
    cr_assert_eq(cli(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "export --json --db %s", db);
    cr_assert_eq(cli(args, &out), 0, "%s", out);
    cr_assert(out[0] == '[' && strstr(out, "\"kernel\":\"spmv_csr_omp\""), "%s", out);
    free(out);
    snprintf(args, sizeof args, "export --csv --json --db %s", db);
    cr_assert_eq(cli(args, &out), 1, "%s", out);
    free(out);
    cr_assert_eq(cli("sweep configs/smoke.ini --shard 3/2 --dry-run", &out), 1, "%s", out);
    cr_assert(strstr(out, "--shard expects i/N"), "%s", out);
    free(out);
}
