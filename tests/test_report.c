/* test_report.c — the report step: charts and report.pdf from a database
 * built through the store API with synthetic runs. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
#include "../plots/report.h"
#include "testutil.h"
#include "util_db.h"

static const sp_kernel k_serial = {.name = "spmv_csr_serial", .operation = "spmv",
                                   .format = "csr", .backend = "serial"};
static const sp_kernel k_omp = {.name = "spmv_csr_omp", .operation = "spmv",
                                .format = "csr", .backend = "openmp"};
static const sp_kernel k_vector = {.name = "spmv_csr_vector_cuda", .operation = "spmv",
                                   .format = "csr", .backend = "cuda", .needs_gpu = 1};
static const sp_kernel k_cusparse = {.name = "spmv_csr_cusparse", .operation = "spmv",
                                     .format = "csr", .backend = "cusparse", .needs_gpu = 1};

/* Every stored time is multiplied by this (a "slower build" for the
 * comparison tests); 1 elsewhere. Each test runs in its own process. */
static double time_factor = 1.0;

/* Store a run whose samples scatter around median seconds (n = 5). */
static void put_run(sp_store *st, int64_t sweep, int64_t matrix, const sp_kernel *k,
                    const char *axes, double median, double flops)
{
    median *= time_factor;
    const double s[5] = {median * 0.97, median, median * 1.08, median * 0.99, median * 1.2};
    sp_run_record r = {.sweep_id = sweep, .matrix_id = matrix, .kernel = sp_kernel_identity(k),
                       .axes_json = axes, .status = SP_RUN_OK, .rel_error = 1e-16,
                       .flops = flops, .bytes = 6 * flops, .warmup = 1, .nsamples = 5,
                       .samples = s};
    if (strcmp(k->backend, "serial") && strcmp(k->backend, "openmp"))   /* GPU phases */
        r.phases = (sp_phases){.convert_s = 1e-3, .h2d_s = 2e-3, .d2h_s = 0.5e-3,
                               .free_s = 0.25e-3};
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
}

static int64_t put_matrix(sp_store *st, const char *source, const char *name, int32_t nnz)
{
    sp_matrix M;
    memset(&M, 0, sizeof M);
    snprintf(M.src.text, sizeof M.src.text, "%s", source);
    snprintf(M.src.name, sizeof M.src.name, "%s", name);
    M.feat = (sp_features){.rows = nnz / 5, .cols = nnz / 5, .nnz = nnz, .row_min = 1,
                           .row_max = 9, .row_mean = 5, .size_class = "small"};
    M.checksum = (uint64_t)nnz * 2654435761u;
    int64_t id;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_matrix(st, sp_matrix_identity(&M), &id, &err), 0, "%s", err.msg);
    return id;
}

/* A sweep with the host's cache roof (0: not measured). */
static int64_t put_sweep_cache(sp_store *st, double cache_gbs, int64_t cache_bytes)
{
    sp_sweep_meta m = {.config_path = "configs/report-test.ini",
                       .config_text = "[sweep]\nrepetitions = 5\n\n[matrices]\n"
                                      "source = gen:laplace2d?n=100\n",
                       .git_commit = "0123456789abcdef", .host = "testhost",
                       .cpu = "Synthetic CPU @ 3 GHz", .cpu_count = 4, .gpu = "Fake H100",
                       .gpu_driver = "13.0", .cuda_runtime = "13.0", .compiler = "gcc 12",
                       .cflags = "-O3 -march=native", .omp_binding = "OMP_PROC_BIND=close",
                       .repetitions = 5, .warmup = 1, .host_triad_gbs = 21.5,
                       .host_triad_threads = 4, .device_copy_gbs = 2900,
                       .host_cache_gbs = cache_gbs, .host_cache_bytes = cache_bytes};
    int64_t id;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    return id;
}

static int64_t put_sweep(sp_store *st)
{
    return put_sweep_cache(st, 0, 0);
}

/* CPU runs on one matrix: serial, OpenMP at 1, 2, 4 threads. */
static void put_cpu_runs(sp_store *st, int64_t sweep, int64_t m, double scale)
{
    double flops = 2e6 * scale;
    put_run(st, sweep, m, &k_serial, "{}", 4e-3 * scale, flops);
    put_run(st, sweep, m, &k_omp, "{\"threads\":1}", 4.2e-3 * scale, flops);
    put_run(st, sweep, m, &k_omp, "{\"threads\":2}", 2.3e-3 * scale, flops);
    put_run(st, sweep, m, &k_omp, "{\"threads\":4}", 1.4e-3 * scale, flops);
}

/* GPU runs: a blocksize sweep and a library kernel without that axis. */
static void put_gpu_runs(sp_store *st, int64_t sweep, int64_t m, double scale)
{
    double flops = 2e6 * scale;
    put_run(st, sweep, m, &k_vector, "{\"blocksize\":64}", 9e-5 * scale, flops);
    put_run(st, sweep, m, &k_vector, "{\"blocksize\":128}", 6e-5 * scale, flops);
    put_run(st, sweep, m, &k_vector, "{\"blocksize\":256}", 7e-5 * scale, flops);
    put_run(st, sweep, m, &k_cusparse, "{}", 5e-5 * scale, flops);
}

static void put_failed(sp_store *st, int64_t sweep, int64_t m)
{
    sp_run_record r = {.sweep_id = sweep, .matrix_id = m, .kernel = sp_kernel_identity(&k_omp),
                       .axes_json = "{\"threads\":8}", .status = SP_RUN_FAILED,
                       .error = "relative error 1e-3 above tolerance", .rel_error = 1e-3};
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
}

/* A database with two matrices, CPU runs, optionally GPU runs, a failure. */
static void build_db(const char *path, int with_gpu)
{
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    int64_t a = put_matrix(st, "gen:laplace2d?n=100", "laplace2d_n100", 49600);
    int64_t b = put_matrix(st, "suitesparse:HB/bcsstk13", "HB/bcsstk13", 83883);
    put_cpu_runs(st, sw, a, 1.0);
    put_cpu_runs(st, sw, b, 1.7);
    if (with_gpu) {
        put_gpu_runs(st, sw, a, 1.0);
        put_gpu_runs(st, sw, b, 1.7);
    }
    put_failed(st, sw, a);
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
}

