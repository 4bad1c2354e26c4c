/* test_store.c — the SQLite store: schema, views, transactions, summary. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
#include "testutil.h"

/* Kernels described the way the registry would, without functions. */
static const sp_kernel k_serial = {.name = "spmv_csr_serial", .operation = "spmv",
                                   .format = "csr", .backend = "serial"};
static const sp_kernel k_omp = {.name = "spmv_csr_omp", .operation = "spmv",
                                .format = "csr", .backend = "openmp"};
static const sp_kernel k_gpu = {.name = "spmv_csr_cuda", .operation = "spmv",
                                .format = "csr", .backend = "cuda", .needs_gpu = 1};

/* A fresh store in a temp dir (in a nested directory that does not exist yet). */
static sp_store *open_temp(char *path, size_t len)
{
    char dir[512];
    tu_tempdir(dir, sizeof dir);
    snprintf(path, len, "%s/nested/deeper/results.db", dir);
    sp_store *st = NULL;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "open: %s", err.msg);
    cr_assert_not_null(st);
    return st;
}

/* A matrix with hand-set features (fetch/ is not linked here). */
static void fake_matrix(sp_matrix *M, const char *source, const char *name,
                        uint64_t checksum, int32_t nnz)
{
    memset(M, 0, sizeof *M);
    snprintf(M->src.text, sizeof M->src.text, "%s", source);
    snprintf(M->src.name, sizeof M->src.name, "%s", name);
    M->feat = (sp_features){.rows = 100, .cols = 100, .nnz = nnz, .row_min = 1,
                            .row_max = 9, .row_mean = nnz / 100.0, .row_std = 0.5,
                            .empty_rows = 0, .bandwidth = 10, .pattern_symmetry = 1.0,
                            .size_class = "small"};
    M->checksum = checksum;
}

static int64_t add_sweep(sp_store *st, const char *config_text)
{
    sp_sweep_meta m = {.config_path = "configs/t.ini", .config_text = config_text,
                       .git_commit = "abc123", .host = "testhost", .cpu = "Test CPU",
                       .cpu_count = 2, .compiler = "gcc", .cflags = "-O2",
                       .omp_binding = "OMP_PROC_BIND=close", .repetitions = 5, .warmup = 1};
    int64_t id = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    cr_assert_gt(id, 0);
    return id;
}

static int64_t add_matrix(sp_store *st, const char *source, const char *name,
                          uint64_t checksum)
{
    sp_matrix M;
    fake_matrix(&M, source, name, checksum, 500);
    int64_t id = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_matrix(st, sp_matrix_identity(&M), &id, &err), 0, "%s", err.msg);
    return id;
}

/* Store an ok run with the given samples; returns its id. */
static int64_t add_run(sp_store *st, int64_t sweep, int64_t matrix, const sp_kernel *k,
                       const char *axes, const double *s, int n)
{
    sp_run_record r = {.sweep_id = sweep, .matrix_id = matrix, .kernel = sp_kernel_identity(k),
                       .axes_json = axes, .status = SP_RUN_OK, .rel_error = 1e-15,
                       .flops = 1000.0, .bytes = 6000.0, .warmup = 1, .nsamples = n,
                       .samples = s};
    int64_t id = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    return id;
}

static int64_t add_failed(sp_store *st, int64_t sweep, int64_t matrix, const sp_kernel *k,
                          sp_run_status status, const char *error)
{
    static const double ignored[3] = {1e-3, 2e-3, 3e-3};
    sp_run_record r = {.sweep_id = sweep, .matrix_id = matrix, .kernel = sp_kernel_identity(k),
                       .axes_json = "{\"threads\":2}", .status = status, .error = error,
                       .rel_error = NAN, .flops = 1000.0, .bytes = 6000.0,
                       .nsamples = 3, .samples = ignored};
    int64_t id = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    return id;
}

