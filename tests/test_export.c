/* test_export.c — `spsweep export`: the JSON document is valid and carries
 * the view's values, with axes and kernel_info as JSON objects (checked by
 * SQLite and by Python's json); CSV has a header, one line per row, and
 * quotes fields the way the sqlite3 shell does; Markdown has a header, an
 * alignment row and one row per run, pipes escaped; the Google Benchmark
 * export has the structure its JSON reporter writes and compare.py reads
 * (tests/gbench_check.py) and picks a time unit. Also the sweep command's --dry-run,
 * --only and --shard through the binary, and export and report of a
 * read-only database (a file without write permission, in a directory
 * without write permission, of an older schema version). */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
#include "../plots/report.h"
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
    cr_assert_eq(sp_store_matrix(st, sp_matrix_identity(&M), &mx, &err), 0, "%s", err.msg);
    const double s1[] = {2, 4, 3}, s2[] = {1.5};
    const char *axes[] = {"{\"threads\":1}", "{\"threads\":2}"};
    const double *s[] = {s1, s2};
    for (int i = 0; i < 2; i++) {
        sp_run_record r = {.sweep_id = sw, .matrix_id = mx, .kernel = sp_kernel_identity(&k_omp),
                           .axes_json = axes[i], .status = SP_RUN_OK, .flops = 6e9,
                           .nsamples = i ? 1 : 3, .samples = s[i],
                           .kernel_info = i ? NULL : "{\"tuned\":true,\"blocks\":[1,2]}"};
        cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
    }
    sp_store_close(st);
}