static void assert_png(const char *dir, const char *name)
{
    char path[1024];
    tu_path(path, sizeof path, dir, name);
    size_t n;
    char *buf = tu_slurp(path, &n);
    cr_assert_gt(n, 1024, "%s is only %zu bytes", name, n);
    cr_assert(memcmp(buf, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG", name);
    free(buf);
}

static int file_exists(const char *dir, const char *name)
{
    char path[1024];
    struct stat sb;
    tu_path(path, sizeof path, dir, name);
    return stat(path, &sb) == 0;
}

/* Pages in a PDF: "/Type /Page" objects, not "/Type /Pages". */
static int pdf_pages(const char *path)
{
    size_t n;
    char *buf = tu_slurp(path, &n);
    cr_assert(n > 4 && memcmp(buf, "%PDF", 4) == 0, "%s is not a PDF", path);
    int pages = 0;
    const char *key = "/Type /Page";
    for (char *p = memmem(buf, n, key, strlen(key)); p;
         p = memmem(p + 1, n - (size_t)(p + 1 - buf), key, strlen(key)))
        if (p[strlen(key)] != 's')
            pages++;
    free(buf);
    return pages;
}

/* Number of files in dir whose name contains part. */
static int count_files(const char *dir, const char *part, const char *suffix)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (strstr(e->d_name, part) && len >= sl && strcmp(e->d_name + len - sl, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* The charts of dir: its PNGs, less the one-column variants (a page of
 * report.pdf each). */
static int count_charts(const char *dir)
{
    return count_files(dir, "", ".png") - count_files(dir, "", "-1col.png");
}

/* The text of out/name (NUL-terminated). */
static char *read_out(const char *out, const char *name)
{
    char path[1200];
    size_t n;
    tu_path(path, sizeof path, out, name);
    return tu_slurp(path, &n);
}

Test(report, full_report_writes_charts_and_pdf, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(out, sizeof out, dir, "report/nested");
    build_db(db, 1);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    /* figures (paper sizes: .png, .pdf, -1col.png, -1col.pdf) and text pages */
    static const char *const figures[] = {
        "spmv-geomean-vs-spmv_csr_serial-1", "spmv-geomean-vs-spmv_csr_cusparse-1",
        "spmv-speedup-vs-spmv_csr_serial-1", "spmv-speedup-vs-spmv_csr_cusparse-1",
        "spmv-rate-by-matrix-1", "spmv-roofline-cpu", "spmv-roofline-gpu",
        "spmv-gpu-phases-1", "spmv-rate-vs-threads-laplace2d_n100",
        "spmv-rate-vs-blocksize-laplace2d_n100", "spmv-rate-vs-threads-HB_bcsstk13",
        "spmv-rate-vs-blocksize-HB_bcsstk13"};
    static const char *const pages[] = {"spmv-best-per-matrix-1", "spmv-own-vs-vendor-1",
                                        "spmv-own-vs-vendor-geomean-1", "failures-1",
                                        "contents-1"};
    int nfig = (int)(sizeof figures / sizeof *figures), npages = 5;
    char name[300];
    for (int i = 0; i < nfig; i++) {
        static const char *const suffix[] = {".png", "-1col.png", ".pdf", "-1col.pdf"};
        for (int k = 0; k < 4; k++) {
            snprintf(name, sizeof name, "%s%s", figures[i], suffix[k]);
            cr_assert(file_exists(out, name), "%s missing", name);
            if (k < 2)
                assert_png(out, name);
        }
    }
    for (int i = 0; i < npages; i++) {
        snprintf(name, sizeof name, "%s.png", pages[i]);
        assert_png(out, name);
        snprintf(name, sizeof name, "%s-1col.png", pages[i]);
        cr_assert_not(file_exists(out, name), "a text page has no paper sizes");
    }
    cr_assert_eq(count_charts(out), nfig + npages, "unexpected extra charts");
    char pdf[1100];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    int np = pdf_pages(pdf);
    cr_assert_eq(np, nfig + npages + 1, "report.pdf has %d pages, want the title + %d", np,
                 nfig + npages);
    /* contents: the charts after the title (page 1) and one contents page */
    char *c = read_out(out, "contents.tsv");
    cr_assert(!strncmp(c, "page\tchart (PNG file name)\n3\tspmv-best-per-matrix-1.png\n", 52),
              "%s", c);
    snprintf(name, sizeof name, "\n%d\tfailures-1.png\n", nfig + npages + 1);
    cr_assert(strstr(c, name), "the last chart on page %d: %s", nfig + npages + 1, c);
    free(c);
    /* the rooflines: a device each, under its own measured roof */
    char *g = read_out(out, "spmv-roofline-cpu.gp");
    cr_assert(strstr(g, "x * 21.5 ") && strstr(g, "host STREAM triad, 4 threads, 21.5 GB/s") &&
              !strstr(g, "x * 2900 ") && strstr(g, "'spmv_csr_omp'") &&
              !strstr(g, "spmv_csr_cusparse"), "%s", g);
    free(g);
    g = read_out(out, "spmv-roofline-gpu.gp");
    cr_assert(strstr(g, "x * 2900 ") && strstr(g, "device copy, 2900 GB/s") &&
              !strstr(g, "x * 21.5 ") && strstr(g, "'spmv_csr_cusparse'") &&
              !strstr(g, "spmv_csr_omp"), "%s", g);
    /* each matrix labelled, at each size */
    cr_assert(strstr(g, "'laplace2d_n100' at graph") && strstr(g, "'HB/bcsstk13' at graph"), "%s",
              g);
    free(g);
    /* the phase bars: each GPU kernel at its fastest blocksize, in ms, the
     * release last; n = 5 and one round: no interval, no spread, no bars */
    char *t = read_out(out, "spmv-gpu-phases-1.dat");
    cr_assert(strstr(t, "laplace2d_n100 / spmv_csr_vector_cuda\t1.0\t2.0\t0.06\t0.5\t0.25\t"
                        "NaN\tNaN\t1\tNaN\tNaN\n"), "%s", t);
    cr_assert(strstr(t, "laplace2d_n100 / spmv_csr_cusparse\t1.0\t2.0\t0.05\t0.5\t0.25\t"), "%s",
              t);
    free(t);
    t = read_out(out, "spmv-gpu-phases-1.gp");
    cr_assert(strstr(t, "using 6 lt 5 title 'release'") && !strstr(t, "yerrorbars"), "%s", t);
    free(t);
}

Test(report, summary_and_failure_tables, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(out, sizeof out, dir, "report");
    build_db(db, 1);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    char *t = read_out(out, "failures.tsv");
    cr_assert(strstr(t, "failed\trun\tlaplace2d_n100\tspmv_csr_omp\tthreads=8\t"
                        "relative error 1e-3 above tolerance\n"), "%s", t);
    free(t);
    t = read_out(out, "spmv-best-per-matrix.tsv");
    /* laplace2d: cusparse at 5e-5 s is the fastest; serial 4e-3 s -> 80x;
     * n = 5 gives no interval, and every number says so; the baselines
     * and the unit are named in the header */
    const char *head = "matrix\tsize\tnnz\tbest kernel\taxes\tmedian ms [95 % CI]\t"
                       "GFLOPS [95 % CI]\tvs spmv_csr_serial [95 % CI]\t"
                       "vs spmv_csr_cusparse [95 % CI]\trunner-up\n";
    cr_assert(!strncmp(t, head, strlen(head)), "%s", t);
    cr_assert(strstr(t, "laplace2d_n100\tsmall\t49600\tspmv_csr_cusparse\t\t"
                        "0.05000 (no interval)\t40.00 (no interval)\t"
                        "80.0x (no interval)\t1.00x (no interval)\t"
                        "spmv_csr_vector_cuda (no interval)\n"),
              "%s", t);
    free(t);
    /* the headline: a chart and tables beside it */
    t = read_out(out, "spmv-geomean-speedup.tsv");
    /* omp's best is threads=4 on both matrices: 4e-3/1.4e-3 = 2.857 each */
    cr_assert(strstr(t, "spmv_csr_omp\tcsr/openmp\tcpu\t2\t2.86x (no interval)\t2\t"
                        "0.0357x (no interval)\t2\n"), "%s", t);
    free(t);
    /* ours against the vendor: on the GPU the vector kernel's best (6e-5 s
     * at blocksize 128) against cuSPARSE's 5e-5 s, 5/6 on both matrices
     * (times scaled alike); no interval (n = 5): no verdict; the CPU has
     * no vendor, so no row */
    t = read_out(out, "spmv-own-vs-vendor.tsv");
    cr_assert(strstr(t, "gpu\tdouble\tlaplace2d_n100\t49600\tspmv_csr_vector_cuda\t"
                        "blocksize=128\t0.06000 (no interval)\tspmv_csr_cusparse\t\t"
                        "0.05000 (no interval)\t0.833x (no interval)\tno interval\t"),
              "%s", t);
    cr_assert(!strstr(t, "\ncpu\t"), "%s", t);
    free(t);
    t = read_out(out, "spmv-own-vs-vendor-geomean.tsv");
    cr_assert(strstr(t, "gpu\tdouble\tall\t2\t0.833x (no interval)\t0\t0\t0\t0.83\t"),
              "%s", t);
    free(t);
    t = read_out(out, "spmv-geomean-speedup.md");
    cr_assert(strstr(t, "| kernel | family | device | matrices | vs spmv_csr_serial [bound] |") &&
              strstr(t, "\n| --- | --- |") &&
              strstr(t, "\n| spmv_csr_omp | csr/openmp | cpu | 2 | 2.86x (no interval) | 2 |"),
              "%s", t);
    free(t);
    t = read_out(out, "spmv-geomean-speedup.tex");
    cr_assert(strstr(t, "\\begin{tabular}{lllrlrlr}\n\\toprule\n") &&
              strstr(t, "\nspmv\\_csr\\_omp & csr/openmp & cpu & 2 & 2.86x (no interval) & 2 & ") &&
              strstr(t, "\\bottomrule\n\\end{tabular}\n"), "%s", t);
    free(t);
    t = read_out(out, "spmv-geomean-speedup.csv");
    cr_assert(strstr(t, "spmv_csr_omp,csr/openmp,cpu,2,2.86x (no interval),2,"), "%s", t);
    free(t);
    t = read_out(out, "spmv-geomean-vs-spmv_csr_serial-1.dat");
    cr_assert(strstr(t, "\t2.85714286\t2.85714286\t2.85714286\t1\t2.85714286\t2\tspmv_csr_omp\n"),
              "the geomean bar, from 1, no bound: %s", t);
    free(t);
}

/* One round of a run (flops 2e6, bytes 12e6): its samples and, for a GPU
 * kernel, its phases. */
static void put_round(sp_store *st, int64_t sweep, int64_t m, const sp_kernel *k, int round,
                      const double *s, int n, sp_phases phases)
{
    sp_run_record r = {.sweep_id = sweep, .matrix_id = m, .kernel = sp_kernel_identity(k), .axes_json = "{}",
                       .status = SP_RUN_OK, .rel_error = 1e-16, .flops = 2e6, .bytes = 12e6,
                       .warmup = 1, .nsamples = n, .samples = s, .phases = phases,
                       .round = round};
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
}

/* Runs with known intervals. n = 6 gives the interval [min, max] (ranks
 * 1 and 6; db/stats.h). Matrix known_a: serial 4e-3 [3.8e-3, 4.2e-3],
 * cuSPARSE 5e-5 [4.8e-5, 5.2e-5] ahead of vector_cuda 5.1e-5 [4.9e-5,
 * 5.3e-5] within the noise (a tie), vector_cuda in 3 rounds of two samples
 * (each round's median 5.1e-5: the rounds do not widen the interval) with
 * phases that differ by round, and OpenMP with n = 5 (no interval).
 * Matrix known_b: every time of known_a x2 (serial) and x4 (cuSPARSE),
 * vector_cuda 3e-4 [2.9e-4, 3.1e-4] clearly behind (not a tie). */
static void build_interval_db(const char *path)
{
    static const double ser[6] = {3.8e-3, 3.9e-3, 4.0e-3, 4.0e-3, 4.1e-3, 4.2e-3};
    static const double cus[6] = {4.8e-5, 4.9e-5, 5.0e-5, 5.0e-5, 5.1e-5, 5.2e-5};
    static const double vec[3][2] = {{4.9e-5, 5.3e-5}, {5.0e-5, 5.2e-5}, {5.1e-5, 5.1e-5}};
    static const double vec_b[6] = {2.9e-4, 2.95e-4, 3.0e-4, 3.0e-4, 3.05e-4, 3.1e-4};
    static const sp_phases ph[3] = {{1e-3, 2e-3, 0.5e-3, 0.25e-3},
                                    {1.2e-3, 2.2e-3, 0.5e-3, 0.3e-3},
                                    {0.9e-3, 1.9e-3, 0.5e-3, 0.2e-3}};
    static const sp_phases none = {0, 0, 0, 0};
    double ser_b[6], cus_b[6];
    for (int i = 0; i < 6; i++)
        ser_b[i] = 2 * ser[i], cus_b[i] = 4 * cus[i];
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    int64_t a = put_matrix(st, "gen:a", "known_a", 10000);
    int64_t b = put_matrix(st, "gen:b", "known_b", 20000);
    put_round(st, sw, a, &k_serial, 0, ser, 6, none);
    put_round(st, sw, a, &k_cusparse, 0, cus, 6, ph[0]);
    for (int r = 0; r < 3; r++)
        put_round(st, sw, a, &k_vector, r, vec[r], 2, ph[r]);
    put_run(st, sw, a, &k_omp, "{}", 1.4e-3, 2e6);
    put_round(st, sw, b, &k_serial, 0, ser_b, 6, none);
    put_round(st, sw, b, &k_cusparse, 0, cus_b, 6, ph[0]);
    put_round(st, sw, b, &k_vector, 0, vec_b, 6, ph[0]);
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
}

/* The numbers of the line of text that starts with prefix (tab-separated,
 * after it), NaN where the field is "NaN". */
static int line_numbers(const char *text, const char *prefix, double *v, int max)
{
    const char *p = strstr(text, prefix);
    cr_assert_not_null(p, "no line %s in:\n%s", prefix, text);
    p += strlen(prefix);
    int n = 0;
    while (n < max && *p && *p != '\n') {
        char *end;
        v[n++] = strtod(p, &end);
        cr_assert(end > p, "not a number at %.20s", p);
        p = *end == '\t' ? end + 1 : end;
    }
    return n;
}

/* The report's charts and tables carry the intervals of the database. */
Test(report, intervals_on_every_chart_and_table, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "intervals.db");
    tu_path(out, sizeof out, dir, "report");
    build_interval_db(db);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    /* roofline: cuSPARSE on known_a at 2e6 / 5e-5 s = 40 GFLOPS, from
     * 2e6 / 5.2e-5 to 2e6 / 4.8e-5 (12e6 bytes: 11.44 MiB, 240 GB/s, under
     * the GPU's 2900); OpenMP's point without an interval (its bar: none) */
    double v[12];
    char *t = read_out(out, "spmv-roofline-gpu.dat");
    cr_assert_eq(line_numbers(t, "\n0.166666667\t40\t", v, 4), 4, "%s", t);
    cr_assert(fabs(v[0] - 2e6 / 5.2e-5 / 1e9) < 1e-6 && fabs(v[1] - 2e6 / 4.8e-5 / 1e9) < 1e-6,
              "rate_lo %.9g, rate_hi %.9g", v[0], v[1]);
    cr_assert(v[2] == 0 && fabs(v[3] - 11.44) < 1e-9, "not above the roof; 11.44 MiB");
    free(t);
    t = read_out(out, "spmv-roofline-cpu.dat");
    cr_assert(strstr(t, "\n0.166666667\t1.42857143\t1.42857143\t1.42857143\t0\t11.44\t"
                        "known_a\n"), "%s", t);
    free(t);
    t = read_out(out, "spmv-roofline-gpu.gp");
    cr_assert(strstr(t, "using 1:2:3:4 with yerrorbars"), "%s", t);
    free(t);
    assert_png(out, "spmv-roofline-gpu.png");
    /* phases: the median round's (1, 2, 0.5, 0.25 ms), the kernel 0.051 ms
     * [0.049, 0.053], 3 rounds whose phases sum to 3.75, 4.2 and 3.5 ms:
     * end to end from 3.5 + 0.051 to 4.2 + 0.051 ms */
    t = read_out(out, "spmv-gpu-phases-1.dat");
    cr_assert_eq(line_numbers(t, "known_a / spmv_csr_vector_cuda\t", v, 12), 10, "%s", t);
    const double want[10] = {1, 2, 0.051, 0.5, 0.25, 0.049, 0.053, 3, 3.551, 4.251};
    for (int i = 0; i < 10; i++)
        cr_assert(fabs(v[i] - want[i]) < 1e-12, "column %d: %.17g, want %g\n%s", i + 2, v[i],
                  want[i], t);
    cr_assert(strstr(t, "known_a / spmv_csr_cusparse\t1.0\t2.0\t0.05\t0.5\t0.25\t0.048\t0.052\t"
                        "1\tNaN\tNaN\n"), "one round: no spread\n%s", t);
    free(t);
    t = read_out(out, "spmv-gpu-phases-1.gp");
    cr_assert(strstr(t, "using ($0-0.18):($7 == $7 ? $2+$3+$4 : NaN):($2+$3+$7):($2+$3+$8)"
                        " with yerrorbars") &&
              strstr(t, "using ($0+0.18):($10 == $10 ? $2+$3+$4+$5+$6 : NaN):10:11"
                        " with yerrorbars"), "%s", t);
    free(t);
    assert_png(out, "spmv-gpu-phases-1.png");
    /* the best kernel: every number with its interval; a tie on known_a */
    t = read_out(out, "spmv-best-per-matrix.tsv");
    cr_assert(strstr(t, "known_a\tsmall\t10000\tspmv_csr_cusparse\t\t"
                        "0.05000 [0.04800, 0.05200]\t40.00 [38.46, 41.67]\t"
                        "80.0x [73.1, 87.5]\t1.00x [0.92, 1.08]\t"
                        "tie with spmv_csr_vector_cuda\n"), "%s", t);
    cr_assert(strstr(t, "known_b\tsmall\t20000\tspmv_csr_cusparse\t\t"
                        "0.2000 [0.1920, 0.2080]\t10.00 [9.62, 10.42]\t"
                        "40.0x [36.5, 43.7]\t1.00x [0.92, 1.08]\t"
                        "beats spmv_csr_vector_cuda\n"), "%s", t);
    free(t);
    /* geomeans: cuSPARSE sqrt(80 x 40) = 56.6, between the geomeans of the
     * ends sqrt(73.08 x 36.54) = 51.7 and sqrt(87.5 x 43.75) = 61.9;
     * OpenMP has no interval */
    t = read_out(out, "spmv-geomean-speedup.tsv");
    cr_assert(strstr(t, "spmv_csr_cusparse\tcsr/cusparse\tgpu\t2\t56.6x [51.7, 61.9]\t2\t"
                        "1.00x [0.92, 1.08]\t2\n"), "%s", t);
    cr_assert(strstr(t, "spmv_csr_omp\tcsr/openmp\tcpu\t1\t2.86x (no interval)\t1\t"), "%s", t);
    free(t);
    /* ... drawn: the bar from 1 to 56.6, its bound as the error bar */
    t = read_out(out, "spmv-geomean-vs-spmv_csr_serial-1.dat");
    cr_assert(strstr(t, "\n2\t56.5685425\t51.6731879\t61.8718434\t1\t56.5685425\t2\t"
                        "spmv_csr_cusparse\n"), "%s", t);
    free(t);
    t = read_out(out, "spmv-best-per-matrix-1.gp");
    cr_assert(strstr(t, "tie with spmv_csr_vector_cuda") && strstr(t, "[38.46, 41.67]"), "%s",
              t);
    free(t);
}

/* The verdict column of compare.tsv, every row. */
static void assert_all_verdicts(const char *out, const char *verdict, int rows)
{
    char *t = read_out(out, "compare.tsv");
    int n = 0;
    for (char *line = strchr(t, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        cr_assert(!strncmp(line + 1, verdict, strlen(verdict)), "expected %s: %s", verdict,
                  line + 1);
        n++;
    }
    cr_assert_eq(n, rows, "%s", t);
    free(t);
}

/* The verdicts themselves are tested in test_compare.c; here: the table
 * is written, with this / base ratios. The synthetic runs (5 samples spread
 * over 23 %) have no interval, and their range is far wider than the 5 %
 * noise threshold: every combination is "noisy", even twice as slow. */
Test(report, comparison_table_of_noisy_runs, .timeout = 120)
{
    char dir[512], db[1024], slow[1024], fast[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(slow, sizeof slow, dir, "slow.db");
    tu_path(fast, sizeof fast, dir, "fast.db");
    tu_path(out, sizeof out, dir, "report");
    build_db(db, 1);
    time_factor = 2.0;
    build_db(slow, 1);
    time_factor = 0.5;
    build_db(fast, 1);
    sp_err err = {{0}};
    sp_report_opts o = {.base_db = db};
    cr_assert_eq(sp_report_run(db, out, &o, &err), 0, "%s", err.msg);
    assert_all_verdicts(out, "noisy", 16);
    assert_png(out, "compare-1.png");
    cr_assert_eq(sp_report_run(slow, out, &o, &err), 0, "%s", err.msg);
    assert_all_verdicts(out, "noisy", 16);
    char *t = read_out(out, "compare.tsv");
    cr_assert(strstr(t, "\t2.000x\t"), "ratio: this / base: %s", t);
    free(t);
    cr_assert_eq(sp_report_run(fast, out, &o, &err), 0, "%s", err.msg);
    assert_all_verdicts(out, "noisy", 16);
    t = read_out(out, "compare.tsv");
    cr_assert(strstr(t, "\t0.500x\t"), "ratio: this / base: %s", t);
    free(t);
    o.base_db = "/nonexistent/base.db";
    cr_assert_eq(sp_report_run(db, out, &o, &err), -1);
    cr_assert(strstr(err.msg, "/nonexistent/base.db"), "%s", err.msg);
}

Test(report, data_files_hold_medians_and_file_names_are_safe, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(out, sizeof out, dir, "out");
    build_db(db, 1);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    /* threads=4 on laplace: 2e6 flops / 1.4e-3 s median = 1.42857 GFLOP/s */
    char path[1100];
    tu_path(path, sizeof path, out, "spmv-rate-vs-threads-laplace2d_n100.dat");
    size_t n;
    char *dat = tu_slurp(path, &n);
    cr_assert(strstr(dat, "4\t1.42857143\t"), "median rate missing:\n%s", dat);
    free(dat);
    tu_path(path, sizeof path, out, "spmv-speedup-vs-spmv_csr_serial-1.dat");
    dat = tu_slurp(path, &n);
    cr_assert(strstr(dat, "spmv_csr_omp") && strstr(dat, "\t80\t"),
              "cuSPARSE speedup 4e-3/5e-5 = 80 missing:\n%s", dat);
    free(dat);
    tu_path(path, sizeof path, out, "spmv-speedup-vs-spmv_csr_serial-1.gp");
    dat = tu_slurp(path, &n);
    cr_assert(strstr(dat, "title 'spmv_csr_omp'") && !strstr(dat, "title 'spmv_csr_serial'"),
              "the baseline is no bar of its own chart: %s", dat);
    free(dat);
    DIR *d = opendir(out);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        cr_assert_eq(strspn(e->d_name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789_.-"), strlen(e->d_name),
                     "unsafe file name %s", e->d_name);
    closedir(d);
    tu_path(path, sizeof path, out, "title.gp");
    dat = tu_slurp(path, &n);
    cr_assert(strstr(dat, "testhost") && strstr(dat, "Fake H100") &&
              strstr(dat, "0123456789abcdef") && strstr(dat, "report-test.ini"),
              "provenance missing from the title page:\n%s", dat);
    cr_assert(strstr(dat, "harness: cache ") && strstr(dat, "ok runs by cache: warm "),
              "the harness's settings missing from the title page:\n%s", dat);
    free(dat);
}

Test(report, cpu_only_database_makes_no_gpu_chart, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "cpu.db");
    tu_path(out, sizeof out, dir, "out");
    build_db(db, 0);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    assert_png(out, "spmv-rate-vs-threads-laplace2d_n100.png");
    assert_png(out, "spmv-speedup-vs-spmv_csr_serial-1.png");
    assert_png(out, "spmv-roofline-cpu.png");
    cr_assert_eq(count_files(out, "spmv-speedup-vs-", ".png"), 2,
                 "no vendor kernel, no vendor chart (two sizes of the serial one)");
    cr_assert_eq(count_files(out, "-gpu", ".png") + count_files(out, "blocksize", ".png"), 0,
                 "a GPU chart without GPU runs");
    cr_assert_eq(count_files(out, "rate-vs-threads", ".png"), 4, "two matrices, two sizes");
    char pdf[1100];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    cr_assert_geq(pdf_pages(pdf), 4);
}

Test(report, picks_latest_sweep_or_the_one_asked_for, .timeout = 120)
{
    char dir[512], db[1024], out[1024], path[1100];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "two.db");
    tu_path(out, sizeof out, dir, "out");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t first = put_sweep(st), m1 = put_matrix(st, "gen:first", "first_matrix", 1000);
    put_cpu_runs(st, first, m1, 1.0);
    int64_t second = put_sweep(st), m2 = put_matrix(st, "gen:second", "second_matrix", 2000);
    put_cpu_runs(st, second, m2, 1.0);
    int64_t third = put_sweep(st);  /* only a failure: not a candidate */
    put_failed(st, third, m2);
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    cr_assert(file_exists(out, "spmv-rate-vs-threads-second_matrix.png"));
    cr_assert(!file_exists(out, "spmv-rate-vs-threads-first_matrix.png"));
    tu_path(out, sizeof out, dir, "out1");
    cr_assert_eq(sp_report_sweep(db, first, out, &err), 0, "%s", err.msg);
    cr_assert(file_exists(out, "spmv-rate-vs-threads-first_matrix.png"));
    cr_assert(!file_exists(out, "spmv-rate-vs-threads-second_matrix.png"));
    tu_path(path, sizeof path, out, "report.gp");
    size_t n;
    char *gp = tu_slurp(path, &n);
    char want[64];
    snprintf(want, sizeof want, "sweep %lld", (long long)first);
    cr_assert(strstr(gp, want), "%s", gp);
    free(gp);
    /* a sweep with only a failure: asked for, it is reported (failures) */
    tu_path(out, sizeof out, dir, "out3");
    cr_assert_eq(sp_report_sweep(db, third, out, &err), 0, "%s", err.msg);
    cr_assert(file_exists(out, "failures-1.png"));
    cr_assert_eq(count_files(out, "rate-vs-", ".png"), 0);
}

Test(report, missing_database_named_in_error)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "absent.db");
    tu_path(out, sizeof out, dir, "out");
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), -1);
    cr_assert(strstr(err.msg, db) && strstr(err.msg, "no such database"), "%s", err.msg);
    cr_assert(!file_exists(dir, "absent.db"), "report must not create the database");
}