/* The integer result of a query with one optional int64 parameter. */
static int64_t q_int(sp_store *st, const char *sql, int64_t param)
{
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(sp_store_db(st), sql, -1, &s, NULL), SQLITE_OK, "%s: %s",
                 sql, sqlite3_errmsg(sp_store_db(st)));
    if (sqlite3_bind_parameter_count(s) > 0)
        sqlite3_bind_int64(s, 1, param);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static double q_real(sp_store *st, const char *sql, int64_t param)
{
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(sp_store_db(st), sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
    sqlite3_bind_int64(s, 1, param);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s (param %lld)", sql, (long long)param);
    double v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* Text result (copied into buf); "" for NULL. */
static void q_text(sp_store *st, const char *sql, int64_t param, char *buf, size_t len)
{
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(sp_store_db(st), sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
    sqlite3_bind_int64(s, 1, param);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    const unsigned char *t = sqlite3_column_text(s, 0);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
    sqlite3_finalize(s);
}

static void assert_close(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-12 * fabs(want) + 1e-300, "%s: got %.17g, want %.17g",
              what, got, want);
}

Test(store, open_creates_tables_views_and_directories)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    static const char *const tables[] = {"sweeps", "matrices", "runs", "samples"};
    static const char *const views[] = {"run_stats", "speedup", "best_runs", "run_failures"};
    for (int i = 0; i < 4; i++) {
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='%s'",
                 tables[i]);
        cr_assert_eq(q_int(st, sql, 0), 1, "table %s missing", tables[i]);
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM sqlite_master WHERE type='view' AND name='%s'",
                 views[i]);
        cr_assert_eq(q_int(st, sql, 0), 1, "view %s missing", views[i]);
    }
    cr_assert_eq(q_int(st, "PRAGMA user_version", 0), 10);
    cr_assert_eq(q_int(st, "PRAGMA foreign_keys", 0), 1);
    char mode[32];
    q_text(st, "PRAGMA journal_mode", 0, mode, sizeof mode);
    cr_assert_str_eq(mode, "wal");
    sp_store_close(st);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "database file %s not created", path);
    fclose(f);
}

Test(store, reopen_keeps_data_and_views_still_work)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, "[sweep]\n");
    int64_t m = add_matrix(st, "gen:laplace2d?n=10", "laplace2d_n10", 0x1234);
    const double s[3] = {1e-3, 2e-3, 3e-3};
    add_run(st, sw, m, &k_serial, "{}", s, 3);
    sp_store_close(st);
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "reopen: %s", err.msg);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM sweeps", 0), 1);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM runs", 0), 1);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM samples", 0), 3);
    assert_close(q_real(st, "SELECT median FROM run_stats WHERE sweep_id = ?1", sw), 2e-3,
                 "median after reopen");
    sp_store_close(st);
}

Test(store, matrix_dedup_by_source_and_checksum)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t a = add_matrix(st, "gen:random?n=50", "random_n50", 0xdeadbeefULL);
    int64_t b = add_matrix(st, "gen:random?n=50", "random_n50", 0xdeadbeefULL);
    int64_t c = add_matrix(st, "gen:random?n=50", "random_n50", 0xfeedULL);
    int64_t d = add_matrix(st, "file:other.mtx", "other", 0xdeadbeefULL);
    cr_assert_eq(a, b, "same source and checksum must give the same id");
    cr_assert_neq(a, c);
    cr_assert_neq(a, d);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM matrices", 0), 3);
    char hex[32];
    q_text(st, "SELECT checksum FROM matrices WHERE id = ?1", a, hex, sizeof hex);
    cr_assert_str_eq(hex, "00000000deadbeef");
    cr_assert_eq(q_int(st, "SELECT nnz FROM matrices WHERE id = ?1", a), 500);
    q_text(st, "SELECT size_class FROM matrices WHERE id = ?1", a, hex, sizeof hex);
    cr_assert_str_eq(hex, "small");
    sp_store_close(st);
}

Test(store, sweep_provenance_hash_and_end)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    const char *cfg = "[sweep]\nrepetitions = 5\n";
    int64_t sw = add_sweep(st, cfg);
    char buf[256], want[32];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)XXH3_64bits(cfg, strlen(cfg)));
    q_text(st, "SELECT config_hash FROM sweeps WHERE id = ?1", sw, buf, sizeof buf);
    cr_assert_str_eq(buf, want);
    q_text(st, "SELECT status FROM sweeps WHERE id = ?1", sw, buf, sizeof buf);
    cr_assert_str_eq(buf, "running");
    q_text(st, "SELECT started_at FROM sweeps WHERE id = ?1", sw, buf, sizeof buf);
    cr_assert_eq(strlen(buf), 24, "ISO-8601 with milliseconds: %s", buf);
    cr_assert(buf[4] == '-' && buf[10] == 'T' && buf[23] == 'Z', "not ISO-8601 UTC: %s", buf);
    cr_assert_eq(q_int(st, "SELECT gpu IS NULL FROM sweeps WHERE id = ?1", sw), 1);
    sp_err err = {{0}};
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    q_text(st, "SELECT status || ' ' || (finished_at IS NOT NULL) FROM sweeps WHERE id = ?1",
           sw, buf, sizeof buf);
    cr_assert_str_eq(buf, "done 1");
    cr_assert_eq(sp_store_end_sweep(st, sw, "bogus", &err), -1);
    cr_assert(strstr(err.msg, "bogus"), "%s", err.msg);
    cr_assert_eq(sp_store_end_sweep(st, sw + 100, "done", &err), -1);
    cr_assert(strstr(err.msg, "not found"), "%s", err.msg);
    sp_store_close(st);
}

