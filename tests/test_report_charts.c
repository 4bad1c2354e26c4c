/* test_report_charts.c — the charts a config asks for ([chart NAME]
 * sections, plots/report_request.c): drawn from a small database whose
 * sweep stores such a config, with the series, values and marks asked
 * for. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
#include "../plots/report.h"
#include "testutil.h"
#include "util_db.h"

static const sp_kernel k_serial = {.name = "spmv_csr_serial", .operation = "spmv",
                                   .format = "csr", .backend = "serial"};
static const sp_kernel k_simd = {.name = "spmv_csr_omp_simd", .operation = "spmv",
                                 .format = "csr", .backend = "openmp"};
static const sp_kernel k_hll = {.name = "spmv_hll_omp_static", .operation = "spmv",
                                .format = "hll", .backend = "openmp"};
static const sp_kernel k_aligned = {.name = "spmv_hll_aligned_omp", .operation = "spmv",
                                    .format = "hll", .backend = "openmp"};
static const sp_kernel k_vector = {.name = "spmv_csr_cuda_vector", .operation = "spmv",
                                   .format = "csr", .backend = "cuda", .needs_gpu = 1};
static const sp_kernel k_cusparse = {.name = "spmv_csr_cusparse", .operation = "spmv",
                                     .format = "csr", .backend = "cusparse", .needs_gpu = 1};
/* six more CPU kernels, slower than the others, for a chart of 10 kernels */
static const sp_kernel k_extra[6] = {
    {.name = "spmv_x0", .operation = "spmv", .format = "csr", .backend = "openmp"},
    {.name = "spmv_x1", .operation = "spmv", .format = "csr", .backend = "openmp"},
    {.name = "spmv_x2", .operation = "spmv", .format = "csr", .backend = "openmp"},
    {.name = "spmv_x3", .operation = "spmv", .format = "csr", .backend = "openmp"},
    {.name = "spmv_x4", .operation = "spmv", .format = "csr", .backend = "openmp"},
    {.name = "spmv_x5", .operation = "spmv", .format = "csr", .backend = "openmp"},
};

#define CONFIG                                                                          \
    "[matrices]\nsource = gen:laplace2d?n=100\n"                                        \
    "[chart gflops-threads]\nx = threads\nsplit = family\ndevice = cpu\n"               \
    "[chart speedup-threads]\ny = speedup\nx = threads\nbaseline = spmv_csr_serial\n"   \
    "kernels = spmv_csr_*\ndevice = cpu\n"                                              \
    "[chart mean-time]\ny = time\nx = threads\nstat = mean\nkernels = spmv_csr_omp_simd\n" \
    "[chart gflops-blocksize]\nx = blocksize\ndevice = gpu\n"                           \
    "[chart all]\nx = threads\ndevice = cpu\n"                                          \
    "[chart per-kernel]\nx = threads\nsplit = kernel\nkernels = spmv_csr_*\n"

/* A run whose ten samples scatter around median seconds (an interval). */
static void put_run(sp_store *st, int64_t sweep, int64_t matrix, const sp_kernel *k,
                    const char *axes, double median)
{
    static const double f[10] = {0.97, 1.0, 1.08, 0.99, 1.2, 0.98, 1.01, 1.02, 0.995, 1.05};
    double s[10];
    for (int i = 0; i < 10; i++)
        s[i] = median * f[i];
    sp_run_record r = {.sweep_id = sweep, .matrix_id = matrix, .kernel = sp_kernel_identity(k),
                       .axes_json = axes, .status = SP_RUN_OK, .rel_error = 1e-16, .flops = 2e6,
                       .bytes = 12e6, .warmup = 1, .nsamples = 10, .samples = s};
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
}

static int64_t put_matrix(sp_store *st, const char *name, int32_t nnz)
{
    sp_matrix M;
    memset(&M, 0, sizeof M);
    snprintf(M.src.text, sizeof M.src.text, "gen:%s", name);
    snprintf(M.src.name, sizeof M.src.name, "%s", name);
    M.feat = (sp_features){.rows = nnz / 5, .cols = nnz / 5, .nnz = nnz, .row_min = 1,
                           .row_max = 9, .row_mean = 5, .size_class = "small"};
    M.checksum = (uint64_t)nnz * 2654435761u;
    int64_t id;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_matrix(st, sp_matrix_identity(&M), &id, &err), 0, "%s", err.msg);
    return id;
}