/* A sweep in which no run succeeded is when the failures page is needed
 * most: the report draws the title page and the failures table, skips the
 * charts that need ok runs and says so in one line. */
Test(report, no_successful_run_still_draws_title_and_failures, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "failed.db");
    tu_path(out, sizeof out, dir, "out");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st), m = put_matrix(st, "gen:x", "x", 100);
    put_failed(st, sw, m);
    sp_run_record r = {.sweep_id = sw, .matrix_id = m, .kernel = sp_kernel_identity(&k_vector),
                       .axes_json = "{\"blocksize\":64}", .status = SP_RUN_CRASHED,
                       .error = "killed by SIGSEGV", .rel_error = NAN};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
    r.status = SP_RUN_TIMEOUT;
    r.error = "no result after 600 s";
    r.axes_json = "{\"blocksize\":128}";
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
    FILE *log = tmpfile();
    sp_report_opts o = {.log = log};
    cr_assert_eq(sp_report_run(db, out, &o, &err), 0, "%s", err.msg);
    assert_png(out, "failures-1.png");
    cr_assert_eq(count_files(out, "", ".png"), 1, "only the failures page is a chart");
    char pdf[1100];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    cr_assert_eq(pdf_pages(pdf), 2, "the title page and the failures page");
    char *t = read_out(out, "failures.tsv");
    cr_assert(strstr(t, "crashed\trun\tx\tspmv_csr_vector_cuda\tblocksize=64\tkilled by SIGSEGV"),
              "%s", t);
    cr_assert(strstr(t, "timeout\trun\tx\t") && strstr(t, "failed\trun\tx\t"), "%s", t);
    free(t);
    t = read_out(out, "title.gp");
    cr_assert(strstr(t, "runs: 3 (0 ok, 1 failed"), "%s", t);
    /* a hand-made sweep row names no library: said, not left blank */
    cr_assert(strstr(t, "outside libraries: none recorded"), "%s", t);
    free(t);
    char note[1024] = "";
    rewind(log);
    cr_assert_not_null(fgets(note, sizeof note, log), "no note on the skipped charts");
    cr_assert(strstr(note, "no successful runs") && strstr(note, "skipped"), "%s", note);
    cr_assert_null(fgets(note, sizeof note, log), "one line: %s", note);
    fclose(log);
}