Test(store, run_and_samples_stored_exactly)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, NULL);
    int64_t m = add_matrix(st, "gen:x", "x", 1);
    const double s[7] = {1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3};
    sp_run_record r = {.sweep_id = sw, .matrix_id = m, .kernel = sp_kernel_identity(&k_gpu),
                       .axes_json = "{\"blocksize\":128}", .status = SP_RUN_OK,
                       .rel_error = NAN, .flops = 2e6, .bytes = 1e7,
                       .phases = {.convert_s = 0.5, .h2d_s = 0.25, .d2h_s = 0.125},
                       .warmup = 2, .nsamples = 7, .samples = s};
    int64_t id = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM samples WHERE run_id = ?1", id), 7);
    cr_assert_eq(q_int(st, "SELECT repetitions FROM runs WHERE id = ?1", id), 7);
    cr_assert_eq(q_int(st, "SELECT rel_error IS NULL FROM runs WHERE id = ?1", id), 1);
    assert_close(q_real(st, "SELECT h2d_s FROM runs WHERE id = ?1", id), 0.25, "h2d_s");
    assert_close(q_real(st, "SELECT seconds FROM samples WHERE run_id = ?1 AND rep = 6", id),
                 7e-3, "last sample");
    char buf[128];
    q_text(st, "SELECT device || ' ' || backend || ' ' || axes FROM runs WHERE id = ?1", id,
           buf, sizeof buf);
    cr_assert_str_eq(buf, "gpu cuda {\"blocksize\":128}");
    cr_assert_eq(q_int(st, "SELECT blocksize FROM run_stats WHERE run_id = ?1", id), 128);
    sp_store_close(st);
}

/* Sample statistics computed in C, to compare with run_stats. */
static void c_stats(const double *s, int n, double *median, double *mean, double *sd)
{
    double sorted[16];
    memcpy(sorted, s, (size_t)n * sizeof *s);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    *median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    double sum = 0, ss = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    *mean = sum / n;
    for (int i = 0; i < n; i++)
        ss += (s[i] - *mean) * (s[i] - *mean);
    *sd = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
}

/* Check every statistic of run id in run_stats against C. */
static void check_stats(sp_store *st, int64_t id, const double *s, int n)
{
    double median, mean, sd, mn = s[0], mx = s[0];
    c_stats(s, n, &median, &mean, &sd);
    for (int i = 1; i < n; i++) {
        mn = s[i] < mn ? s[i] : mn;
        mx = s[i] > mx ? s[i] : mx;
    }
    cr_assert_eq(q_int(st, "SELECT n FROM run_stats WHERE run_id = ?1", id), n);
    assert_close(q_real(st, "SELECT median FROM run_stats WHERE run_id = ?1", id), median,
                 "median");
    assert_close(q_real(st, "SELECT mean FROM run_stats WHERE run_id = ?1", id), mean, "mean");
    assert_close(q_real(st, "SELECT min FROM run_stats WHERE run_id = ?1", id), mn, "min");
    assert_close(q_real(st, "SELECT max FROM run_stats WHERE run_id = ?1", id), mx, "max");
    cr_assert(fabs(q_real(st, "SELECT stddev FROM run_stats WHERE run_id = ?1", id) - sd) <=
                  1e-9 * (sd + mean), "stddev");
    assert_close(q_real(st, "SELECT gflops FROM run_stats WHERE run_id = ?1", id),
                 1000.0 / median / 1e9, "gflops");
    assert_close(q_real(st, "SELECT gflops_best FROM run_stats WHERE run_id = ?1", id),
                 1000.0 / mn / 1e9, "gflops_best");
    assert_close(q_real(st, "SELECT gbps FROM run_stats WHERE run_id = ?1", id),
                 6000.0 / median / 1e9, "gbps");
}

