/* test_report_html.c — index.html, the report's page beside report.pdf:
 * self-contained (nothing to fetch), every figure inline as SVG with the
 * SQL that produced its data (SQL that runs), the tables sortable, the
 * provenance and the failures, every text from the database escaped; one
 * of the report's own files for the next report's cleanup; and opened in
 * headless Chromium (tests/html_browser.py): it loads, every chart it
 * lists is drawn, a table sorts when its header is clicked, no console
 * error, no request. Without Chromium that test skips with one line. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
#include "../plots/report.h"
#include "testutil.h"
#include "util_shards.h"

static const sp_kernel k_serial = {.name = "spmv_csr_serial", .operation = "spmv",
                                   .format = "csr", .backend = "serial"};
static const sp_kernel k_omp = {.name = "spmv_csr_omp", .operation = "spmv",
                                .format = "csr", .backend = "openmp"};
static const sp_kernel k_cuda = {.name = "spmv_csr_vector_cuda", .operation = "spmv",
                                 .format = "csr", .backend = "cuda", .needs_gpu = 1};

/* Names a page must escape: a tag, an ampersand, both quotes. Their nnz
 * order (9000, 30000, 100000) is neither their text order nor the text
 * order of the nnz. */
#define M_SMALL "m10 <b>&amp;"
#define M_MID "m9 \"q\" 'a'"
#define M_BIG "m100 </td>"
#define REASON "relative error <script>alert(1)</script> & \"x\" above tolerance"

static void put_run(sp_store *st, int64_t sweep, int64_t m, const sp_kernel *k,
                    const char *axes, double median)
{
    const double s[5] = {median * 0.97, median, median * 1.08, median * 0.99, median * 1.2};
    sp_run_record r = {.sweep_id = sweep, .matrix_id = m, .kernel = sp_kernel_identity(k), .axes_json = axes,
                       .status = SP_RUN_OK, .rel_error = 1e-16, .flops = 2e6, .bytes = 12e6,
                       .warmup = 1, .nsamples = 5, .samples = s};
    if (!strcmp(k->backend, "cuda"))
        r.phases = (sp_phases){.convert_s = 1e-3, .h2d_s = 2e-3, .d2h_s = 0.5e-3,
                               .free_s = 0.25e-3};
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
}

static int64_t put_matrix(sp_store *st, const char *name, int32_t nnz)
{
    sp_matrix M;
    memset(&M, 0, sizeof M);
    snprintf(M.src.text, sizeof M.src.text, "file:%s.mtx", name);
    snprintf(M.src.name, sizeof M.src.name, "%s", name);
    M.feat = (sp_features){.rows = nnz / 5, .cols = nnz / 5, .nnz = nnz, .row_min = 1,
                           .row_max = 9, .row_mean = 5, .size_class = "small"};
    M.checksum = (uint64_t)nnz * 2654435761u;
    int64_t id;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_matrix(st, sp_matrix_identity(&M), &id, &err), 0, "%s", err.msg);
    return id;
}

/* Three matrices; serial, OpenMP at 1 and 4 threads, with_gpu: a CUDA
 * kernel at two block sizes; one failed run with REASON. */