/* A database without any sweep has nothing to report. */
Test(report, database_without_sweeps_is_refused)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "empty.db");
    tu_path(out, sizeof out, dir, "out");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), -1);
    cr_assert(strstr(err.msg, db) && strstr(err.msg, "no sweep"), "%s", err.msg);
    cr_assert_not(file_exists(dir, "out"), "nothing to report, nothing written");
}

/* No double quote, tab or carriage return in any field of out's .dat
 * files: gnuplot reads a field that starts with '"' up to the next quote,
 * swallowing the columns after it. */
static void assert_data_files_plain(const char *out)
{
    DIR *d = opendir(out);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".dat"))
            continue;
        char *t = read_out(out, e->d_name);
        cr_assert_null(strpbrk(t, "\"\r"), "%s: %s", e->d_name, t);
        free(t);
    }
    closedir(d);
}

/* Names from a foreign or merged database reach gnuplot: '%' (tic labels
 * are formats), quotes, backslash, '_', '&', '@', newline and tab in a
 * matrix and a kernel name. gnuplot must draw every chart. */
Test(report, gnuplot_special_characters_in_names, .timeout = 120)
{
    static const sp_kernel k_odd = {.name = "odd_%d \"k\" 'k' \\k_&k@k\nk", .operation = "spmv",
                                    .format = "csr", .backend = "cuda", .needs_gpu = 1};
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "odd.db");
    tu_path(out, sizeof out, dir, "out");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    int64_t m = put_matrix(st, "gen:odd", "\"100% of 'it'\" \\ a_b & c@d %s%d\nnext\tcol", 4000);
    put_cpu_runs(st, sw, m, 1.0);
    put_gpu_runs(st, sw, m, 1.0);
    put_run(st, sw, m, &k_odd, "{\"blocksize\":64}", 3e-5, 2e6);
    put_failed(st, sw, m);
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    static const char *const charts[] = {
        "spmv-speedup-vs-spmv_csr_serial-1.png", "spmv-speedup-vs-spmv_csr_cusparse-1.png",
        "spmv-best-per-matrix-1.png", "failures-1.png", "spmv-gpu-phases-1.png",
        "spmv-roofline-gpu.png", "spmv-roofline-cpu-1col.png", "spmv-rate-by-matrix-1.png"};
    for (int i = 0; i < 8; i++)
        assert_png(out, charts[i]);
    cr_assert_eq(count_files(out, "rate-vs-", ".png"), 4, "the CPU and the GPU rate chart");
    DIR *d = opendir(out);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".png"))
            assert_png(out, e->d_name);
    closedir(d);
    assert_data_files_plain(out);
    /* the name cut for a tic (its head and tail), '%' doubled */
    char *g = read_out(out, "spmv-speedup-vs-spmv_csr_serial-1.gp");
    cr_assert(strstr(g, "'\"100%% of ''i..t col' 0"), "the tic label, '%%' doubled: %s", g);
    free(g);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted, one per line (a malloc'd string). */
static char *list_dir(const char *dir)
{
    char *names[512];
    int n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            cr_assert_lt(n, 512);
            names[n++] = strdup(e->d_name);
        }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, compare_strings);
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    char *all = calloc(1, len);
    for (int i = 0; i < n; i++) {
        strcat(all, names[i]);
        strcat(all, "\n");
        free(names[i]);
    }
    return all;
}