Test(store, run_stats_match_c_for_odd_even_and_single)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, NULL);
    int64_t m = add_matrix(st, "gen:x", "x", 1);
    const double odd[5] = {3.1e-3, 1.2e-3, 2.9e-3, 5.5e-3, 4.4e-3};
    const double even[6] = {4e-4, 1e-4, 3.5e-4, 2e-4, 9e-4, 2.5e-4};
    const double one[1] = {7.25e-3};
    const double tied[4] = {2e-3, 2e-3, 1e-3, 2e-3};
    int64_t a = add_run(st, sw, m, &k_omp, "{\"threads\":1}", odd, 5);
    int64_t b = add_run(st, sw, m, &k_omp, "{\"threads\":2}", even, 6);
    int64_t c = add_run(st, sw, m, &k_omp, "{\"threads\":4}", one, 1);
    int64_t d = add_run(st, sw, m, &k_omp, "{\"threads\":8}", tied, 4);
    check_stats(st, a, odd, 5);
    check_stats(st, b, even, 6);
    check_stats(st, c, one, 1);
    check_stats(st, d, tied, 4);
    assert_close(q_real(st, "SELECT median FROM run_stats WHERE run_id = ?1", a), 3.1e-3,
                 "odd median is the middle sample");
    assert_close(q_real(st, "SELECT median FROM run_stats WHERE run_id = ?1", b), 3e-4,
                 "even median is the mean of the two middle samples");
    cr_assert_eq(q_real(st, "SELECT stddev FROM run_stats WHERE run_id = ?1", c), 0.0);
    cr_assert_eq(q_int(st, "SELECT threads FROM run_stats WHERE run_id = ?1", b), 2);
    sp_store_close(st);
}

Test(store, speedup_against_fastest_serial_baseline)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, NULL);
    int64_t m = add_matrix(st, "gen:a", "a", 1);
    int64_t m2 = add_matrix(st, "gen:b", "b", 2);
    const double slow[3] = {5e-3, 5e-3, 5e-3}, base[3] = {4e-3, 4e-3, 4e-3};
    const double fast[3] = {1e-3, 1e-3, 1e-3}, mid[3] = {2e-3, 2e-3, 2e-3};
    add_run(st, sw, m, &k_serial, "{\"variant\":1}", slow, 3);
    int64_t b = add_run(st, sw, m, &k_serial, "{}", base, 3);
    int64_t f = add_run(st, sw, m, &k_omp, "{\"threads\":4}", fast, 3);
    add_run(st, sw, m, &k_omp, "{\"threads\":2}", mid, 3);
    int64_t lone = add_run(st, sw, m2, &k_omp, "{\"threads\":2}", mid, 3);
    assert_close(q_real(st, "SELECT speedup FROM speedup WHERE run_id = ?1", f), 4.0,
                 "speedup against the fastest serial run");
    assert_close(q_real(st, "SELECT baseline_median FROM speedup WHERE run_id = ?1", f), 4e-3,
                 "baseline median");
    assert_close(q_real(st, "SELECT speedup FROM speedup WHERE run_id = ?1", b), 1.0,
                 "baseline against itself");
    cr_assert(isnan(q_real(st, "SELECT speedup FROM speedup WHERE run_id = ?1", lone)),
              "no baseline on matrix b: speedup must be NULL");
    cr_assert_eq(q_int(st, "SELECT run_id FROM best_runs WHERE sweep_id = ?1 AND matrix_id = "
                           "(SELECT id FROM matrices WHERE name = 'a')", sw), f);
    assert_close(q_real(st, "SELECT speedup FROM best_runs WHERE run_id = ?1", f), 4.0,
                 "best_runs speedup");
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM best_runs WHERE sweep_id = ?1", sw), 2);
    sp_store_close(st);
}

Test(store, failed_runs_have_no_samples_and_are_listed)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, NULL);
    int64_t m = add_matrix(st, "gen:a", "a", 1);
    int64_t f = add_failed(st, sw, m, &k_omp, SP_RUN_FAILED, "relative error 3e-2 above 1e-12");
    int64_t k = add_failed(st, sw, m, &k_gpu, SP_RUN_SKIPPED, "no GPU");
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM samples WHERE run_id = ?1", f), 0);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM samples", 0), 0);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM run_stats", 0), 0);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM run_failures WHERE sweep_id = ?1", sw), 2);
    char buf[256];
    q_text(st, "SELECT status || '|' || kernel || '|' || matrix || '|' || error "
               "FROM run_failures WHERE run_id = ?1", f, buf, sizeof buf);
    cr_assert_str_eq(buf, "failed|spmv_csr_omp|a|relative error 3e-2 above 1e-12");
    q_text(st, "SELECT status FROM run_failures WHERE run_id = ?1", k, buf, sizeof buf);
    cr_assert_str_eq(buf, "skipped");
    sp_store_close(st);
}