/* Every kernel on one matrix; s scales its times. The HLL kernel is
 * fastest at hack 16 on 2 threads and at hack 32 on 4: each point of a
 * chart is the best of the other axes there. */
static void put_runs(sp_store *st, int64_t sw, int64_t m, double s)
{
    char axes[64];
    put_run(st, sw, m, &k_serial, "{}", 4e-3 * s);
    for (int t = 1; t <= 4; t *= 2) {
        snprintf(axes, sizeof axes, "{\"threads\":%d}", t);
        put_run(st, sw, m, &k_simd, axes, 4e-3 * s / t);
        put_run(st, sw, m, &k_aligned, axes, 5e-3 * s / t);
        for (int i = 0; i < 6; i++)
            put_run(st, sw, m, &k_extra[i], axes, (20e-3 + 1e-3 * i) * s / t);
        snprintf(axes, sizeof axes, "{\"threads\":%d,\"hack\":16}", t);
        put_run(st, sw, m, &k_hll, axes, (t == 4 ? 3e-3 : 6e-3) * s / t);
        snprintf(axes, sizeof axes, "{\"threads\":%d,\"hack\":32}", t);
        put_run(st, sw, m, &k_hll, axes, (t == 4 ? 2e-3 : 7e-3) * s / t);
    }
    for (int b = 64; b <= 256; b *= 2) {
        snprintf(axes, sizeof axes, "{\"blocksize\":%d}", b);
        put_run(st, sw, m, &k_vector, axes, 1e-4 * s * (b == 128 ? 0.8 : 1));
        /* on managed memory (study 002's axis): a series of its own */
        snprintf(axes, sizeof axes, "{\"blocksize\":%d,\"memory\":\"managed\"}", b);
        put_run(st, sw, m, &k_vector, axes, 1.5e-4 * s);
    }
    put_run(st, sw, m, &k_cusparse, "{}", 0.9e-4 * s);
}

static void build_db(const char *path, const char *config)
{
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    sp_sweep_meta meta = {.config_path = "study.ini", .config_text = config,
                          .host = "testhost", .cpu = "Synthetic CPU", .cpu_count = 4,
                          .cpu_sockets = 1, .cpu_cores = 2, .cpu_threads = 4,
                          .repetitions = 10, .warmup = 1, .git_dirty = -1};
    int64_t sw;
    cr_assert_eq(sp_store_begin_sweep(st, &meta, &sw, &err), 0, "%s", err.msg);
    put_runs(st, sw, put_matrix(st, "small_one", 20000), 1.0);
    put_runs(st, sw, put_matrix(st, "big_one", 90000), 3.0);
    cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    sp_store_close(st);
}

/* One block of a chart's .dat: its kernel and its points. */
typedef struct block {
    char kernel[128];
    int n;
    double x[16], y[16], lo[16], hi[16];
} block;

/* The blocks of out/name.dat ("# KERNEL" after a blank line heads one). */
static int read_blocks(const char *out, const char *name, block *b, int max)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.dat", out, name);
    char *text = tu_slurp(path, NULL);
    cr_assert_not_null(text, "no %s", path);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            if (n < max && strncmp(line, "# operation", 11) && strncmp(line, "# x", 3)) {
                memset(&b[n], 0, sizeof b[n]);
                snprintf(b[n].kernel, sizeof b[n].kernel, "%s", line + 2);
                n++;
            }
            continue;
        }
        cr_assert_gt(n, 0, "%s: a point before any block", path);
        block *k = &b[n - 1];
        cr_assert_lt(k->n, 16);
        cr_assert_eq(sscanf(line, "%lf\t%lf\t%lf\t%lf", &k->x[k->n], &k->y[k->n],
                            &k->lo[k->n], &k->hi[k->n]), 4, "%s: '%s'", path, line);
        k->n++;
    }
    free(text);
    return n;
}