/* A second report into the same folder: of the first report's files only
 * those the second wrote again remain (the folder then holds what a report
 * into an empty folder holds), and files the report did not write stay. */
Test(report, second_report_into_the_same_folder_replaces_the_first, .timeout = 180)
{
    char dir[512], big[1024], small[1024], out[1024], fresh[1024], path[1100];
    tu_tempdir(dir, sizeof dir);
    tu_path(big, sizeof big, dir, "big.db");
    tu_path(small, sizeof small, dir, "small.db");
    tu_path(out, sizeof out, dir, "report");
    tu_path(fresh, sizeof fresh, dir, "fresh");
    build_db(big, 1);                   /* two matrices, CPU and GPU runs */
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(small, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    put_cpu_runs(st, sw, put_matrix(st, "gen:one", "only_matrix", 5000), 1.0);
    sp_store_close(st);
    cr_assert_eq(sp_report(big, out, &err), 0, "%s", err.msg);
    cr_assert(file_exists(out, "spmv-rate-vs-blocksize-HB_bcsstk13.png") &&
              file_exists(out, "spmv-geomean-speedup.tex") &&
              file_exists(out, "spmv-geomean-vs-spmv_csr_cusparse-1-1col.pdf"));
    tu_path(path, sizeof path, out, "notes.txt");
    tu_write_file(path, "mine\n");
    tu_path(path, sizeof path, out, "gflops-mine.png");
    tu_write_file(path, "a chart of mine, not the report's\n");
    cr_assert_eq(sp_report(small, out, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_report(small, fresh, &err), 0, "%s", err.msg);
    tu_path(path, sizeof path, fresh, "notes.txt");
    tu_write_file(path, "mine\n");
    tu_path(path, sizeof path, fresh, "gflops-mine.png");
    tu_write_file(path, "a chart of mine, not the report's\n");
    char *got = list_dir(out), *want = list_dir(fresh);
    cr_assert_str_eq(got, want, "left over from the first report, or missing");
    free(got);
    free(want);
    char pdf[1100];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    cr_assert_eq(pdf_pages(pdf), count_charts(out), "title + charts, not gflops-mine");
    cr_assert_not(file_exists(out, "spmv-geomean-vs-spmv_csr_cusparse-1-1col.pdf"),
                  "no GPU kernel, no vendor chart: gone");
    /* an edited list reaches neither another folder nor a database */
    tu_path(path, sizeof path, dir, "outside.png");
    tu_write_file(path, "x");
    tu_path(path, sizeof path, out, "kept.db");
    tu_write_file(path, "x");
    tu_path(path, sizeof path, out, "report-files.txt");
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("../outside.png\nkept.db\n.hidden.png\n", f);
    fclose(f);
    cr_assert_eq(sp_report(small, out, &err), 0, "%s", err.msg);
    cr_assert(file_exists(dir, "outside.png") && file_exists(out, "kept.db"));
}

Test(report, foreign_files_rejected)
{
    char dir[512], path[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(out, sizeof out, dir, "out");
    tu_path(path, sizeof path, dir, "text.db");
    tu_write_file(path, "not a database at all, just some text that is long enough to "
                        "cover an SQLite header of one hundred bytes, surely it is.\n");
    sp_err err = {{0}};
    cr_assert_eq(sp_report(path, out, &err), -1);
    cr_assert(strstr(err.msg, path) && strstr(err.msg, "not an SQLite database"), "%s",
              err.msg);
    tu_path(path, sizeof path, dir, "zero.db");
    tu_write_file(path, "");
    cr_assert_eq(sp_report(path, out, &err), -1);
    cr_assert(strstr(err.msg, "not an spsweep results database"), "%s", err.msg);
}

Test(report, missing_gnuplot_is_a_clear_error, .timeout = 60)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(out, sizeof out, dir, "out");
    build_db(db, 0);
    setenv("PATH", "/nonexistent-spsweep-dir", 1);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), -1);
    cr_assert_str_eq(err.msg, "gnuplot not found; install gnuplot-nox (make deps)");
}

Test(report, gnuplot_failure_reports_its_stderr, .timeout = 60)
{
    char dir[512], db[1024], out[1024], bin[1024], fake[1100];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(out, sizeof out, dir, "out");
    tu_path(bin, sizeof bin, dir, "bin");
    cr_assert_eq(mkdir(bin, 0755), 0);
    tu_path(fake, sizeof fake, bin, "gnuplot");
    tu_write_file(fake, "#!/bin/sh\necho 'line 7: unknown terminal type' >&2\nexit 3\n");
    cr_assert_eq(chmod(fake, 0755), 0);
    build_db(db, 0);
    setenv("PATH", bin, 1);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), -1);
    cr_assert(strstr(err.msg, "exit 3") && strstr(err.msg, "unknown terminal type"), "%s",
              err.msg);
}

Test(report, long_tables_paginate, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(out, sizeof out, dir, "report");
    build_db(db, 0);
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    for (int i = 0; i < 80; i++) {     /* 80 more failures: 81 rows, 3 pages of 38 */
        char axes[64];
        snprintf(axes, sizeof axes, "{\"threads\":%d}", 100 + i);
        sp_run_record r = {.sweep_id = 1, .matrix_id = 1, .kernel = sp_kernel_identity(&k_omp),
                           .axes_json = axes, .status = SP_RUN_SKIPPED, .error = "too many threads"};
        cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
    }
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    assert_png(out, "failures-1.png");
    assert_png(out, "failures-2.png");
    assert_png(out, "failures-3.png");
    cr_assert_not(file_exists(out, "failures-4.png"));
    char *t = read_out(out, "failures.tsv");
    int lines = 0;
    for (char *p = t; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 82, "header + 81 rows");
    free(t);
}

/* Bars per matrix by nnz, BAR_GROUPS (10) matrices a page, whatever their
 * size class; the geomean over all of them on every page. A sweep of
 * more than 8 matrices has no per-matrix line charts. */