/* Export (format SP_EXPORT_*) into a malloc'd string. */
static char *export(const char *db, const char *what, int format)
{
    FILE *f = tmpfile();
    sp_err err;
    cr_assert_eq(sp_store_export(db, what, 0, format, f, &err), 0, "%s", err.msg);
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
    /* the JSON-valued columns are objects, not strings holding JSON */
    cr_assert_eq(json_num(j, "$[1].axes.threads"), 2, "%s", j);
    cr_assert_eq(json_num(j, "$[0].kernel_info.blocks[1]"), 2, "%s", j);
    cr_assert(strstr(j, "\"axes\":{\"threads\":1}"), "%s", j);
    cr_assert(strstr(j, "\"kernel_info\":{\"tuned\":true,\"blocks\":[1,2]}"), "%s", j);
    cr_assert(strstr(j, "\"kernel_info\":null"), "%s", j);
    free(j);
    j = export(db, "runs", 1);
    cr_assert_eq(json_num(j, "$[0].axes.threads"), 1, "%s", j);
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

/* The number of unescaped '|' in line [p, end). */
static int md_pipes(const char *p, const char *end)
{
    int n = 0;
    for (; p < end; p++) {
        if (*p == '\\' && p + 1 < end)
            p++;
        else if (*p == '|')
            n++;
    }
    return n;
}

Test(export, markdown_header_alignment_one_row_per_run_pipes_escaped)
{
    char db[300];
    make_db(db, sizeof db);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    ud_exec(h, "UPDATE matrices SET name = 'a|b\\c' || char(10) || 'd'");
    sqlite3_close(h);
    char *m = export(db, NULL, SP_EXPORT_MARKDOWN);
    cr_assert(!strncmp(m, "| run_id | sweep_id | matrix_id | matrix | kernel |", 51), "%s", m);
    int lines = 0, cols = -1;
    for (char *p = m, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        cr_assert_not_null(nl, "the last line ends with a newline:\n%s", m);
        cr_assert(p[0] == '|' && nl[-1] == '|', "line %d: %.*s", lines, (int)(nl - p), p);
        int pipes = md_pipes(p, nl);
        if (cols < 0)
            cols = pipes;
        cr_assert_eq(pipes, cols, "line %d has %d cells, the header %d:\n%s", lines, pipes - 1,
                     cols - 1, m);
        lines++;
    }
    cr_assert_eq(lines, 4, "header, alignment, 2 runs:\n%s", m);
    cr_assert(strstr(m, "\n| ---: | ---: | ---: | --- | --- |"), "ids right-aligned:\n%s", m);
    cr_assert(strstr(m, "| a\\|b\\\\c<br>d | spmv_csr_omp |"), "%s", m);
    cr_assert(strstr(m, "| {\"threads\":2} |"), "%s", m);
    cr_assert(strstr(m, "| 3 | 3 | 2 | 4 |"), "n, median, min, max of run 1:\n%s", m);
    free(m);
    m = export(db, "samples", SP_EXPORT_MARKDOWN);
    cr_assert(!strcmp(m, "| run_id | rep | seconds |\n| ---: | ---: | ---: |\n| 1 | 0 | 2 |\n"
                         "| 1 | 1 | 4 |\n| 1 | 2 | 3 |\n| 2 | 0 | 1.5 |\n"), "%s", m);
    free(m);
}

/* python3 tests/gbench_check.py on a Google Benchmark export; its output. */
static int gbench_check(const char *json, int runs, char **out)
{
    char dir[256], path[300], cmd[700];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "gbench.json");
    tu_write_file(path, json);
    snprintf(cmd, sizeof cmd, "python3 tests/gbench_check.py %s %d 2>&1", path, runs);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    *out = calloc(1, 1 << 16);
    size_t n = fread(*out, 1, (1 << 16) - 1, p);
    (*out)[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The text of a JSON value through SQLite's JSON functions ("" for NULL). */
static void json_text(const char *json, const char *path, char *buf, size_t len)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT coalesce(json_extract(?1, ?2), '')", -1, &s,
                                    NULL), SQLITE_OK);
    sqlite3_bind_text(s, 1, json, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    snprintf(buf, len, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(h);
}

Test(export, gbench_structure_names_times_and_aggregates)
{
    char db[300], t[256];
    make_db(db, sizeof db);
    char *g = export(db, NULL, SP_EXPORT_GBENCH), *out;
    cr_assert_eq(gbench_check(g, 2, &out), 0, "%s\n%s", out, g);
    free(out);
    /* run 1: samples 2, 4, 3 (median 3 s); run 2: one sample of 1.5 s, so
     * the fastest reads 1500 ms: milliseconds */
    json_text(g, "$.benchmarks[0].name", t, sizeof t);
    cr_assert_str_eq(t, "spmv_csr_omp/e, \"quoted\"/threads=1");
    json_text(g, "$.benchmarks[0].time_unit", t, sizeof t);
    cr_assert_str_eq(t, "ms");
    cr_assert_eq(json_num(g, "$.benchmarks[0].real_time"), 3000);
    cr_assert_eq(json_num(g, "$.benchmarks[0].cpu_time"), 3000);
    cr_assert_eq(json_num(g, "$.benchmarks[0].iterations"), 3, "batch 1 x 3 samples");
    cr_assert_eq(json_num(g, "$.benchmarks[0].repetitions"), 3);
    cr_assert_eq(json_num(g, "$.benchmarks[0].GFLOPS"), 2, "6e9 / 3 s");
    /* then its aggregates, as Google Benchmark orders them */
    static const char *const aggs[] = {"mean", "median", "stddev", "cv"};
    for (int i = 0; i < 4; i++) {
        char path[64], want[128];
        snprintf(path, sizeof path, "$.benchmarks[%d].name", i + 1);
        json_text(g, path, t, sizeof t);
        snprintf(want, sizeof want, "spmv_csr_omp/e, \"quoted\"/threads=1_%s", aggs[i]);
        cr_assert_str_eq(t, want);
    }
    cr_assert_eq(json_num(g, "$.benchmarks[1].real_time"), 3000, "mean of 2, 4, 3 s");
    cr_assert_eq(json_num(g, "$.benchmarks[3].real_time"), 1000, "stddev of 2, 4, 3 s");
    json_text(g, "$.benchmarks[4].aggregate_unit", t, sizeof t);
    cr_assert_str_eq(t, "percentage");
    cr_assert_eq(json_num(g, "$.benchmarks[2].GFLOPS"), 2, "the median carries the counters");
    /* one sample: no aggregates, no interval counters */
    json_text(g, "$.benchmarks[5].name", t, sizeof t);
    cr_assert_str_eq(t, "spmv_csr_omp/e, \"quoted\"/threads=2");
    json_text(g, "$.benchmarks[6]", t, sizeof t);
    cr_assert_str_eq(t, "");
    json_text(g, "$.benchmarks[5].ci_lo", t, sizeof t);
    cr_assert_str_eq(t, "", "a NULL counter is left out, not null");
    cr_assert_null(strstr(g, "null"), "%s", g);
    json_text(g, "$.context.json_schema_version", t, sizeof t);
    cr_assert_str_eq(t, "1");
    free(g);
    /* a unit given, and refusals */
    FILE *f = tmpfile();
    sp_err err;
    cr_assert_eq(sp_store_export_gbench(db, 0, "us", f, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_store_export_gbench(db, 0, "hours", f, &err), -1);
    cr_assert(strstr(err.msg, "unknown --time-unit 'hours'"), "%s", err.msg);
    cr_assert_eq(sp_store_export(db, "samples", 0, SP_EXPORT_GBENCH, f, &err), -1);
    cr_assert(strstr(err.msg, "run_stats only"), "%s", err.msg);
    rewind(f);
    char buf[4096] = {0};
    cr_assert_gt(fread(buf, 1, sizeof buf - 1, f), 0);
    json_text(buf, "$.benchmarks[0].time_unit", t, sizeof t);
    cr_assert_str_eq(t, "us");
    cr_assert_eq(json_num(buf, "$.benchmarks[0].real_time"), 3e6);
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
    /* Python's json reads the axes back as objects */
    snprintf(args, sizeof args, "export --json --db %s | python3 -c 'import json, sys; "
             "d = json.load(sys.stdin); assert all(isinstance(r[\"axes\"], dict) for r in d);"
             " print(len(d), sorted({r[\"axes\"].get(\"threads\", 0) for r in d}))'", db);
    cr_assert_eq(cli(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "3 [0, 1, 2]"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "export --markdown --db %s", db);
    cr_assert_eq(cli(args, &out), 0, "%s", out);
    int lines = 0;
    for (char *p = out; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 2 + 3, "header, alignment and 3 runs:\n%s", out);
    free(out);
    snprintf(args, sizeof args, "export --gbench --time-unit ns --db %s", db);
    cr_assert_eq(cli(args, &out), 0, "%s", out);
    char *check;
    cr_assert_eq(gbench_check(out, 3, &check), 0, "%s\n%s", check, out);
    free(check);
    cr_assert(strstr(out, "\"name\":\"spmv_csr_omp/laplace2d_n64/threads=2\""), "%s", out);
    cr_assert(strstr(out, "\"time_unit\":\"ns\""), "%s", out);
    free(out);
    snprintf(args, sizeof args, "export --csv --json --db %s", db);
    cr_assert_eq(cli(args, &out), 1, "%s", out);
    free(out);
    snprintf(args, sizeof args, "export --csv --time-unit us --db %s", db);
    cr_assert_eq(cli(args, &out), 1, "%s", out);
    cr_assert(strstr(out, "--time-unit goes with --gbench"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "export --gbench --what failures --db %s", db);
    cr_assert_eq(cli(args, &out), 1, "%s", out);
    free(out);
    cr_assert_eq(cli("sweep configs/smoke.ini --shard 3/2 --dry-run", &out), 1, "%s", out);
    cr_assert(strstr(out, "--shard expects i/N"), "%s", out);
    free(out);
}

/* Copy the file src to dst. */
static void copy_file(const char *src, const char *dst)
{
    size_t n;
    char *buf = tu_slurp(src, &n);
    FILE *f = fopen(dst, "wb");
    cr_assert_not_null(f, "cannot write %s", dst);
    cr_assert_eq(fwrite(buf, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    free(buf);
}

/* The file at path has exactly the n bytes of want. */
static void assert_same_bytes(const char *path, const char *want, size_t n, const char *after)
{
    size_t got_n;
    char *got = tu_slurp(path, &got_n);
    cr_assert(got_n == n && memcmp(got, want, n) == 0, "%s changed after %s", path, after);
    free(got);
}

/* Root writes a 0444 file anyway: the bytes staying the same is what
 * shows that export and report opened it read-only (before, opening set
 * WAL mode and dropped and re-created the views in the file). */
Test(export, read_only_file_exported_and_reported_unchanged, .timeout = 120)
{
    char src[300], dir[256], db[300], out[300];
    make_db(src, sizeof src);
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "archived.db");
    tu_path(out, sizeof out, dir, "report");
    copy_file(src, db);
    cr_assert_eq(chmod(db, 0444), 0);
    size_t n;
    char *before = tu_slurp(db, &n);
    char *j = export(db, NULL, 1);
    cr_assert_eq(json_num(j, "$[0].median"), 3, "%s", j);
    free(j);
    assert_same_bytes(db, before, n, "export");
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    assert_same_bytes(db, before, n, "report");
    char pdf[400];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    cr_assert_eq(access(pdf, R_OK), 0, "no %s", pdf);
    /* the connection itself is read-only; the views are its TEMP ones */
    sp_store *st;
    cr_assert_eq(sp_store_open_readonly(db, &st, &err), 0, "%s", err.msg);
    sqlite3 *h = sp_store_db(st);
    cr_assert_eq(sqlite3_db_readonly(h, "main"), 1);
    cr_assert_eq(ud_int(h, "SELECT COUNT(*) FROM temp.sqlite_master WHERE type = 'view'", 0),
                 ud_int(h, "SELECT COUNT(*) FROM main.sqlite_master WHERE type = 'view'", 0));
    cr_assert_neq(sqlite3_exec(h, "DELETE FROM samples", NULL, NULL, NULL), SQLITE_OK);
    sp_store_close(st);
    assert_same_bytes(db, before, n, "a write refused");
    free(before);
}

/* A read-only file without the views (a foreign or trimmed copy) is read
 * through this build's TEMP views. */
Test(export, read_only_file_without_views_read_through_temp_views)
{
    char src[300], dir[256], db[300];
    make_db(src, sizeof src);
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "bare.db");
    copy_file(src, db);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    ud_exec(h, "DROP VIEW failures; DROP VIEW run_modes; DROP VIEW run_failures;"
               " DROP VIEW best_runs; DROP VIEW speedup; DROP VIEW run_stats;"
               " PRAGMA journal_mode = DELETE");
    sqlite3_close(h);
    cr_assert_eq(chmod(db, 0444), 0);
    size_t n;
    char *before = tu_slurp(db, &n);
    char *j = export(db, "best_runs", 1);
    cr_assert(strstr(j, "\"kernel\":\"spmv_csr_omp\""), "%s", j);
    free(j);
    assert_same_bytes(db, before, n, "export");
    free(before);
}

/* A version-1 database that is read-only (the schema-v1 files of
 * tests/data): export reads it through a copy migrated in memory; the file
 * keeps its bytes and its version. */
Test(export, read_only_old_schema_read_through_a_migrated_copy, .timeout = 60)
{
    char dir[256], db[300], path[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "v1.db");
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    static const char *const files[] = {"schema-v1/schema.sql", "schema-v1/views.sql"};
    for (int i = 0; i < 2; i++) {
        size_t n;
        snprintf(path, sizeof path, "%s/%s", tu_datadir(), files[i]);
        char *sql = tu_slurp(path, &n);
        ud_exec(h, sql);
        free(sql);
    }
    ud_exec(h, "INSERT INTO sweeps (id, config_text, started_at, status, repetitions)"
               " VALUES (7, 'old', '2024-01-01T00:00:00.000Z', 'done', 3);"
               "INSERT INTO matrices (id, source, name, rows, cols, nnz, checksum)"
               " VALUES (3, 'gen:old', 'old', 2, 2, 2, '0123456789abcdef');"
               "INSERT INTO runs (id, sweep_id, matrix_id, kernel, operation, backend,"
               " axes, status, flops, warmup, repetitions, created_at) VALUES"
               " (11, 7, 3, 'spmv_csr_serial', 'spmv', 'serial', '{}', 'ok', 4e9, 1, 3,"
               " 'now');"
               "INSERT INTO samples VALUES (11, 0, 3.0), (11, 1, 1.0), (11, 2, 2.0);");
    cr_assert_eq(ud_int(h, "PRAGMA user_version", 0), 1);
    sqlite3_close(h);
    cr_assert_eq(chmod(db, 0444), 0);
    size_t n;
    char *before = tu_slurp(db, &n);
    char *j = export(db, NULL, 1);
    cr_assert_eq(json_num(j, "$[0].median"), 2, "median of 3, 1, 2: %s", j);
    cr_assert_eq(json_num(j, "$[0].rate"), 2, "4e9 / 2 / 1e9: %s", j);
    free(j);
    assert_same_bytes(db, before, n, "export");
    free(before);
}

/* The binary as a user without write permission: the database (0444) in
 * a directory without write permission, the report into another one. As
 * root, which permissions do not stop, it runs as nobody (setpriv). */
Test(export, read_only_directory_as_another_user, .timeout = 120)
{
    char src[300], top[256], ro[300], db[400], out[300], args[2048];
    make_db(src, sizeof src);
    tu_tempdir(top, sizeof top);
    tu_path(ro, sizeof ro, top, "archive");
    tu_path(db, sizeof db, ro, "results.db");
    tu_path(out, sizeof out, top, "report");
    cr_assert_eq(mkdir(ro, 0755), 0);
    cr_assert_eq(mkdir(out, 0777), 0);
    copy_file(src, db);
    cr_assert_eq(chmod(db, 0444), 0);
    cr_assert_eq(chmod(ro, 0555), 0);
    cr_assert_eq(chmod(top, 0755), 0);
    cr_assert_eq(chmod(out, 0777), 0);
    const char *as = "";
    if (geteuid() == 0) {
        if (access("/usr/bin/setpriv", X_OK) != 0)
            cr_skip_test("root without setpriv: directory permissions are not enforced");
        as = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ";
    }
    size_t n;
    char *before = tu_slurp(db, &n), *o;
    snprintf(args, sizeof args, "%s%s export --csv --db %s 2>&1", as, tu_spsweep_bin(), db);
    FILE *p = popen(args, "r");
    cr_assert_not_null(p);
    o = calloc(1, 1 << 16);
    size_t got = fread(o, 1, (1 << 16) - 1, p);
    o[got] = 0;
    int st = pclose(p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s\n%s", args, o);
    cr_assert(strstr(o, "spmv_csr_omp"), "%s", o);
    free(o);
    snprintf(args, sizeof args, "%s%s report --db %s --out %s 2>&1", as, tu_spsweep_bin(), db,
             out);
    p = popen(args, "r");
    cr_assert_not_null(p);
    o = calloc(1, 1 << 16);
    got = fread(o, 1, (1 << 16) - 1, p);
    o[got] = 0;
    st = pclose(p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s\n%s", args, o);
    free(o);
    assert_same_bytes(db, before, n, "export and report");
    free(before);
    char pdf[400];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    cr_assert_eq(access(pdf, R_OK), 0, "no %s", pdf);
    chmod(ro, 0755);
}