static void build_db(const char *path, int with_gpu)
{
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    sp_sweep_meta meta = {.config_path = "configs/html <test>.ini",
                          .config_text = "[sweep]\nrepetitions = 5 ; <b>not bold</b> & more\n",
                          .git_commit = "0123456789abcdef", .host = "testhost",
                          .cpu = "Synthetic CPU & co", .cpu_count = 4, .gpu = "Fake H100",
                          .compiler = "gcc 12", .cflags = "-O3", .repetitions = 5,
                          .warmup = 1, .host_triad_gbs = 21.5, .host_triad_threads = 4,
                          .device_copy_gbs = 2900};
    int64_t sw;
    cr_assert_eq(sp_store_begin_sweep(st, &meta, &sw, &err), 0, "%s", err.msg);
    const char *names[3] = {M_SMALL, M_MID, M_BIG};
    const int32_t nnz[3] = {9000, 30000, 100000};
    for (int i = 0; i < 3; i++) {
        int64_t m = put_matrix(st, names[i], nnz[i]);
        double scale = nnz[i] / 9000.0;
        put_run(st, sw, m, &k_serial, "{}", 4e-3 * scale);
        put_run(st, sw, m, &k_omp, "{\"threads\":1}", 4.2e-3 * scale);
        put_run(st, sw, m, &k_omp, "{\"threads\":4}", 1.4e-3 * scale);
        if (with_gpu) {
            put_run(st, sw, m, &k_cuda, "{\"blocksize\":64}", 9e-5 * scale);
            put_run(st, sw, m, &k_cuda, "{\"blocksize\":128}", 6e-5 * scale);
        }
        if (i == 0) {
            sp_run_record r = {.sweep_id = sw, .matrix_id = m, .kernel = sp_kernel_identity(&k_omp),
                               .axes_json = "{\"threads\":8}", .status = SP_RUN_FAILED,
                               .error = REASON, .rel_error = 1e-3};
            cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
        }
    }
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
}

/* A report of a fresh database into dir/report; the page's text. */
static char *report(const char *dir, int with_gpu, char *db, size_t dblen, char *out,
                    size_t outlen)
{
    tu_path(db, dblen, dir, "results.db");
    tu_path(out, outlen, dir, "report");
    build_db(db, with_gpu);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    char page[1200];
    tu_path(page, sizeof page, out, "index.html");
    return tu_slurp(page, NULL);
}

/* Files in dir whose names end in suffix. */
static int count_suffix(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        n += len > sl && !strcmp(e->d_name + len - sl, suffix);
    }
    closedir(d);
    return n;
}

static int occurrences(const char *text, const char *part)
{
    int n = 0;
    for (const char *p = strstr(text, part); p; p = strstr(p + 1, part))
        n++;
    return n;
}

/* The text of the element of section id's first <pre><code> (the first
 * query of its SQL), HTML entities decoded; malloc'd. */
static char *section_sql(const char *page, const char *id)
{
    char open[300];
    snprintf(open, sizeof open, "<section class=\"chart\" id=\"%s\">", id);
    const char *s = strstr(page, open);
    cr_assert_not_null(s, "no section %s", id);
    const char *end = strstr(s, "</section>");
    const char *code = strstr(s, "<pre><code>");
    cr_assert(code && code < end, "section %s has no SQL", id);
    code += strlen("<pre><code>");
    const char *stop = strstr(code, ";</code></pre>");
    char *sql = malloc((size_t)(stop - code) + 1);
    size_t n = 0;
    static const struct {
        const char *entity;
        char c;
    } entities[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'},
                    {"&#39;", '\''}};
    for (const char *p = code; p < stop;) {
        size_t i = 0;
        while (i < 5 && strncmp(p, entities[i].entity, strlen(entities[i].entity)))
            i++;
        sql[n++] = i < 5 ? entities[i].c : *p;
        p += i < 5 ? strlen(entities[i].entity) : 1;
    }
    sql[n] = '\0';
    return sql;
}