Test(report, bars_by_nnz_paginated, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "many.db");
    tu_path(out, sizeof out, dir, "report");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    for (int i = 0; i < 40; i++) {      /* 20 small, 20 medium: 2 pages each */
        char source[64], name[64];
        snprintf(source, sizeof source, "gen:uniform?rows=%d", 1000 + i);
        snprintf(name, sizeof name, "uniform_%02d", i);
        int64_t m = put_matrix(st, source, name, 5000 + i);
        if (i >= 20)
            cr_assert_eq(sqlite3_exec(sp_store_db(st), "UPDATE matrices SET size_class = "
                                      "'medium' WHERE id = (SELECT MAX(id) FROM matrices)",
                                      NULL, NULL, NULL), SQLITE_OK);
        put_cpu_runs(st, sw, m, 1.0);
    }
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    static const char *const pages[] = {
        "spmv-speedup-vs-spmv_csr_serial-1.png", "spmv-speedup-vs-spmv_csr_serial-4.png",
        "spmv-rate-by-matrix-1.png", "spmv-rate-by-matrix-4-1col.png", "spmv-rate-vs-nnz.png",
        "spmv-rate-vs-nnz-per-row-1col.png"};
    for (int i = 0; i < 6; i++)
        assert_png(out, pages[i]);
    cr_assert_eq(count_files(out, "", "-1col.png"), 12,
                 "figures: 4 + 4 bars, the geomean, 2 scatters, the roofline");
    cr_assert_eq(count_files(out, "rate-vs-threads", ".png"), 0);
    char *t = read_out(out, "spmv-speedup-vs-spmv_csr_serial-4.gp");
    cr_assert(strstr(t, "(4 of 4)") && strstr(t, "'uniform_39'") && strstr(t, "'uniform_30'") &&
              !strstr(t, "'uniform_29'") && strstr(t, "'geomean' 10"), "%s", t);
    free(t);
}

/* The evidence of the report issue on a database made by a real sweep:
 * CPU kernels with thread axes, an ELLPACK kernel that refuses the
 * dense-row matrix (720 000 x 3000 stored entries, past 32-bit offsets), a GPU kernel (skipped without a GPU), a matrix file
 * that does not exist. Every PNG is valid, the PDF has one page per PNG
 * plus the title, failures are listed with their reasons, and a
 * comparison of the database with itself calls no change (same, or noisy
 * where this shared VM's noise is too wide to say same). */
Test(report, from_a_real_sweep, .timeout = 240)
{
    char dir[512], cfg[1024], db[1024], out[1024], args[4096];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "real.ini");
    tu_path(db, sizeof db, dir, "real.db");
    tu_path(out, sizeof out, dir, "report");
    tu_write_file(cfg, "[sweep]\nrepetitions = 6\nwarmup = 1\n"
                       "[matrices]\nsource = gen:laplace2d?n=60\n"
                       "source = gen:denserow?rows=720000&cols=3000&per_row=1&dense=3000&seed=2\n"
                       "source = file:/nonexistent/missing.mtx\n"
                       "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n"
                       "[kernel spmv_ell_omp]\nthreads = 1,2\n"
                       "[kernel spmv_csr_cuda_scalar]\nblocksize = 64\n");
    char *o;
    snprintf(args, sizeof args, "sweep %s --db %s --quiet", cfg, db);
    int rc = tu_run_spsweep(args, &o);
    cr_assert(rc == 0 || rc == 2, "sweep: %d\n%s", rc, o);
    free(o);
    snprintf(args, sizeof args, "report --db %s --out %s --base %s", db, out, db);
    cr_assert_eq(tu_run_spsweep(args, &o), 0, "%s", o);
    free(o);
    /* every chart: a real PNG; the PDF: the title + one page each */
    int pngs = count_charts(out);
    cr_assert_geq(pngs, 7, "summary, compare, speedup, rate, failures, contents...");
    DIR *d = opendir(out);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".png"))
            assert_png(out, e->d_name);
    closedir(d);
    char pdf[1100];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    cr_assert_eq(pdf_pages(pdf), pngs + 1);
    char *t = read_out(out, "failures.tsv");
    cr_assert(strstr(t, "skipped\trun\tdenserow_rows720000_cols3000_per_row1_dense3000_seed2\t"
                        "spmv_ell_omp\tthreads=1\t"), "the ELLPACK refusal: %s", t);
    cr_assert(strstr(t, "ELLPACK refused"), "%s", t);
    cr_assert(strstr(t, "error\tmatrix\tfile:/nonexistent/missing.mtx\t-\t-\t"), "%s", t);
    free(t);
    t = read_out(out, "compare.tsv");
    int rows = 0;
    for (char *line = strchr(t, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        cr_assert(!strncmp(line + 1, "same\t", 5) || !strncmp(line + 1, "noisy\t", 6), "%s",
                  line + 1);
        rows++;
    }
    cr_assert_geq(rows, 7, "every ok run compared: %s", t);
    free(t);
}

Test(report, gpu_only_database, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "gpu.db");
    tu_path(out, sizeof out, dir, "out");
    build_db(db, 1);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "DELETE FROM runs WHERE device = 'cpu'", NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(h);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    cr_assert_eq(count_files(out, "-cpu", ".png") + count_files(out, "threads", ".png"), 0,
                 "a CPU chart without CPU runs");
    assert_png(out, "spmv-rate-vs-blocksize-laplace2d_n100.png");
    assert_png(out, "spmv-speedup-vs-spmv_csr_cusparse-1.png");
    assert_png(out, "spmv-gpu-phases-1.png");
    cr_assert_not(file_exists(out, "spmv-speedup-vs-spmv_csr_serial-1.png"),
                  "no serial run, no serial chart");
    char pdf[1100];
    tu_path(pdf, sizeof pdf, out, "report.pdf");
    cr_assert_eq(pdf_pages(pdf), count_charts(out) + 1);
}

/* The text sizes of a PDF that cairo wrote (the scale of each text
 * matrix "a 0 0 d x y Tm" in its deflated content streams), their least
 * and greatest, and whether a font file is embedded. */
static void pdf_text_sizes(const char *path, double *lo, double *hi, int *embedded)
{
    size_t n;
    char *buf = tu_slurp(path, &n);
    *lo = INFINITY, *hi = 0;
    *embedded = memmem(buf, n, "/FontFile2", 10) != NULL || memmem(buf, n, "/FontFile3", 10);
    for (char *p = memmem(buf, n, "stream", 6); p;
         p = memmem(p + 6, n - (size_t)(p + 6 - buf), "stream", 6)) {
        if (p > buf && p[-1] == 'd')    /* "endstream" */
            continue;
        char *start = p + 6;
        start += *start == '\r';
        start += *start == '\n';
        char *end = memmem(start, n - (size_t)(start - buf), "endstream", 9);
        if (!end)
            break;
        size_t cap = 1 << 20;
        unsigned char *out = malloc(cap);
        z_stream z = {.next_in = (unsigned char *)start, .avail_in = (uInt)(end - start),
                      .next_out = out, .avail_out = (uInt)cap - 1};
        if (inflateInit(&z) == Z_OK) {
            int rc = inflate(&z, Z_FINISH);
            if (rc == Z_STREAM_END || rc == Z_BUF_ERROR) {
                out[z.total_out] = '\0';
                for (char *t = strstr((char *)out, " Tm"); t; t = strstr(t + 3, " Tm")) {
                    char *line = t;     /* back to the start of "a 0 0 d x y" */
                    for (int fields = 0; line > (char *)out && fields < 6; line--)
                        if (line[-1] == ' ' || line[-1] == '\n')
                            fields += line[-1] == ' ' || line[-1] == '\n';
                    double a, b, c, d;
                    if (sscanf(line, "%lf %lf %lf %lf", &a, &b, &c, &d) == 4 && b == 0 &&
                        c == 0 && fabs(a) > 0.5) {
                        *lo = fmin(*lo, fabs(a));
                        *hi = fmax(*hi, fabs(a));
                    }
                }
            }
            inflateEnd(&z);
        }
        free(out);
        p = end;
    }
    free(buf);
}

/* The figures are drawn at a paper's sizes, fonts in points at the size
 * printed: 9 points two columns wide (7 in), 8 one column wide (3.5 in),
 * report.pdf's pages letter landscape with no text under 8 points (the
 * old pdfcairo default scale 0.5 printed 5 points), fonts embedded. */