Test(store, hostile_strings_stored_verbatim)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    const char *cfg = "name = 'x'); DROP TABLE runs; --\n\"quoted\"; ?1 :a @b $c";
    int64_t sw = add_sweep(st, cfg);
    int64_t m = add_matrix(st, "file:it's; \"odd\".mtx", "it's; \"odd\"", 7);
    const char *why = "bad'); DELETE FROM samples; SELECT ('";
    int64_t r = add_failed(st, sw, m, &k_omp, SP_RUN_ERROR, why);
    char buf[512];
    q_text(st, "SELECT config_text FROM sweeps WHERE id = ?1", sw, buf, sizeof buf);
    cr_assert_str_eq(buf, cfg);
    q_text(st, "SELECT name FROM matrices WHERE id = ?1", m, buf, sizeof buf);
    cr_assert_str_eq(buf, "it's; \"odd\"");
    q_text(st, "SELECT error FROM runs WHERE id = ?1", r, buf, sizeof buf);
    cr_assert_str_eq(buf, why);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs'", 0), 1);
    sp_store_close(st);
}

Test(store, failing_sample_rolls_back_whole_run)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, NULL);
    int64_t m = add_matrix(st, "gen:a", "a", 1);
    const double good[3] = {1e-3, 2e-3, 3e-3};
    add_run(st, sw, m, &k_serial, "{}", good, 3);
    const double bad[4] = {1e-3, 2e-3, 0.0, 4e-3};
    sp_run_record r = {.sweep_id = sw, .matrix_id = m, .kernel = sp_kernel_identity(&k_omp),
                       .axes_json = "{\"threads\":2}", .status = SP_RUN_OK, .rel_error = 0,
                       .flops = 1, .bytes = 1, .nsamples = 4, .samples = bad};
    sp_err err = {{0}};
    int64_t id = -7;
    cr_assert_eq(sp_store_run(st, &r, &id, &err), -1);
    cr_assert(strstr(err.msg, "CHECK") && strstr(err.msg, "spmv_csr_omp"), "%s", err.msg);
    cr_assert_eq(id, -7, "run id must not be set on failure");
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM runs", 0), 1, "partial run left behind");
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM samples", 0), 3);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM runs WHERE kernel = 'spmv_csr_omp'", 0), 0);
    /* The connection is usable again: no transaction left open. */
    cr_assert_eq(sqlite3_get_autocommit(sp_store_db(st)), 1);
    add_run(st, sw, m, &k_omp, "{\"threads\":2}", good, 3);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM samples", 0), 6);
    sp_store_close(st);
}

Test(store, invalid_records_rejected_before_writing)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, NULL);
    int64_t m = add_matrix(st, "gen:a", "a", 1);
    sp_err err = {{0}};
    sp_run_record r = {.sweep_id = sw, .matrix_id = m, .kernel = sp_kernel_identity(&k_omp), .status = SP_RUN_OK};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), -1, "ok without samples accepted");
    cr_assert(strstr(err.msg, "without samples"), "%s", err.msg);
    r.status = SP_RUN_ABORTED;  /* never stored: resume runs it again */
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), -1);
    cr_assert(strstr(err.msg, "aborted"), "%s", err.msg);
    r.status = (sp_run_status)42;
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), -1);
    cr_assert(strstr(err.msg, "status 42"), "%s", err.msg);
    const double s[1] = {1e-3};
    sp_run_record bad_axes = {.sweep_id = sw, .matrix_id = m, .kernel = sp_kernel_identity(&k_omp),
                              .axes_json = "{threads:", .status = SP_RUN_OK, .nsamples = 1,
                              .samples = s};
    cr_assert_eq(sp_store_run(st, &bad_axes, NULL, &err), -1, "invalid JSON accepted");
    sp_run_record no_sweep = {.sweep_id = sw + 99, .matrix_id = m, .kernel = sp_kernel_identity(&k_omp),
                              .status = SP_RUN_OK, .nsamples = 1, .samples = s};
    cr_assert_eq(sp_store_run(st, &no_sweep, NULL, &err), -1, "dangling sweep id accepted");
    cr_assert(strstr(err.msg, "FOREIGN KEY"), "%s", err.msg);
    cr_assert_eq(q_int(st, "SELECT COUNT(*) FROM runs", 0), 0);
    sp_store_close(st);
}

Test(store, non_database_file_named_in_error)
{
    char dir[512], path[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "notes.db");
    tu_write_file(path, "This is a text file, not an SQLite database. It is long enough "
                        "to hold a header, and then some more text to be sure.\n");
    sp_store *st = (sp_store *)1;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), -1);
    cr_assert_null(st);
    cr_assert(strstr(err.msg, path), "error does not name the file: %s", err.msg);
    cr_assert(strstr(err.msg, "not an SQLite database"), "%s", err.msg);
}