Test(report_html, page_is_self_contained_escaped_and_complete, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    char *page = report(dir, 1, db, sizeof db, out, sizeof out);
    /* one section, one inline SVG per figure (a figure has one -1col.png) */
    int figures = count_suffix(out, "-1col.png");
    cr_assert_gt(figures, 8, "a report of CPU and GPU runs has its charts");
    cr_assert_eq(count_suffix(out, ".svg"), figures, "an SVG per figure");
    cr_assert_eq(occurrences(page, "<section class=\"chart\""), figures);
    cr_assert_eq(occurrences(page, "<svg"), figures);
    cr_assert_eq(occurrences(page, "<li class=\"chart\">"), figures, "the contents list them");
    char count[64];
    snprintf(count, sizeof count, "<span id=\"chart-count\">%d</span>", figures);
    cr_assert(strstr(page, count), "%s", count);
    cr_assert(!strstr(page, "<?xml"), "gnuplot's XML declaration is not in the page");
    cr_assert_eq(occurrences(page, "id='c1-gpPt7'"), 1, "ids prefixed per chart");
    cr_assert_eq(occurrences(page, "id='gpPt7'"), 0, "no id twice");
    /* self-contained: no URL but the SVG namespaces, nothing loaded */
    for (const char *p = strstr(page, "://"); p; p = strstr(p + 1, "://"))
        cr_assert(p - page >= 4 && !strncmp(p - 4, "http://www.w3.org/", 18),
                  "a URL in the page: %.60s", p - 4);
    cr_assert(!strstr(page, " src=") && !strstr(page, "<link") && !strstr(page, "@import"));
    cr_assert(strstr(page, "Content-Security-Policy\" content=\"default-src 'none';"));
    /* every text from the database escaped */
    cr_assert(!strstr(page, "<script>alert") && !strstr(page, "<b>not bold"), "unescaped");
    cr_assert(strstr(page, "relative error &lt;script&gt;alert(1)&lt;/script&gt; &amp; "
                           "&quot;x&quot; above tolerance"), "the failure's reason");
    cr_assert(strstr(page, "<td>m10 &lt;b&gt;&amp;amp;</td>") &&
                  strstr(page, "<td>m9 &quot;q&quot; &#39;a&#39;</td>") &&
                  strstr(page, "<td>m100 &lt;/td&gt;</td>"), "matrix names in tables");
    /* the provenance and the config, escaped; the failures */
    cr_assert(strstr(page, "<h2 id=\"provenance\">") && strstr(page, "Synthetic CPU &amp; co") &&
              strstr(page, "0123456789abcdef") &&
              strstr(page, "repetitions = 5 ; &lt;b&gt;not bold&lt;/b&gt; &amp; more") &&
              strstr(page, ", noisy above +-5 %</td>") &&
              strstr(page, "device copy 2900 GB/s"), "the title page's provenance");
    cr_assert(strstr(page, "<section class=\"table\" id=\"failures\">\n<h2>"));
    /* the headline tables sortable */
    cr_assert(strstr(page, "<section class=\"table\" id=\"spmv-best-per-matrix\">") &&
              strstr(page, "<section class=\"table\" id=\"spmv-geomean-speedup\">") &&
              strstr(page, "<th scope=\"col\" tabindex=\"0\" aria-sort=\"none\">nnz</th>"));
    /* a chart's SQL is the query that made its data: bound to this sweep,
     * it runs on the database and returns every matrix's bars */
    char *sql = section_sql(page, "spmv-rate-by-matrix-1");
    cr_assert(strstr(sql, "FROM series_best_runs") && strstr(sql, "sweep_id = 1") &&
              strstr(sql, "operation = 'spmv'"), "%s", sql);
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open_readonly(db, &st, &err), 0, "%s", err.msg);
    sqlite3_stmt *q;
    cr_assert_eq(sqlite3_prepare_v2(sp_store_db(st), sql, -1, &q, NULL), SQLITE_OK, "%s: %s",
                 sql, sqlite3_errmsg(sp_store_db(st)));
    int rows = 0;
    while (sqlite3_step(q) == SQLITE_ROW)
        rows++;
    sqlite3_finalize(q);
    sp_store_close(st);
    cr_assert_eq(rows, 3 * 3, "3 matrices x (omp, cuda, serial): %d rows", rows);
    free(sql);
    /* each chart its own query: the phases' is not the rate's */
    sql = section_sql(page, "spmv-gpu-phases-1");
    cr_assert(!strstr(sql, "series_best_runs") && strstr(sql, "sweep_id = 1"), "%s", sql);
    free(sql);
    /* the page is one of the report's files */
    char manifest[1200];
    tu_path(manifest, sizeof manifest, out, "report-files.txt");
    char *list = tu_slurp(manifest, NULL);
    cr_assert(strstr(list, "\nindex.html\n") && strstr(list, "\nspmv-roofline-gpu.svg\n"), "%s",
              list);
    free(list);
    free(page);
}