Test(report, fonts_in_points_at_the_printed_size, .timeout = 120)
{
    char dir[512], db[1024], out[1024], path[1200];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "results.db");
    tu_path(out, sizeof out, dir, "report");
    build_db(db, 1);
    sp_err err = {{0}};
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    char *g = read_out(out, "report.gp");
    int terminals = 0;
    for (char *line = strstr(g, "set terminal"); line; line = strstr(line + 1, "set terminal")) {
        int pt = 0;
        /* the SVG (index.html) in points, its font a CSS generic family */
        int svg = !strncmp(line, "set terminal svg", 16);
        char *font = strstr(line, svg ? "font 'sans-serif," : "font 'Sans,");
        cr_assert(font && font < strchr(line, '\n') && pt >= 0 &&
                      sscanf(strchr(font, ',') + 1, "%d", &pt) == 1 && pt >= 8, "%.120s", line);
        int pdf = !strncmp(line, "set terminal pdfcairo", 21);
        const char *scale = svg ? "fontscale 1 " : pdf ? "fontscale 0.75 " : "fontscale 1.5625 ";
        cr_assert(strstr(line, scale) && strstr(line, "noenhanced"), "%.160s", line);
        terminals++;
    }
    cr_assert_eq(terminals, 7, "two sizes of figures in PNG and PDF, the SVG, text pages, "
                 "report.pdf");
    cr_assert(strstr(g, "pdfcairo size 7in,4.3in noenhanced font 'Sans,9'") &&
              strstr(g, "pdfcairo size 3.5in,3.5in noenhanced font 'Sans,8'") &&
              strstr(g, "pngcairo size 1050,645 noenhanced font 'Sans,9'") &&
              strstr(g, "svg size 504,310 noenhanced font 'sans-serif,9' fontscale 1 "), "%s", g);
    free(g);
    /* no script asks for a smaller font */
    DIR *d = opendir(out);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 3, ".gp"))
            continue;
        char *t = read_out(out, e->d_name);
        for (char *f = strstr(t, "font '"); f; f = strstr(f + 1, "font '")) {
            char *comma = strchr(f, ',');
            cr_assert(comma && atoi(comma + 1) >= 8, "%s: %.40s", e->d_name, f);
        }
        free(t);
    }
    closedir(d);
    static const struct {
        const char *name;
        double least, most;
        const char *box;
    } pdfs[] = {{"spmv-roofline-cpu.pdf", 9, 9, "/MediaBox [ 0 0 504 309"},
                {"spmv-roofline-cpu-1col.pdf", 8, 8, "/MediaBox [ 0 0 252 252 ]"},
                {"spmv-best-per-matrix-1.png", 0, 0, NULL},
                {"report.pdf", 8, 20, "/MediaBox [ 0 0 792 504 ]"}};
    for (size_t i = 0; i < sizeof pdfs / sizeof *pdfs; i++) {
        if (!pdfs[i].box) {
            cr_assert(!file_exists(out, "spmv-best-per-matrix-1.pdf"), "a text page: no PDF");
            continue;
        }
        double lo, hi;
        int embedded;
        tu_path(path, sizeof path, out, pdfs[i].name);
        pdf_text_sizes(path, &lo, &hi, &embedded);
        cr_assert(lo == pdfs[i].least && hi == pdfs[i].most && embedded,
                  "%s: text of %g to %g points (want %g to %g), fonts embedded: %d",
                  pdfs[i].name, lo, hi, pdfs[i].least, pdfs[i].most, embedded);
        size_t n;
        char *t = tu_slurp(path, &n);
        cr_assert(memmem(t, n, pdfs[i].box, strlen(pdfs[i].box)), "%s: not %s", pdfs[i].name,
                  pdfs[i].box);
        free(t);
    }
}

/* The series of a chart's plot command: its key entries. */
static int plot_series(const char *gp)
{
    const char *plot = strstr(gp, "\nplot");
    cr_assert_not_null(plot, "no plot command: %s", gp);
    int n = 0;
    for (const char *p = strstr(plot, " title '"); p; p = strstr(p + 1, " title '"))
        n++;
    return n;
}

/* Every chart of dir that is a figure (it has a one-column variant):
 * at most 8 series, one operation. */
static void assert_figures(const char *out, int *figures)
{
    DIR *d = opendir(out);
    struct dirent *e;
    *figures = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 10 || strcmp(e->d_name + len - 9, "-1col.png"))
            continue;
        char gp[300];
        snprintf(gp, sizeof gp, "%.*s.gp", (int)(len - 9), e->d_name);
        char *t = read_out(out, gp);
        cr_assert_leq(plot_series(t), 8, "%s: %d series", gp, plot_series(t));
        char *op = strstr(t, "\n# operation: ");
        cr_assert(op && !strstr(op + 1, "\n# operation: "), "%s: one operation", gp);
        free(t);
        (*figures)++;
    }
    closedir(d);
}

/* A sweep of 12 kernels in 12 families (format/backend): every chart
 * draws the 8 best families and says where the rest are; the kernel with
 * two tuning axes gets its heatmap. */
Test(report, at_most_eight_series_a_chart, .timeout = 180)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "many.db");
    tu_path(out, sizeof out, dir, "report");
    static char names[12][32], formats[12][16];
    sp_kernel k[12];
    for (int i = 0; i < 12; i++) {
        snprintf(names[i], sizeof names[i], "spmv_k%02d", i);
        snprintf(formats[i], sizeof formats[i], "f%02d", i);
        k[i] = (sp_kernel){.name = names[i], .operation = "spmv", .format = formats[i],
                           .backend = i ? "openmp" : "serial"};
    }
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    for (int m = 0; m < 5; m++) {
        char source[32], name[32];
        snprintf(source, sizeof source, "gen:m%d", m);
        snprintf(name, sizeof name, "matrix_%d", m);
        int64_t id = put_matrix(st, source, name, 10000 * (m + 1));
        for (int i = 0; i < 12; i++)
            put_run(st, sw, id, &k[i], "{}", 1e-3 / (1 + i) * (1 + 0.1 * m), 2e6);
        for (int t = 1; t <= 2; t++)
            for (int h = 8; h <= 32; h *= 2) {
                char axes[64];
                snprintf(axes, sizeof axes, "{\"threads\":%d,\"hack\":%d}", t, h);
                put_run(st, sw, id, &k[11], axes, 2e-4 / t * h / 8, 2e6);
            }
    }
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    int figures;
    assert_figures(out, &figures);
    cr_assert_geq(figures, 7, "geomean, speedup, rate, 2 scatters, profile, roofline, heatmap");
    char *t = read_out(out, "spmv-rate-by-matrix-1.gp");
    cr_assert_eq(plot_series(t), 8, "%s", t);
    cr_assert(strstr(t, "'f11/openmp'") && !strstr(t, "'f02/openmp'") &&
              strstr(t, "the 8 best of 12 kernel families; all in spmv-all-runs.tsv"), "%s", t);
    free(t);
    t = read_out(out, "spmv-all-runs.tsv");
    cr_assert(strstr(t, "\tspmv_k02\tf02/openmp\tcpu\t") &&
              strstr(t, "\tspmv_k11\tf11/openmp\tcpu\tthreads=2,hack=32\t"), "%s", t);
    free(t);
    /* the heatmap: at threads = 2, hack = 8 the best everywhere (1); hack
     * 32 at one thread 8x slower (0.125) */
    t = read_out(out, "spmv-heatmap-spmv_k11-threads-x-hack.dat");
    cr_assert(strstr(t, "1\t0\t1\t5\t2\t8\n") && strstr(t, "0\t2\t0.125\t5\t1\t32\n"), "%s", t);
    free(t);
    assert_png(out, "spmv-heatmap-spmv_k11-threads-x-hack-1col.png");
    assert_png(out, "spmv-performance-profile.png");
}

/* SpMV and transposition never share a chart: each figure states its one
 * operation and draws only its kernels, under its own baseline. */
Test(report, one_operation_a_chart, .timeout = 120)
{
    static const sp_kernel t_serial = {.name = "transpose_serial", .operation = "transpose",
                                       .format = "csc", .backend = "serial"};
    static const sp_kernel t_scan = {.name = "transpose_scantrans", .operation = "transpose",
                                     .format = "csc", .backend = "openmp"};
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "two.db");
    tu_path(out, sizeof out, dir, "report");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    for (int m = 0; m < 2; m++) {
        char source[32], name[32];
        snprintf(source, sizeof source, "gen:m%d", m);
        snprintf(name, sizeof name, "matrix_%d", m);
        int64_t id = put_matrix(st, source, name, 10000 * (m + 1));
        put_cpu_runs(st, sw, id, 1.0 + m);
        put_run(st, sw, id, &t_serial, "{}", 2e-3, 1e4);
        put_run(st, sw, id, &t_scan, "{\"threads\":2}", 1e-3, 1e4);
    }
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    int figures;
    assert_figures(out, &figures);
    char *t = read_out(out, "spmv-speedup-vs-spmv_csr_serial-1.dat");
    cr_assert(strstr(t, "# operation: spmv\n") && strstr(t, "spmv_csr_omp") &&
              !strstr(t, "transpose"), "%s", t);
    free(t);
    t = read_out(out, "transpose-speedup-vs-transpose_serial-1.dat");
    cr_assert(strstr(t, "# operation: transpose\n") && strstr(t, "\ttranspose_scantrans\t") &&
              !strstr(t, "spmv") && strstr(t, "\tmatrix_1\t2\t"), "%s", t);
    free(t);
    t = read_out(out, "transpose-rate-by-matrix-1.gp");
    cr_assert(strstr(t, "set title 'Transposition rate per matrix'") && strstr(t, "Gnnz/s"), "%s",
              t);
    free(t);
    cr_assert(!file_exists(out, "transpose-roofline-cpu.png"), "no roofline without flops");
    assert_png(out, "transpose-best-per-matrix-1.png");
    assert_png(out, "transpose-rate-vs-threads-matrix_0.png");
}