Test(store, directory_in_the_way_named_in_error)
{
    char dir[512], path[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "file");
    tu_write_file(path, "x");
    char db[1200];
    snprintf(db, sizeof db, "%s/sub/results.db", path);
    sp_store *st = NULL;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), -1);
    cr_assert(strstr(err.msg, path), "%s", err.msg);
}

/* Read a whole small file into buf. */
static void slurp(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
}

Test(store, summary_lists_best_kernel_per_matrix)
{
    char path[1024];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sw = add_sweep(st, NULL);
    int64_t a = add_matrix(st, "gen:alpha", "alpha_matrix", 1);
    int64_t b = add_matrix(st, "gen:beta", "beta_matrix", 2);
    int64_t c = add_matrix(st, "gen:gamma", "gamma_matrix", 3);
    const double t4[3] = {4e-3, 4e-3, 4e-3}, t1[3] = {1e-3, 1e-3, 1e-3};
    const double t2[3] = {2e-3, 2e-3, 2e-3};
    add_run(st, sw, a, &k_serial, "{}", t4, 3);
    add_run(st, sw, a, &k_omp, "{\"threads\":4}", t1, 3);
    add_run(st, sw, b, &k_serial, "{}", t1, 3);
    add_run(st, sw, b, &k_omp, "{\"threads\":2}", t2, 3);
    add_failed(st, sw, c, &k_omp, SP_RUN_FAILED, "wrong result on gamma");
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    sp_err err = {{0}};
    cr_assert_eq(sp_store_print_summary(st, sw, f, &err), 0, "%s", err.msg);
    char out[8192];
    slurp(f, out, sizeof out);
    cr_assert_eq(sp_store_print_summary(st, sw + 5, f, &err), -1);
    cr_assert(strstr(err.msg, "not found"), "%s", err.msg);
    fclose(f);
    char *la = strstr(out, "alpha_matrix"), *lb = strstr(out, "beta_matrix");
    cr_assert(la && lb && strstr(out, "gamma_matrix"), "%s", out);
    char *ea = strchr(la, '\n'), *eb = strchr(lb, '\n');
    cr_assert(strstr(la, "spmv_csr_omp") && strstr(la, "spmv_csr_omp") < ea, "%s", out);
    cr_assert(strstr(la, "4.00x") && strstr(la, "4.00x") < ea, "%s", out);
    cr_assert(strstr(la, " 0.001 ") && strstr(la, " 0.001 ") < ea, "GFLOPS 1e3/1e-3/1e9: %s",
              out);
    cr_assert(strstr(lb, "spmv_csr_serial") && strstr(lb, "spmv_csr_serial") < eb, "%s", out);
    cr_assert(strstr(out, "1 failed"), "%s", out);
    cr_assert(strstr(out, "wrong result on gamma"), "%s", out);
    sp_store_close(st);
}

Test(store, two_connections_write_the_same_database)
{
    char path[1024];
    sp_store *a = open_temp(path, sizeof path), *b = NULL;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &b, &err), 0, "second open: %s", err.msg);
    int64_t sa = add_sweep(a, NULL), sb = add_sweep(b, NULL);
    int64_t ma = add_matrix(a, "gen:shared", "shared", 9);
    int64_t mb = add_matrix(b, "gen:shared", "shared", 9);
    cr_assert_eq(ma, mb, "both connections must see one matrix row");
    const double s[2] = {1e-3, 2e-3};
    for (int i = 0; i < 5; i++) {
        char axes[32];
        snprintf(axes, sizeof axes, "{\"threads\":%d}", i + 1);
        add_run(a, sa, ma, &k_serial, axes, s, 2);
        add_run(b, sb, mb, &k_omp, axes, s, 2);
    }
    cr_assert_eq(q_int(a, "SELECT COUNT(*) FROM runs", 0), 10);
    cr_assert_eq(q_int(b, "SELECT COUNT(*) FROM samples", 0), 20);
    sp_store_close(a);
    sp_store_close(b);
}

/* Rounds of one run: a later round adds its samples (statistics over all,
 * the interval widened by the round medians from three rounds), folds its
 * machine flags, energy windows and phases in (the run's phases are the
 * median round's), and a failing round turns the run failed; storing a
 * round twice changes nothing. */