/* A second report into the folder replaces the page and removes the SVGs
 * of charts the new database does not have. */
Test(report_html, next_report_replaces_the_page_and_its_svgs, .timeout = 180)
{
    char dir[512], db[1024], out[1024], other[1024], path[1200];
    tu_tempdir(dir, sizeof dir);
    free(report(dir, 1, db, sizeof db, out, sizeof out));
    struct stat sb;
    tu_path(path, sizeof path, out, "spmv-roofline-gpu.svg");
    cr_assert_eq(stat(path, &sb), 0, "the GPU roofline's SVG");
    tu_path(other, sizeof other, dir, "cpu.db");
    build_db(other, 0);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(other, out, &err), 0, "%s", err.msg);
    cr_assert_neq(stat(path, &sb), 0, "a chart the new database lacks is gone");
    tu_path(path, sizeof path, out, "index.html");
    char *page = tu_slurp(path, NULL);
    cr_assert(!strstr(page, "roofline-gpu") && strstr(page, "id=\"spmv-roofline-cpu\""));
    cr_assert_eq(occurrences(page, "<svg"), count_suffix(out, "-1col.png"));
    free(page);
}

/* The page in a real browser. */
Test(report_html, opens_in_headless_chromium, .timeout = 180)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    free(report(dir, 1, db, sizeof db, out, sizeof out));
    int figures = count_suffix(out, "-1col.png");
    char *got;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = us_sh(&got, "python3 tests/html_browser.py '%s/index.html' --timeout 90"
                   " --click spmv-best-per-matrix:0 --click spmv-best-per-matrix:2"
                   " --click spmv-best-per-matrix:5 --click failures:5 2>&1", out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == 77) {     /* no Chromium: the script's one line, as it is */
        got[strcspn(got, "\n")] = '\0';
        cr_skip_test("%s", got);
        return;
    }
    cr_assert_eq(rc, 0, "%s", got);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert_lt(seconds, 60, "the browser took %.1f s: %s", seconds, got);
    char want[128];
    snprintf(want, sizeof want, "\"listed\": %d,", figures);
    cr_assert(strstr(got, want), "%s: %s", want, got);
    snprintf(want, sizeof want, "\"drawn\": %d", figures);
    cr_assert(strstr(got, want), "%s: %s", want, got);
    cr_assert(strstr(got, "\"console_errors\": []") && strstr(got, "\"requests\": []"), "%s",
              got);
    /* matrix names: natural order (m9 before m10), then reversed; then the
     * nnz column (the rows as the matrix names left them) as numbers, not
     * as text (which puts 100000 before 30000) */
    cr_assert(strstr(got, "\"ascending\": [\"m9 \\\"q\\\" 'a'\", \"m10 <b>&amp;\", "
                          "\"m100 </td>\"], \"descending\": [\"m100 </td>\", \"m10 <b>&amp;\", "
                          "\"m9 \\\"q\\\" 'a'\"]"), "%s", got);
    cr_assert(strstr(got, "\"before\": [\"100000\", \"9000\", \"30000\"], \"ascending\": "
                          "[\"9000\", \"30000\", \"100000\"], \"descending\": [\"100000\", "
                          "\"30000\", \"9000\"]"), "%s", got);
    /* decimals as numbers: 0.06 before 0.2 (a natural text order puts
     * "0.2000" first, reading 06000 as six thousand) */
    cr_assert(strstr(got, "\"ascending\": [\"0.06000 (no interval)\", \"0.2000 (no interval)\", "
                          "\"0.6667 (no interval)\"]"), "%s", got);
    free(got);
}