static const block *find_block(const block *b, int n, const char *kernel)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(b[i].kernel, kernel))
            return &b[i];
    return NULL;
}

/* The kernels of a chart are exactly these (the order: by name). */
static void assert_kernels(const block *b, int n, const char *const *want, int nwant,
                           const char *chart)
{
    cr_assert_eq(n, nwant, "%s: %d series, want %d", chart, n, nwant);
    for (int i = 0; i < nwant; i++)
        cr_assert_not_null(find_block(b, n, want[i]), "%s: no series %s", chart, want[i]);
}

static int exists(const char *out, const char *name, const char *suffix)
{
    char path[2400];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s%s", out, name, suffix);
    return stat(path, &sb) == 0 && sb.st_size > 0;
}

static void close_to(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-6 * fabs(want), "%s: %.9g, want %.9g", what, got, want);
}

/* A value from run_stats of the matrix (?1 = its id). */
static double stat_of(sqlite3 *db, int64_t m, const char *expr, const char *kernel,
                      const char *where)
{
    char sql[600];
    snprintf(sql, sizeof sql, "SELECT %s FROM run_stats WHERE matrix_id = ?1 AND kernel = '%s'"
             " %s ORDER BY median LIMIT 1", expr, kernel, where);
    return ud_real(db, sql, m);
}

static void make_report(char *dir, size_t len, char *out, size_t olen, const char *config,
                        char *log, size_t loglen)
{
    char db[1024], logpath[1100];
    tu_tempdir(dir, len);
    tu_path(db, sizeof db, dir, "r.db");
    tu_path(out, olen, dir, "report");
    build_db(db, config);
    tu_path(logpath, sizeof logpath, dir, "log.txt");
    FILE *lf = fopen(logpath, "w+");
    cr_assert_not_null(lf);
    sp_report_opts o = {.log = lf};
    sp_err err = {{0}};
    cr_assert_eq(sp_report_run(db, out, &o, &err), 0, "%s", err.msg);
    rewind(lf);
    size_t n = fread(log, 1, loglen - 1, lf);
    log[n] = 0;
    fclose(lf);
}