Test(store, rounds_extend_one_run_and_a_failed_round_fails_it)
{
    char path[600];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sweep = add_sweep(st, "rounds");
    int64_t m = add_matrix(st, "gen:r", "r", 0x42);
    static const double r0[6] = {1.00e-3, 1.01e-3, 0.99e-3, 1.02e-3, 1.00e-3, 1.01e-3};
    double r1[6], r2[6];
    static const int32_t throttled[6] = {0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 6; i++)
        r1[i] = r0[i] * 1.10, r2[i] = r0[i] * 0.95;
    static const double j0[1] = {2.0}, j1[2] = {1.5, 2.5};
    static const int64_t l0[1] = {1000}, l1[2] = {500, 500};
    sp_run_record r = {.sweep_id = sweep, .matrix_id = m, .kernel = sp_kernel_identity(&k_gpu), .axes_json = "{}",
                       .status = SP_RUN_OK, .rel_error = 1e-15, .flops = 1e6, .bytes = 6e6,
                       .warmup = 1, .nsamples = 6, .samples = r0, .batch = 40,
                       .cache = "warm", .energy_windows = 1, .energy_j = j0,
                       .energy_launches = l0,
                       .phases = {.convert_s = 0.5, .h2d_s = 0.02, .d2h_s = 0.01, .free_s = 3}};
    sp_err err = {{0}};
    int64_t id0 = 0, id = 0;
    cr_assert_eq(sp_store_run(st, &r, &id0, &err), 0, "%s", err.msg);
    r.round = 1, r.samples = r1, r.sample_flags = throttled, r.flags = 1;
    r.energy_windows = 2, r.energy_j = j1, r.energy_launches = l1;
    r.phases = (sp_phases){.convert_s = 0.3, .h2d_s = 0.04, .d2h_s = 0.03, .free_s = 1};
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    cr_assert_eq(id, id0, "a later round extends the same run");
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 1, "a round stored twice is a duplicate");
    r.round = 2, r.samples = r2, r.sample_flags = NULL, r.flags = 0, r.energy_windows = 0;
    r.phases = (sp_phases){.convert_s = 0.4, .h2d_s = 0.03, .d2h_s = 0.02, .free_s = 2};
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    /* each phase is the median round's: 0.4 of {0.5, 0.3, 0.4}, ... */
    assert_close(q_real(st, "SELECT convert_s FROM run_stats WHERE run_id = ?1", id), 0.4,
                 "convert_s");
    assert_close(q_real(st, "SELECT h2d_s FROM run_stats WHERE run_id = ?1", id), 0.03, "h2d_s");
    assert_close(q_real(st, "SELECT d2h_s FROM run_stats WHERE run_id = ?1", id), 0.02, "d2h_s");
    assert_close(q_real(st, "SELECT free_s FROM run_stats WHERE run_id = ?1", id), 2, "free_s");
    assert_close(q_real(st, "SELECT convert_s FROM run_rounds WHERE run_id = ?1 AND round = 1",
                        id), 0.3, "a round keeps its own phases");
    cr_assert_eq(q_int(st, "SELECT count(*) FROM energy_windows WHERE run_id = ?1", id), 3);
    assert_close(q_real(st, "SELECT energy_j FROM run_rounds WHERE run_id = ?1 AND round = 1",
                        id), 4.0, "a round's energy is its windows' sum");
    cr_assert_eq(q_int(st, "SELECT n FROM run_stats WHERE run_id = ?1", id), 18);
    cr_assert_eq(q_int(st, "SELECT rounds FROM run_stats WHERE run_id = ?1", id), 3);
    cr_assert_eq(q_int(st, "SELECT count(DISTINCT rep) FROM samples WHERE run_id = ?1", id), 18);
    char method[16];
    q_text(st, "SELECT ci_method FROM run_stats WHERE run_id = ?1", id, method, sizeof method);
    cr_assert_str_eq(method, "rounds");
    /* round medians 1.005, 1.1055, 0.95475 ms: the t interval is far wider
     * than the pooled order interval */
    cr_assert_lt(q_real(st, "SELECT ci_lo FROM run_stats WHERE run_id = ?1", id), 0.95e-3);
    cr_assert_gt(q_real(st, "SELECT ci_hi FROM run_stats WHERE run_id = ?1", id), 1.10e-3);
    cr_assert_eq(q_int(st, "SELECT flags FROM run_stats WHERE run_id = ?1", id), 1);
    cr_assert_eq(q_int(st, "SELECT flagged_samples FROM run_stats WHERE run_id = ?1", id), 2);
    /* (2 + 4) J over 2000 launches; 1e6 flop a launch: 1e6 / 3e-3 / 1e9 */
    assert_close(q_real(st, "SELECT joules_per_launch FROM run_stats WHERE run_id = ?1", id),
                 3e-3, "joules per launch");
    assert_close(q_real(st, "SELECT rate_per_watt FROM run_stats WHERE run_id = ?1", id),
                 1e6 / 3e-3 / 1e9, "GFLOPS per watt");
    /* windows of 2, 3 and 5 mJ a launch: scipy's t interval (-0.000461, 0.007128),
     * its lower end clamped at 0 (energy is never negative) */
    double jhi = q_real(st, "SELECT joules_hi FROM run_stats WHERE run_id = ?1", id);
    cr_assert(fabs(jhi - 0.007127916367072799) < 1e-9 * 0.0071, "joules_hi %.17g", jhi);
    cr_assert_eq(q_real(st, "SELECT joules_lo FROM run_stats WHERE run_id = ?1", id), 0.0);
    assert_close(q_real(st, "SELECT rate_per_watt_lo FROM run_stats WHERE run_id = ?1", id),
                 1e6 / jhi / 1e9, "GFLOPS per watt, low end");
    cr_assert_eq(q_int(st, "SELECT batch FROM run_stats WHERE run_id = ?1", id), 40);
    /* a fourth round that fails: the run is failed, no view shows its time */
    r.round = 3, r.status = SP_RUN_CRASHED, r.error = "killed by SIGSEGV", r.nsamples = 0;
    r.samples = NULL;
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    char status[16], error[128];
    q_text(st, "SELECT status FROM runs WHERE id = ?1", id, status, sizeof status);
    cr_assert_str_eq(status, "crashed");
    q_text(st, "SELECT error FROM runs WHERE id = ?1", id, error, sizeof error);
    cr_assert_str_eq(error, "round 3: killed by SIGSEGV");
    cr_assert_eq(q_int(st, "SELECT count(*) FROM run_stats WHERE run_id = ?1", id), 0);
    cr_assert_eq(q_int(st, "SELECT count(*) FROM run_rounds WHERE run_id = ?1", id), 4);
    sp_store_close(st);
}