/* "vs serial" is one kernel on a chart: the serial kernel of the most
 * matrices, named in the title and the file name; a matrix without it is
 * left out and counted, not compared with another serial kernel. */
Test(report, speedup_baseline_fixed_and_named, .timeout = 120)
{
    static const sp_kernel k_ell = {.name = "spmv_ell_serial", .operation = "spmv",
                                    .format = "ell", .backend = "serial"};
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "base.db");
    tu_path(out, sizeof out, dir, "report");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    int64_t m[3];
    for (int i = 0; i < 3; i++) {
        char source[32], name[32];
        snprintf(source, sizeof source, "gen:m%d", i);
        snprintf(name, sizeof name, "matrix_%d", i);
        m[i] = put_matrix(st, source, name, 10000 * (i + 1));
        put_run(st, sw, m[i], &k_omp, "{\"threads\":2}", 1e-3, 2e6);
        if (i < 2)
            put_run(st, sw, m[i], &k_serial, "{}", 4e-3, 2e6);
    }
    put_run(st, sw, m[2], &k_ell, "{}", 2e-3, 2e6);   /* the only serial kernel there */
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    cr_assert_eq(ud_real(sp_store_db(st), "SELECT missing FROM baselines WHERE role = 'serial'"
                         " AND kernel = 'spmv_csr_serial' AND sweep_id = ?1", sw), 1);
    cr_assert(isnan(ud_real(sp_store_db(st), "SELECT speedup FROM speedup WHERE kernel ="
                            " 'spmv_csr_omp' AND matrix = 'matrix_2' AND sweep_id = ?1", sw)),
              "no ratio against another serial kernel");
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    char *t = read_out(out, "spmv-speedup-vs-spmv_csr_serial-1.gp");
    cr_assert(strstr(t, "set title 'SpMV speedup over spmv_csr_serial'") &&
              strstr(t, "1 matrix without spmv_csr_serial left out") &&
              !strstr(t, "'matrix_2'") && strstr(t, "'matrix_1'"), "%s", t);
    free(t);
    t = read_out(out, "spmv-speedup-vs-spmv_csr_serial-1.dat");
    cr_assert(strstr(t, "\tmatrix_0\t4\t") && !strstr(t, "matrix_2") &&
              strstr(t, "\tgeomean\t4\t4\t4\t"), "%s", t);
    free(t);
    t = read_out(out, "spmv-geomean-vs-spmv_csr_serial-1.gp");
    cr_assert(strstr(t, "'spmv_csr_omp (2)'") && strstr(t, "1 matrix without spmv_csr_serial") &&
              strstr(t, "over spmv_csr_serial"), "%s", t);
    free(t);
    t = read_out(out, "spmv-best-per-matrix.tsv");
    cr_assert(strstr(t, "\tvs spmv_csr_serial [95 % CI]\t") &&
              strstr(t, "matrix_2\tsmall\t30000\tspmv_csr_omp\tthreads=2\t1.000 (no interval)\t"
                        "2.000 (no interval)\t-\t"), "%s", t);
    free(t);
}

/* A gnuplot script's text with its label line breaks (' . "\n" . ') as
 * spaces and its doubled quotes single, in place: phrases can be looked
 * for wherever the label wrapped. */
static char *unwrapped(char *t)
{
    const char *brk = "' . \"\\n\" . '";
    size_t nb = strlen(brk);
    char *w = t;
    for (const char *p = t; *p;) {
        if (!strncmp(p, brk, nb))
            *w++ = ' ', p += nb;
        else if (p[0] == '\'' && p[1] == '\'')
            *w++ = '\'', p += 2;
        else
            *w++ = *p++;
    }
    *w = 0;
    return t;
}

/* A run above its device's measured roof is circled, and the chart says
 * how many, by how much and why (db/views.sql roofline). */
Test(report, roofline_says_why_a_point_is_above_the_roof, .timeout = 120)
{
    char dir[512], db[1024], out[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "roof.db");
    tu_path(out, sizeof out, dir, "report");
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
    int64_t sw = put_sweep(st);
    int64_t a = put_matrix(st, "gen:a", "in_cache", 10000);
    int64_t b = put_matrix(st, "gen:b", "from_memory", 20000);
    /* 12e6 bytes in 1e-4 s: 120 GB/s, 5.58x the 21.5 GB/s triad */
    put_run(st, sw, a, &k_omp, "{\"threads\":4}", 1e-4, 2e6);
    put_run(st, sw, b, &k_omp, "{\"threads\":4}", 2e-3, 2e6);      /* 6 GB/s */
    put_run(st, sw, a, &k_serial, "{}", 4e-3, 2e6);
    put_run(st, sw, b, &k_serial, "{}", 4e-3, 2e6);
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    ud_close(ud_real(sp_store_db(st), "SELECT roof_ratio FROM roofline WHERE above_roof = 1"
                     " AND level = 'kernel' AND sweep_id = ?1", sw), 120 / 21.5, "roof ratio");
    sp_store_close(st);
    cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
    char *t = read_out(out, "spmv-roofline-cpu.dat");
    cr_assert(strstr(t, "\t20\t20\t20\t1\t11.44\tin_cache\n") &&
              strstr(t, "\t1\t1\t1\t0\t11.44\tfrom_memory\n"), "%s", t);
    free(t);
    t = unwrapped(read_out(out, "spmv-roofline-cpu.gp"));
    cr_assert(strstr(t, "1 above the memory roof (circled, up to 5.58x;") &&
              strstr(t, "1 re-read caches between warm launches, or outrun the roof's") &&
              !strstr(t, "dt 3"), "%s", t);
    cr_assert(
              strstr(t, "using 1:($5 > 0 ? $2 : NaN) with points pt 6") &&
              strstr(t, "'in_cache' at graph") && strstr(t, "'from_memory' at graph"), "%s", t);
    free(t);
}

/* With the host's cache roof measured: drawn dotted, and a point above the
 * memory roof whose working set (12e6 bytes) fits in the 32 MiB cache is
 * said to be read there; with a cache roof under the point (100 GB/s
 * against its 120) it is above the cache roof too, and the view says so. */
Test(report, roofline_draws_the_cache_roof_and_says_what_fits, .timeout = 120)
{
    const double roofs[] = {200, 100};
    for (int i = 0; i < 2; i++) {
        char dir[512], db[1024], out[1024];
        tu_tempdir(dir, sizeof dir);
        tu_path(db, sizeof db, dir, "roof.db");
        tu_path(out, sizeof out, dir, "report");
        sp_store *st;
        sp_err err = {{0}};
        cr_assert_eq(sp_store_open(db, &st, &err), 0, "%s", err.msg);
        int64_t sw = put_sweep_cache(st, roofs[i], 32 << 20);
        int64_t a = put_matrix(st, "gen:a", "in_cache", 10000);
        int64_t b = put_matrix(st, "gen:b", "from_memory", 20000);
        put_run(st, sw, a, &k_omp, "{\"threads\":4}", 1e-4, 2e6);  /* 120 GB/s */
        put_run(st, sw, b, &k_omp, "{\"threads\":4}", 2e-3, 2e6);  /* 6 GB/s */
        put_run(st, sw, a, &k_serial, "{}", 4e-3, 2e6);
        put_run(st, sw, b, &k_serial, "{}", 4e-3, 2e6);
        cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
        sqlite3 *q = sp_store_db(st);
        cr_assert_eq(ud_int(q, "SELECT fits_cache FROM roofline WHERE above_roof = 1 AND "
                               "level = 'kernel' AND sweep_id = ?1", sw), 1);
        char why[200];
        ud_text(q, "SELECT above_why FROM roofline WHERE above_roof = 1 AND level = 'kernel' "
                   "AND sweep_id = ?1", sw, why, sizeof why);
        cr_assert_not_null(strstr(why, i == 0 ? "fits in the cache" : "above the cache roof"),
                           "%s", why);
        cr_assert_eq(ud_int(q, "SELECT count(*) FROM roofline WHERE above_why IS NOT NULL AND "
                               "level = 'kernel' AND sweep_id = ?1", sw), 1,
                     "a point under the memory roof needs no reason");
        sp_store_close(st);
        cr_assert_eq(sp_report(db, out, &err), 0, "%s", err.msg);
        char *t = unwrapped(read_out(out, "spmv-roofline-cpu.gp"));
        char line[64];
        snprintf(line, sizeof line, "x * %g with lines dt 3", roofs[i]);
        cr_assert(strstr(t, line) && strstr(t, "cache roof (dotted): host triad in the "
                                               "last-level cache"), "%s", t);
        cr_assert(i == 0 ? strstr(t, "1 fits in the 32 MiB cache, read there by warm launches")
                             != NULL
                         : strstr(t, "1 above the cache roof too") != NULL, "%s", t);
        free(t);
    }
}