Test(report_charts, each_requested_chart_is_drawn_with_its_series, .timeout = 240)
{
    char dir[512], out[1024], log[4096], db[1100];
    make_report(dir, sizeof dir, out, sizeof out, CONFIG, log, sizeof log);
    tu_path(db, sizeof db, dir, "r.db");
    sqlite3 *sq;
    cr_assert_eq(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    int64_t small = ud_int(sq, "SELECT id FROM matrices WHERE name = 'small_one'", 0);
    block b[16];
    int n;

    /* split = family, device = cpu: CSR, HLL and HLL-aligned apart, no GPU kernel */
    static const char *const fams[] = {"csr", "hll", "hll-aligned"};
    static const char *const mats[] = {"small_one", "big_one"};
    for (int f = 0; f < 3; f++)
        for (int m = 0; m < 2; m++) {
            char name[200];
            snprintf(name, sizeof name, "spmv-gflops-threads-%s-%s", fams[f], mats[m]);
            cr_assert(exists(out, name, ".png") && exists(out, name, ".pdf") &&
                          exists(out, name, "-1col.png"), "%s not drawn", name);
        }
    cr_assert_not(exists(out, "spmv-gflops-threads-small_one", ".png"),
                  "split = family: no chart of every family");
    n = read_blocks(out, "spmv-gflops-threads-csr-small_one", b, 16);
    const char *csr[] = {"spmv_csr_omp_simd", "spmv_csr_serial", "spmv_x0", "spmv_x1",
                         "spmv_x2", "spmv_x3", "spmv_x4", "spmv_x5"};
    assert_kernels(b, n, csr, 8, "csr family");
    n = read_blocks(out, "spmv-gflops-threads-hll-small_one", b, 16);
    assert_kernels(b, n, (const char *[]){"spmv_hll_omp_static"}, 1, "hll family");
    /* the best hack at each thread count: 16 on 2 threads, 32 on 4 */
    const block *h = &b[0];
    cr_assert_eq(h->n, 3);
    for (int i = 0; i < 3; i++) {
        char where[100];
        snprintf(where, sizeof where, "AND threads = %g", h->x[i]);
        double want = stat_of(sq, small, "rate", "spmv_hll_omp_static", where);
        close_to(h->y[i], want, "hll rate");
        close_to(h->lo[i], stat_of(sq, small, "rate_lo", "spmv_hll_omp_static", where),
                 "interval low end");
        close_to(h->hi[i], stat_of(sq, small, "rate_hi", "spmv_hll_omp_static", where),
                 "interval high end");
        cr_assert_lt(h->lo[i], h->y[i], "an error bar below");
    }
    close_to(h->y[1], stat_of(sq, small, "rate", "spmv_hll_omp_static",
                              "AND threads = 2 AND json_extract(axes, '$.hack') = 16"),
             "threads 2: hack 16");
    close_to(h->y[2], stat_of(sq, small, "rate", "spmv_hll_omp_static",
                              "AND threads = 4 AND json_extract(axes, '$.hack') = 32"),
             "threads 4: hack 32");
    n = read_blocks(out, "spmv-gflops-threads-hll-aligned-small_one", b, 16);
    assert_kernels(b, n, (const char *[]){"spmv_hll_aligned_omp"}, 1, "hll-aligned family");
    char path[1200];
    snprintf(path, sizeof path, "%s/spmv-gflops-threads-csr-small_one.gp", out);
    char *gp = tu_slurp(path, NULL);
    cr_assert(strstr(gp, "set arrow from 2, graph 0 to 2, graph 1") &&
                  strstr(gp, "'2 physical cores'"), "the physical-core boundary:\n%s", gp);
    cr_assert(strstr(gp, "yerrorlines") && strstr(gp, "(no threads axis)"), "%s", gp);
    free(gp);

    /* speedup over the named baseline, its interval from both runs' */
    n = read_blocks(out, "spmv-speedup-threads-small_one", b, 16);
    assert_kernels(b, n, (const char *[]){"spmv_csr_omp_simd", "spmv_csr_serial"}, 2,
                   "speedup");
    const block *s = find_block(b, n, "spmv_csr_omp_simd");
    double base = stat_of(sq, small, "median", "spmv_csr_serial", "");
    double blo = stat_of(sq, small, "ci_lo", "spmv_csr_serial", "");
    double bhi = stat_of(sq, small, "ci_hi", "spmv_csr_serial", "");
    for (int i = 0; i < s->n; i++) {
        char where[64];
        snprintf(where, sizeof where, "AND threads = %g", s->x[i]);
        close_to(s->y[i], base / stat_of(sq, small, "median", "spmv_csr_omp_simd", where),
                 "speedup");
        close_to(s->lo[i], blo / stat_of(sq, small, "ci_hi", "spmv_csr_omp_simd", where),
                 "speedup low end");
        close_to(s->hi[i], bhi / stat_of(sq, small, "ci_lo", "spmv_csr_omp_simd", where),
                 "speedup high end");
    }
    close_to(find_block(b, n, "spmv_csr_serial")->y[0], 1, "the baseline over itself");
    snprintf(path, sizeof path, "%s/spmv-speedup-threads-small_one.gp", out);
    gp = tu_slurp(path, NULL);
    cr_assert(strstr(gp, "speedup over spmv_csr_serial"), "the baseline named:\n%s", gp);
    free(gp);

    /* the mean, in ms, without error bars */
    n = read_blocks(out, "spmv-mean-time-small_one", b, 16);
    assert_kernels(b, n, (const char *[]){"spmv_csr_omp_simd"}, 1, "mean-time");
    for (int i = 0; i < b[0].n; i++) {
        char where[64];
        snprintf(where, sizeof where, "AND threads = %g", b[0].x[i]);
        close_to(b[0].y[i], 1e3 * stat_of(sq, small, "mean", "spmv_csr_omp_simd", where),
                 "mean time in ms");
        cr_assert_eq(b[0].lo[i], b[0].y[i], "the mean has no interval");
    }
    snprintf(path, sizeof path, "%s/spmv-mean-time-small_one.gp", out);
    gp = tu_slurp(path, NULL);
    cr_assert(strstr(gp, "time (ms) (mean of the runs; no interval)") &&
                  !strstr(gp, "yerrorlines"), "%s", gp);
    free(gp);

    /* a GPU chart against blocksize: no core boundary; the library a level */
    n = read_blocks(out, "spmv-gflops-blocksize-big_one", b, 16);
    assert_kernels(b, n, (const char *[]){"spmv_csr_cuda_vector",
                                          "spmv_csr_cuda_vector (managed)", "spmv_csr_cusparse"},
                   3, "blocksize");
    cr_assert_eq(find_block(b, n, "spmv_csr_cuda_vector")->n, 3);
    cr_assert_eq(find_block(b, n, "spmv_csr_cuda_vector (managed)")->n, 3,
                 "managed memory is its own series, not merged into the device one");
    snprintf(path, sizeof path, "%s/spmv-gflops-blocksize-big_one.gp", out);
    gp = tu_slurp(path, NULL);
    cr_assert_null(strstr(gp, "physical cores"), "%s", gp);
    free(gp);

    /* at most 8 series: the best, and the note says so */
    n = read_blocks(out, "spmv-all-small_one", b, 16);
    cr_assert_eq(n, 8);
    cr_assert_null(find_block(b, n, "spmv_x4"), "the slowest two are left out");
    cr_assert_null(find_block(b, n, "spmv_x5"));
    cr_assert_not_null(find_block(b, n, "spmv_hll_omp_static"));
    snprintf(path, sizeof path, "%s/spmv-all-small_one.gp", out);
    gp = tu_slurp(path, NULL);
    cr_assert(strstr(gp, "the 8 best of 10 kernels"), "%s", gp);
    free(gp);

    /* split = kernel: a chart per kernel that has the axis; the others
     * (the serial kernel, the GPU ones with the vector kernel's managed
     * series: 4 on each of 2 matrices) only a line in the log */
    cr_assert(exists(out, "spmv-per-kernel-spmv_csr_omp_simd-small_one", ".png"));
    n = read_blocks(out, "spmv-per-kernel-spmv_csr_omp_simd-small_one", b, 16);
    assert_kernels(b, n, (const char *[]){"spmv_csr_omp_simd"}, 1, "per kernel");
    cr_assert_not(exists(out, "spmv-per-kernel-spmv_csr_serial-small_one", ".dat"));
    cr_assert_not(exists(out, "spmv-per-kernel-spmv_csr_cuda_vector-small_one", ".dat"));
    cr_assert(strstr(log, "report: [chart per-kernel]: 8 spmv charts not drawn: no run "
                          "there has the axis 'threads'"), "log: %s", log);

    /* every run's mean beside its median in the run table */
    snprintf(path, sizeof path, "%s/spmv-all-runs.tsv", out);
    char *tsv = tu_slurp(path, NULL);
    cr_assert(strstr(tsv, "\tmedian_s\tci_lo_s\tci_hi_s\tmean_s\trate\t"), "%.300s", tsv);
    char row[200];
    snprintf(row, sizeof row, "\tspmv_csr_serial\tcsr/serial\tcpu\t\t10\t");
    char *at = strstr(tsv, row);
    cr_assert_not_null(at, "%.600s", tsv);
    double median, lo, hi, mean;
    cr_assert_eq(sscanf(at + strlen(row), "%lf\t%lf\t%lf\t%lf", &median, &lo, &hi, &mean), 4);
    int64_t first = ud_int(sq, "SELECT id FROM matrices ORDER BY nnz LIMIT 1", 0);
    close_to(median, stat_of(sq, first, "median", "spmv_csr_serial", ""), "median_s");
    close_to(mean, stat_of(sq, first, "mean", "spmv_csr_serial", ""), "mean_s");
    cr_assert_neq(median, mean, "the samples are skewed: their mean is not their median");
    free(tsv);
    sqlite3_close(sq);
}

/* x = kernel: one chart for the operation, a row per selected kernel (and
 * per series: the managed-memory runs) in name order, per matrix (by nnz)
 * its best run's median and interval, in ms; a log y axis, as the bars
 * span more than two decades (0.08 ms to 12 ms). */
Test(report_charts, kernel_bars_take_each_kernels_best_run, .timeout = 240)
{
    char dir[512], out[1024], log[4096], db[1100], path[1200];
    make_report(dir, sizeof dir, out, sizeof out,
                "[matrices]\nsource = gen:laplace2d?n=100\n"
                "[chart bars]\ny = time\nx = kernel\nkernels = spmv_csr_*\n",
                log, sizeof log);
    tu_path(db, sizeof db, dir, "r.db");
    sqlite3 *sq;
    cr_assert_eq(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    int64_t m[2] = {ud_int(sq, "SELECT id FROM matrices WHERE name = 'small_one'", 0),
                    ud_int(sq, "SELECT id FROM matrices WHERE name = 'big_one'", 0)};
    cr_assert(exists(out, "spmv-bars", ".png") && exists(out, "spmv-bars", ".pdf"));
    cr_assert_not(exists(out, "spmv-bars-small_one", ".png"), "not a chart per matrix");
    snprintf(path, sizeof path, "%s/spmv-bars.dat", out);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[1024], names[8][128];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char name[128];
        double v[6];
        /* tab-separated: a series name holds a space */
        cr_assert_eq(sscanf(line, "%127[^\t]\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf", name, &v[0], &v[1],
                            &v[2], &v[3], &v[4], &v[5]), 7, "row: %s", line);
        cr_assert_lt(rows, 8);
        snprintf(names[rows++], sizeof names[0], "%s", name);
        if (strcmp(name, "spmv_csr_serial") && strcmp(name, "spmv_csr_omp_simd"))
            continue;
        for (int i = 0; i < 2; i++) {   /* small_one, then big_one */
            close_to(v[3 * i], 1e3 * stat_of(sq, m[i], "median", name, ""), name);
            close_to(v[3 * i + 1], 1e3 * stat_of(sq, m[i], "ci_lo", name, ""), name);
            close_to(v[3 * i + 2], 1e3 * stat_of(sq, m[i], "ci_hi", name, ""), name);
            cr_assert(v[3 * i + 1] < v[3 * i] && v[3 * i] < v[3 * i + 2]);
        }
    }
    fclose(f);
    sqlite3_close(sq);
    /* the four CSR kernels and the vector kernel's managed series */
    cr_assert_eq(rows, 5);
    for (int i = 1; i < rows; i++)
        cr_assert_lt(strcmp(names[i - 1], names[i]), 0, "%s before %s", names[i - 1], names[i]);
    cr_assert_str_eq(names[rows - 1], "spmv_csr_serial");
    snprintf(path, sizeof path, "%s/spmv-bars.gp", out);
    char *gp = tu_slurp(path, NULL);
    cr_assert_not_null(gp);
    cr_assert(strstr(gp, "set style histogram errorbars") && strstr(gp, "set logscale y") &&
                  strstr(gp, "set datafile separator tab") &&
                  strstr(gp, "xtic(1)"), "%s", gp);
    free(gp);
}

/* Charts nobody asked for are not drawn; a stored config whose chart
 * sections cannot be read (a config of a newer spsweep) leaves them out
 * with one line, and the report is still written. */
Test(report_charts, only_what_is_asked_and_a_bad_section_is_a_note, .timeout = 240)
{
    char dir[512], out[1024], log[4096];
    make_report(dir, sizeof dir, out, sizeof out,
                "[matrices]\nsource = gen:x\n[chart q]\ny = rate\nx = threads\nz = 1\n", log,
                sizeof log);
    cr_assert(strstr(log, "report: the sweep's [chart] sections were not drawn: study.ini:6:") &&
                  strstr(log, "unknown key 'z'"), "log: %s", log);
    cr_assert_not(exists(out, "spmv-q-small_one", ".png"));
    cr_assert(exists(out, "report", ".pdf"));
}