/* A run's blocking is its rounds': once a round gave up on the blocking
 * kernel ('timeout'), the run says so whatever later rounds did; each
 * round keeps its own. */
Test(store, a_round_that_gave_up_blocking_marks_the_run)
{
    char path[600];
    sp_store *st = open_temp(path, sizeof path);
    int64_t sweep = add_sweep(st, "blocking");
    int64_t m = add_matrix(st, "gen:b", "b", 0x43);
    static const double t[3] = {1e-5, 1.1e-5, 0.9e-5};
    sp_run_record r = {.sweep_id = sweep, .matrix_id = m, .kernel = sp_kernel_identity(&k_gpu), .axes_json = "{}",
                       .status = SP_RUN_OK, .rel_error = 0, .flops = 1e6, .bytes = 6e6,
                       .warmup = 1, .nsamples = 3, .samples = t, .batch = 10,
                       .cache = "warm", .blocking = "on"};
    sp_err err = {{0}};
    int64_t id = 0;
    char b[16];
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    q_text(st, "SELECT blocking FROM run_stats WHERE run_id = ?1", id, b, sizeof b);
    cr_assert_str_eq(b, "on");
    r.round = 1, r.blocking = "timeout";
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    r.round = 2, r.blocking = "on";
    cr_assert_eq(sp_store_run(st, &r, &id, &err), 0, "%s", err.msg);
    q_text(st, "SELECT blocking FROM runs WHERE id = ?1", id, b, sizeof b);
    cr_assert_str_eq(b, "timeout");
    q_text(st, "SELECT blocking FROM run_rounds WHERE run_id = ?1 AND round = 2", id, b, sizeof b);
    cr_assert_str_eq(b, "on");
    cr_assert_eq(q_int(st, "SELECT count(*) FROM run_rounds WHERE run_id = ?1"
                           " AND blocking = 'timeout'", id), 1);
    r.round = 0, r.axes_json = "{\"threads\":2}", r.blocking = "sometimes";
    cr_assert_eq(sp_store_run(st, &r, &id, &err), -1, "the schema refuses other words");
    sp_store_close(st);
}

/* The status names: one table, each name parsed back to its status, and
 * nothing else parsed. */
Test(store, run_status_names_round_trip)
{
    static const char *const want[] = {"ok", "failed", "error", "skipped", "crashed", "timeout",
                                       "aborted"};
    for (int i = 0; i <= SP_RUN_ABORTED; i++) {
        cr_assert_str_eq(sp_run_status_name((sp_run_status)i), want[i]);
        sp_run_status s;
        cr_assert_eq(sp_run_status_parse(want[i], &s), 0);
        cr_assert_eq(s, (sp_run_status)i);
    }
    sp_run_status s = SP_RUN_OK;
    cr_assert_eq(sp_run_status_parse("OK", &s), -1);
    cr_assert_eq(sp_run_status_parse(NULL, &s), -1);
    cr_assert_str_eq(sp_run_status_name((sp_run_status)99), "?");
}
