/* test_views.c — the statistics views (db/views.sql) against values
 * computed by hand for fixed samples, and the migrations of schema
 * version-1, -2 and -3 databases to version 4.
 *
 * Samples are small whole numbers of seconds so the arithmetic in the
 * comments is exact; every run does flops = 4e9 work units (rate GFLOPS =
 * 4 / seconds) unless said otherwise. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
#include "testutil.h"
#include "util_db.h"

/* What schema versions 10 (runs' and rounds' blocking) and 9 (matrices'
 * layout features, the advice table) added, undone to make an older
 * database once its views are dropped (ud_drop_views); the last column
 * first (SQLite 3.40). */
#define UNDO_V9                                                                           \
    "ALTER TABLE run_rounds DROP COLUMN blocking; ALTER TABLE runs DROP COLUMN blocking; " \
    "DROP TABLE advice; ALTER TABLE matrices DROP COLUMN x_line_new; "                    \
    "ALTER TABLE matrices DROP COLUMN col_gap; ALTER TABLE matrices DROP COLUMN "         \
    "top1_share; ALTER TABLE matrices DROP COLUMN sell_fill_32; ALTER TABLE matrices "    \
    "DROP COLUMN sell_fill_8; ALTER TABLE matrices DROP COLUMN ell_fill; ALTER TABLE "    \
    "matrices DROP COLUMN ndiags; "

static const sp_kernel k_serial = {.name = "spmv_csr_serial", .operation = "spmv",
                                   .format = "csr", .backend = "serial"};
static const sp_kernel k_omp = {.name = "spmv_csr_omp", .operation = "spmv",
                                .format = "csr", .backend = "openmp"};
static const sp_kernel k_cusparse = {.name = "spmv_csr_cusparse", .operation = "spmv",
                                     .format = "csr", .backend = "cusparse", .needs_gpu = 1};
static const sp_kernel k_cuda = {.name = "spmv_csr_cuda_vector", .operation = "spmv",
                                 .format = "csr", .backend = "cuda", .needs_gpu = 1};
static const sp_kernel k_sort = {.name = "sort_test", .operation = "sort",
                                 .format = "keys", .backend = "serial"};

typedef struct fixture {
    sp_store *st;
    sqlite3 *db;
    int64_t sweep, matrix;
} fixture;

static void fixture_open(fixture *f)
{
    char dir[256], path[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "v.db");
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &f->st, &err), 0, "%s", err.msg);
    f->db = sp_store_db(f->st);
    sp_sweep_meta m;
    sp_sweep_meta_init(&m);
    m.config_text = "[sweep]\n";
    cr_assert_eq(sp_store_begin_sweep(f->st, &m, &f->sweep, &err), 0, "%s", err.msg);
    sp_matrix M;
    memset(&M, 0, sizeof M);
    snprintf(M.src.text, sizeof M.src.text, "gen:views");
    snprintf(M.src.name, sizeof M.src.name, "views");
    M.feat = (sp_features){.rows = 10, .cols = 10, .nnz = 20, .size_class = "small"};
    M.checksum = 42;
    cr_assert_eq(sp_store_matrix(f->st, sp_matrix_identity(&M), &f->matrix, &err), 0, "%s", err.msg);
}

/* Store an ok run of kernel k with the samples; returns its id. */
static int64_t ok_run(fixture *f, const sp_kernel *k, const char *axes, const double *s,
                      int n, double flops, sp_phases ph)
{
    sp_run_record r = {.sweep_id = f->sweep, .matrix_id = f->matrix, .kernel = sp_kernel_identity(k),
                       .axes_json = axes, .status = SP_RUN_OK, .rel_error = 0, .flops = flops,
                       .bytes = 8e9, .phases = ph, .nsamples = n, .samples = s};
    int64_t id = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(f->st, &r, &id, &err), 0, "%s", err.msg);
    return id;
}

/* The run_stats column col of run id. */
static double stat(fixture *f, const char *col, int64_t id)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s FROM run_stats WHERE run_id = ?1", col);
    return ud_real(f->db, sql, id);
}

/* Expected statistics of one run. */
typedef struct expect {
    int n;
    double median, mean, min, max, stddev, ci_lo, ci_hi, ci_level, mad;
    int outliers;
} expect;

static void check(fixture *f, int64_t id, const expect *e, const char *what)
{
    char w[128];
    cr_assert_eq(ud_int(f->db, "SELECT n FROM run_stats WHERE run_id = ?1", id), e->n, "%s",
                 what);
    const char *cols[] = {"median", "mean", "min", "max", "stddev", "ci_lo", "ci_hi",
                          "ci_level", "mad"};
    const double want[] = {e->median, e->mean, e->min, e->max, e->stddev, e->ci_lo,
                           e->ci_hi, e->ci_level, e->mad};
    for (int i = 0; i < 9; i++) {
        snprintf(w, sizeof w, "%s: %s", what, cols[i]);
        ud_close(stat(f, cols[i], id), want[i], w);
    }
    cr_assert_eq(ud_int(f->db, "SELECT outliers FROM run_stats WHERE run_id = ?1", id),
                 e->outliers, "%s: outliers", what);
    snprintf(w, sizeof w, "%s: rate", what);
    ud_close(stat(f, "rate", id), 4.0 / e->median, w);
    snprintf(w, sizeof w, "%s: rate_best", what);
    ud_close(stat(f, "rate_best", id), 4.0 / e->min, w);
}

static const sp_phases no_phases = {0, 0, 0, 0};

Test(views, n1_single_sample)
{
    fixture f;
    fixture_open(&f);
    /* {5}: median = mean = min = max = 5; stddev 0 by definition (n = 1);
     * |5 - 5| = 0 so mad = 0 and no sample is off the median: 0 outliers;
     * n <= 5: no 95 % interval (NULL). rate 4e9 / 5 / 1e9 = 0.8. */
    const double s[] = {5};
    int64_t id = ok_run(&f, &k_omp, "{\"threads\":1}", s, 1, 4e9, no_phases);
    expect e = {1, 5, 5, 5, 5, 0, NAN, NAN, NAN, 0, 0};
    check(&f, id, &e, "n=1");
    ud_close(stat(&f, "rate", id), 0.8, "rate 0.8");
    sp_store_close(f.st);
}

Test(views, n2_mean_of_both)
{
    fixture f;
    fixture_open(&f);
    /* {3, 1}: sorted 1, 3; median (1 + 3) / 2 = 2; mean 2;
     * stddev sqrt(((1-2)^2 + (3-2)^2) / 1) = sqrt(2);
     * deviations |1-2| = 1, |3-2| = 1: mad = (1 + 1) / 2 = 1;
     * scores 0.6745·1/1 = 0.6745 <= 3.5: 0 outliers; no interval. */
    const double s[] = {3, 1};
    int64_t id = ok_run(&f, &k_omp, "{\"threads\":2}", s, 2, 4e9, no_phases);
    expect e = {2, 2, 2, 1, 3, sqrt(2.0), NAN, NAN, NAN, 1, 0};
    check(&f, id, &e, "n=2");
    sp_store_close(f.st);
}

Test(views, n5_has_no_interval_n6_has_one_and_mad_zero)
{
    fixture f;
    fixture_open(&f);
    /* {5,4,3,2,1}: median 3, mean 3; stddev sqrt((4+1+0+1+4)/4) = sqrt(2.5);
     * deviations 2,1,0,1,2 sorted 0,1,1,2,2: mad = 1; max score
     * 0.6745·2 = 1.349: 0 outliers. n = 5: P(B <= 0) = 1/32 = 0.03125 >
     * 0.025, so no rank reaches 95 %: NULL. */
    const double five[] = {5, 4, 3, 2, 1};
    int64_t a = ok_run(&f, &k_omp, "{\"threads\":3}", five, 5, 4e9, no_phases);
    expect ea = {5, 3, 3, 1, 5, sqrt(2.5), NAN, NAN, NAN, 1, 0};
    check(&f, a, &ea, "n=5");
    /* {2,2,2,2,7,2}: sorted 2,2,2,2,2,7; median (x3 + x4)/2 = 2;
     * mean 17/6; squared deviations 5·(2 - 17/6)^2 = 125/36 and
     * (7 - 17/6)^2 = 625/36, sum 750/36, / 5 = 25/6: stddev sqrt(25/6).
     * deviations 0,0,0,0,0,5: mad = (0 + 0)/2 = 0 → the 7 (off the median)
     * is an outlier, the five 2s are not: 1 outlier.
     * n = 6: P(B <= 0) = 1/64 <= 0.025, P(B <= 1) = 7/64 > 0.025: l = 1,
     * interval [x1, x6] = [2, 7], level 1 - 2/64 = 0.96875. */
    const double six[] = {2, 2, 2, 2, 7, 2};
    int64_t b = ok_run(&f, &k_omp, "{\"threads\":4}", six, 6, 4e9, no_phases);
    expect eb = {6, 2, 17.0 / 6, 2, 7, sqrt(25.0 / 6), 2, 7, 0.96875, 0, 1};
    check(&f, b, &eb, "n=6, mad=0");
    /* {4,4,4}: everything 4, mad 0, nobody off the median: 0 outliers. */
    const double same[] = {4, 4, 4};
    int64_t c = ok_run(&f, &k_omp, "{\"threads\":5}", same, 3, 4e9, no_phases);
    expect ec = {3, 4, 4, 4, 4, 0, NAN, NAN, NAN, 0, 0};
    check(&f, c, &ec, "all equal");
    sp_store_close(f.st);
}

Test(views, n7_odd_with_an_outlier)
{
    fixture f;
    fixture_open(&f);
    /* {10,11,12,13,14,15,100}: median x4 = 13; mean 175/7 = 25;
     * squared deviations from 25: 225,196,169,144,121,100,5625, sum 6580,
     * stddev sqrt(6580/6); deviations from 13: 3,2,1,0,1,2,87, sorted
     * 0,1,1,2,2,3,87: mad = x4 = 2; scores 0.6745·87/2 = 29.3 > 3.5 (the
     * 100), 0.6745·3/2 = 1.01: 1 outlier. n = 7: P(B <= 0) = 1/128,
     * P(B <= 1) = 8/128 = 0.0625: l = 1, [x1, x7] = [10, 100],
     * level 1 - 2/128 = 0.984375. Samples stored out of order. */
    const double s[] = {14, 100, 10, 12, 15, 11, 13};
    int64_t id = ok_run(&f, &k_omp, "{\"threads\":7}", s, 7, 4e9, no_phases);
    expect e = {7, 13, 25, 10, 100, sqrt(6580.0 / 6), 10, 100, 0.984375, 2, 1};
    check(&f, id, &e, "n=7");
    sp_store_close(f.st);
}

Test(views, n10_even_with_ties)
{
    fixture f;
    fixture_open(&f);
    /* {4,1,3,3,2,5,3,9,3,6}: sorted 1,2,3,3,3,3,4,5,6,9; median (x5 + x6)/2
     * = 3; mean 39/10 = 3.9; squared deviations 8.41, 3.61, 4·0.81, 0.01,
     * 1.21, 4.41, 26.01 sum 46.9: stddev sqrt(46.9/9). Deviations from 3:
     * 2,1,0,0,0,0,1,2,3,6 sorted 0,0,0,0,1,1,2,2,3,6: mad (1 + 1)/2 = 1;
     * scores 0.6745·6 = 4.047 > 3.5 (the 9), 0.6745·3 = 2.02: 1 outlier.
     * n = 10: P(B <= 1) = 11/1024 = 0.0107, P(B <= 2) = 56/1024 = 0.0547:
     * l = 2, [x2, x9] = [2, 6], level 1 - 22/1024 = 0.978515625. */
    const double s[] = {4, 1, 3, 3, 2, 5, 3, 9, 3, 6};
    int64_t id = ok_run(&f, &k_omp, "{\"threads\":10}", s, 10, 4e9, no_phases);
    expect e = {10, 3, 3.9, 1, 9, sqrt(46.9 / 9), 2, 6, 1 - 22.0 / 1024, 1, 1};
    check(&f, id, &e, "n=10");
    sp_store_close(f.st);
}

Test(views, n20_interval_ranks_6_and_15)
{
    fixture f;
    fixture_open(&f);
    /* 20, 19, ..., 1: median (10 + 11)/2 = 10.5; mean 10.5; stddev
     * sqrt(sum (i - 10.5)^2 / 19) = sqrt(665/19) = sqrt(35) (sum of squares
     * 2·(0.25 + 2.25 + ... + 90.25) = 665). Deviations 0.5,0.5,1.5,1.5,...:
     * x10 = 4.5, x11 = 5.5, mad = 5; top score 0.6745·9.5/5 = 1.28: none.
     * n = 20: P(B <= 5) = (1+20+190+1140+4845+15504)/2^20 = 21700/1048576
     * = 0.0207, P(B <= 6) = 0.0577: l = 6, [x6, x15] = [6, 15],
     * level 1 - 43400/1048576. */
    double s[20];
    for (int i = 0; i < 20; i++)
        s[i] = 20 - i;
    int64_t id = ok_run(&f, &k_omp, "{\"threads\":20}", s, 20, 4e9, no_phases);
    expect e = {20, 10.5, 10.5, 1, 20, sqrt(35.0), 6, 15, 1 - 43400.0 / 1048576, 5, 0};
    check(&f, id, &e, "n=20");
    sp_store_close(f.st);
}

Test(views, timing_modes_and_other_rate_units)
{
    fixture f;
    fixture_open(&f);
    /* median 5; phases convert 0.5, h2d 0.25, d2h 0.125:
     * kernel 5, with transfers 5 + 0.25 + 0.125 = 5.375, end to end
     * 5.375 + 0.5 = 5.875; rates 4/5 = 0.8, 4/5.375, 4/5.875. */
    const double s[] = {6, 5, 4};
    int64_t id = ok_run(&f, &k_omp, "{\"threads\":1}", s, 3, 4e9,
                        (sp_phases){.convert_s = 0.5, .h2d_s = 0.25, .d2h_s = 0.125});
    ud_close(stat(&f, "kernel_s", id), 5, "kernel_s");
    ud_close(stat(&f, "with_transfers_s", id), 5.375, "with_transfers_s");
    ud_close(stat(&f, "end_to_end_s", id), 5.875, "end_to_end_s");
    const char *q = "SELECT rate FROM run_modes WHERE run_id = ?1 AND mode = '%s'";
    const char *modes[] = {"kernel", "transfers", "end_to_end"};
    const double want[] = {0.8, 4 / 5.375, 4 / 5.875};
    for (int i = 0; i < 3; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, q, modes[i]);
        ud_close(ud_real(f.db, sql, id), want[i], modes[i]);
    }
    /* gbps = bytes / median / 1e9 = 8e9 / 5 / 1e9 = 1.6 */
    ud_close(stat(&f, "gbps", id), 1.6, "gbps");
    /* A sort run in Mkeys/s: 4e6 keys, median 2 s → 4e6 / 2 / 1e6 = 2;
     * no GFLOPS column for it. */
    const double t[] = {2, 2, 3};
    sp_run_record r = {.sweep_id = f.sweep, .matrix_id = f.matrix, .kernel = sp_kernel_identity(&k_sort),
                       .axes_json = "{}", .status = SP_RUN_OK, .flops = 4e6, .bytes = 1,
                       .nsamples = 3, .samples = t, .rate_unit = "Mkeys/s"};
    int64_t sid;
    sp_err err;
    cr_assert_eq(sp_store_run(f.st, &r, &sid, &err), 0, "%s", err.msg);
    ud_close(stat(&f, "rate", sid), 2, "Mkeys/s rate");
    cr_assert(isnan(stat(&f, "gflops", sid)), "gflops of a sort run must be NULL");
    char unit[32];
    ud_text(f.db, "SELECT rate_unit FROM run_stats WHERE run_id = ?1", sid, unit,
            sizeof unit);
    cr_assert_str_eq(unit, "Mkeys/s");
    ud_text(f.db, "SELECT rate_unit FROM run_stats WHERE run_id = ?1", id, unit, sizeof unit);
    cr_assert_str_eq(unit, "GFLOPS", "the operation's unit when the record has none");
    sp_store_close(f.st);
}

Test(views, speedup_against_serial_and_vendor_per_operation)
{
    fixture f;
    fixture_open(&f);
    /* serial median 5, omp 2, cusparse 4 (all spmv); a serial sort 3. */
    const double t5[] = {5}, t2[] = {2}, t4[] = {4}, t3[] = {3};
    int64_t ser = ok_run(&f, &k_serial, "{}", t5, 1, 4e9, no_phases);
    int64_t omp = ok_run(&f, &k_omp, "{\"threads\":2}", t2, 1, 4e9, no_phases);
    int64_t cus = ok_run(&f, &k_cusparse, "{}", t4, 1, 4e9, no_phases);
    int64_t srt = ok_run(&f, &k_sort, "{}", t3, 1, 4e6, no_phases);
    const char *sp = "SELECT speedup FROM speedup WHERE run_id = ?1";
    const char *vs = "SELECT vendor_speedup FROM speedup WHERE run_id = ?1";
    ud_close(ud_real(f.db, sp, omp), 5.0 / 2, "omp vs serial: 5/2");
    ud_close(ud_real(f.db, sp, cus), 5.0 / 4, "cusparse vs serial: 5/4");
    ud_close(ud_real(f.db, sp, ser), 1, "serial vs itself");
    ud_close(ud_real(f.db, vs, omp), 4.0 / 2, "omp vs cusparse: 4/2");
    ud_close(ud_real(f.db, vs, ser), 4.0 / 5, "serial vs cusparse: 4/5");
    ud_close(ud_real(f.db, vs, cus), 1, "cusparse vs itself");
    /* The sort run has its own serial baseline (itself) and no vendor. */
    ud_close(ud_real(f.db, sp, srt), 1, "sort baseline is per operation");
    cr_assert(isnan(ud_real(f.db, vs, srt)), "no vendor sort kernel: NULL");
    char k[64];
    ud_text(f.db, "SELECT baseline_kernel FROM speedup WHERE run_id = ?1", omp, k, sizeof k);
    cr_assert_str_eq(k, "spmv_csr_serial");
    ud_text(f.db, "SELECT kernel FROM best_runs WHERE operation = 'spmv' AND sweep_id = ?1",
            f.sweep, k, sizeof k);
    cr_assert_str_eq(k, "spmv_csr_omp");
    ud_close(ud_real(f.db, "SELECT vendor_speedup FROM best_runs WHERE operation = 'spmv' "
                           "AND sweep_id = ?1", f.sweep), 2, "best run vendor speedup");
    sp_store_close(f.st);
}

/* vendor_payoff: the products after which a faster kernel's conversion is
 * repaid against the vendor baseline's own. cuSPARSE median 4 s with 1 s
 * of analysis; a kernel of median 2 s and conversion 10 s is level after
 * (10 - 1) / (4 - 2) = 4.5, so ahead from the 5th product; one of median
 * 3 s and conversion 0.5 s from the first; a slower one never (NULL). */
Test(views, vendor_payoff_counts_the_products_a_conversion_costs)
{
    fixture f;
    fixture_open(&f);
    const double t4[] = {4}, t2[] = {2}, t3[] = {3}, t5[] = {5};
    ok_run(&f, &k_cusparse, "{}", t4, 1, 4e9, (sp_phases){.convert_s = 1});
    int64_t slow_conv = ok_run(&f, &k_omp, "{\"threads\":1}", t2, 1, 4e9,
                               (sp_phases){.convert_s = 10});
    int64_t cheap = ok_run(&f, &k_omp, "{\"threads\":2}", t3, 1, 4e9,
                           (sp_phases){.convert_s = 0.5});
    int64_t exact = ok_run(&f, &k_omp, "{\"threads\":3}", t2, 1, 4e9,
                           (sp_phases){.convert_s = 9});
    int64_t slower = ok_run(&f, &k_omp, "{\"threads\":4}", t5, 1, 4e9, no_phases);
    const char *q = "SELECT vendor_payoff FROM speedup WHERE run_id = ?1";
    cr_assert_eq(ud_int(f.db, q, slow_conv), 5, "(10 - 1) / (4 - 2) = 4.5: the 5th product");
    cr_assert_eq(ud_int(f.db, q, cheap), 1, "a cheaper conversion pays from the first");
    cr_assert_eq(ud_int(f.db, q, exact), 4, "(9 - 1) / 2 = 4 exactly: level at the 4th");
    cr_assert(isnan(ud_real(f.db, q, slower)), "a slower kernel never pays off");
    ud_close(ud_real(f.db, "SELECT vendor_convert_s FROM speedup WHERE run_id = ?1", cheap),
             1, "the vendor's conversion beside it");
    sp_store_close(f.st);
}

/* A single-precision run's baselines are at its precision where the
 * sweep has them: cuSPARSE CSR in double at 4 s and in single at 2 s, the
 * serial loop (no precision axis) at 8 s; a single run of 1 s is 2x the
 * single cuSPARSE and 8x the serial loop; a double run of 2 s is 2x the
 * double cuSPARSE. */
Test(views, baselines_at_the_runs_precision)
{
    fixture f;
    fixture_open(&f);
    const double t8[] = {8}, t4[] = {4}, t2[] = {2}, t1[] = {1};
    ok_run(&f, &k_serial, "{}", t8, 1, 4e9, no_phases);
    ok_run(&f, &k_cusparse, "{}", t4, 1, 4e9, no_phases);
    ok_run(&f, &k_cusparse, "{\"precision\":\"single\"}", t2, 1, 4e9, no_phases);
    int64_t s1 = ok_run(&f, &k_omp, "{\"threads\":2,\"precision\":\"single\"}", t1, 1, 4e9,
                        no_phases);
    int64_t d2 = ok_run(&f, &k_omp, "{\"threads\":2}", t2, 1, 4e9, no_phases);
    const char *vs = "SELECT vendor_speedup FROM speedup WHERE run_id = ?1";
    const char *sp = "SELECT speedup FROM speedup WHERE run_id = ?1";
    ud_close(ud_real(f.db, vs, s1), 2, "single against single cuSPARSE: 2/1");
    ud_close(ud_real(f.db, sp, s1), 8, "single against the double serial loop: 8/1");
    ud_close(ud_real(f.db, vs, d2), 2, "double against double cuSPARSE: 4/2");
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM speedup", 0), 5, "one row a run");
    sp_store_close(f.st);
}

/* The transposition's CUB kernels are ours (designs on CUB's primitives):
 * cuSPARSE is the vendor baseline and the strongest vendor even where a
 * CUB kernel is faster; the sort's CUB kernel, with no sparse library
 * beside it, stays its vendor. */
Test(views, cub_is_a_vendor_only_without_a_sparse_library)
{
    static const sp_kernel k_tser = {.name = "transpose_serial", .operation = "transpose",
                                     .format = "csc", .backend = "serial"};
    static const sp_kernel k_tcub = {.name = "transpose_cub_carry", .operation = "transpose",
                                     .format = "csc", .backend = "cub", .needs_gpu = 1};
    static const sp_kernel k_tcus = {.name = "transpose_cusparse", .operation = "transpose",
                                     .format = "csc", .backend = "cusparse", .needs_gpu = 1};
    static const sp_kernel k_scub = {.name = "sort_cub_radix", .operation = "sort",
                                     .format = "keys", .backend = "cub", .needs_gpu = 1};
    fixture f;
    fixture_open(&f);
    const double t8[] = {8}, t4[] = {4}, t2[] = {2};
    ok_run(&f, &k_tser, "{}", t8, 1, 4e9, no_phases);
    int64_t cub = ok_run(&f, &k_tcub, "{}", t2, 1, 4e9, no_phases);
    ok_run(&f, &k_tcus, "{}", t4, 1, 4e9, no_phases);
    static const sp_kernel k_gsort = {.name = "sort_gpu_test", .operation = "sort",
                                      .format = "keys", .backend = "cuda", .needs_gpu = 1};
    int64_t srt = ok_run(&f, &k_gsort, "{}", t8, 1, 4e6, no_phases);
    ok_run(&f, &k_scub, "{}", t2, 1, 4e6, no_phases);
    char k[64];
    ud_text(f.db, "SELECT kernel FROM baselines WHERE operation = 'transpose' AND "
                  "role = 'vendor' AND sweep_id = ?1", f.sweep, k, sizeof k);
    cr_assert_str_eq(k, "transpose_cusparse");
    ud_text(f.db, "SELECT best_vendor_kernel FROM speedup WHERE run_id = ?1", cub, k, sizeof k);
    cr_assert_str_eq(k, "transpose_cusparse");
    ud_close(ud_real(f.db, "SELECT vendor_speedup FROM speedup WHERE run_id = ?1", cub), 2,
             "CUB carry against cuSPARSE: 4/2");
    ud_text(f.db, "SELECT kernel FROM baselines WHERE operation = 'sort' AND role = 'vendor' "
                  "AND sweep_id = ?1", f.sweep, k, sizeof k);
    cr_assert_str_eq(k, "sort_cub_radix");
    ud_close(ud_real(f.db, "SELECT best_vendor_speedup FROM speedup WHERE run_id = ?1", srt),
             0.25, "the sort against CUB: 2/8");
    sp_store_close(f.st);
}

/* best_vendor_*: the fastest run of any vendor kernel on the run's device
 * at its precision, not the one vendor baseline: cuSPARSE CSR (the baseline) at
 * 4 s, cuSPARSE COO at 3 s; a single-precision COO run at 1 s is the
 * strongest for single-precision runs only. Intervals from 6 samples
 * each, the conservative ends. */
Test(views, best_vendor_is_the_fastest_vendor_run)
{
    static const sp_kernel k_coo = {.name = "spmv_coo_cusparse_alg1", .operation = "spmv",
                                    .format = "coo", .backend = "cusparse", .needs_gpu = 1};
    fixture f;
    fixture_open(&f);
    const double t4[] = {4, 4, 4, 4, 4, 4}, t3[] = {3, 3, 3, 3, 3, 3},
                 t2[] = {1.9, 2, 2, 2, 2, 2.1}, t1[] = {1, 1, 1, 1, 1, 1};
    ok_run(&f, &k_cusparse, "{}", t4, 6, 4e9, no_phases);
    ok_run(&f, &k_coo, "{}", t3, 6, 4e9, no_phases);
    ok_run(&f, &k_coo, "{\"precision\":\"single\"}", t1, 6, 4e9, no_phases);
    int64_t own = ok_run(&f, &k_cuda, "{\"blocksize\":128}", t2, 6, 4e9, no_phases);
    char k[64];
    ud_text(f.db, "SELECT best_vendor_kernel FROM speedup WHERE run_id = ?1", own, k,
            sizeof k);
    cr_assert_str_eq(k, "spmv_coo_cusparse_alg1");
    ud_close(ud_real(f.db, "SELECT vendor_speedup FROM speedup WHERE run_id = ?1", own), 2,
             "the vendor baseline stays CSR: 4/2");
    ud_close(ud_real(f.db, "SELECT best_vendor_speedup FROM speedup WHERE run_id = ?1", own),
             1.5, "the strongest: 3/2");
    double lo = ud_real(f.db, "SELECT best_vendor_speedup_lo FROM speedup WHERE run_id = ?1",
                        own),
           hi = ud_real(f.db, "SELECT best_vendor_speedup_hi FROM speedup WHERE run_id = ?1",
                        own),
           clo = stat(&f, "ci_lo", own), chi = stat(&f, "ci_hi", own);
    ud_close(lo, 3 / chi, "conservative low end");
    ud_close(hi, 3 / clo, "conservative high end");
    cr_assert(lo < 1.5 && hi > 1.5);
    cr_assert_eq(ud_int(f.db, "SELECT best_vendor_same FROM speedup WHERE run_id = ?1", own),
                 0, "2 against 3: apart");
    int64_t single = ok_run(&f, &k_cuda, "{\"blocksize\":128,\"precision\":\"single\"}",
                            t2, 6, 4e9, no_phases);
    ud_close(ud_real(f.db, "SELECT best_vendor_speedup FROM speedup WHERE run_id = ?1",
                     single), 0.5, "single against single: 1/2");
    sp_store_close(f.st);
}

/* Store a run of kernel k with the samples on matrix m; returns its id. */
static int64_t ok_run_on(fixture *f, int64_t m, const sp_kernel *k, const char *axes,
                         const double *s, int n)
{
    int64_t keep = f->matrix, id;
    f->matrix = m;
    id = ok_run(f, k, axes, s, n, 4e9, no_phases);
    f->matrix = keep;
    return id;
}

/* Another matrix of nnz nonzeros named name; returns its id. */
static int64_t other_matrix(fixture *f, const char *name, int64_t nnz)
{
    sp_matrix M;
    memset(&M, 0, sizeof M);
    snprintf(M.src.text, sizeof M.src.text, "gen:%s", name);
    snprintf(M.src.name, sizeof M.src.name, "%s", name);
    M.feat = (sp_features){.rows = nnz / 2, .cols = nnz / 2, .nnz = nnz, .size_class = "large"};
    M.checksum = (uint64_t)nnz;
    int64_t id;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_matrix(f->st, sp_matrix_identity(&M), &id, &err), 0, "%s", err.msg);
    return id;
}

/* own_vs_vendor: per device and precision our fastest run (any kernel that
 * is not a vendor library's, at its best axes) against the strongest
 * vendor run on the same device: the GPU's 2 s against cuSPARSE COO's 3 s
 * (CSR's 4 s is not the strongest); the intervals [1.9, 2.1] and [3, 3]
 * are apart: faster. The CPU's best (OpenMP at 5 s, under the serial 8 s)
 * has no vendor on its device: a row with NULL vendor and ratio. */
Test(views, own_vs_vendor_best_of_each_side_on_its_device)
{
    static const sp_kernel k_coo = {.name = "spmv_coo_cusparse_alg1", .operation = "spmv",
                                    .format = "coo", .backend = "cusparse", .needs_gpu = 1};
    fixture f;
    fixture_open(&f);
    const double t2[] = {1.9, 2, 2, 2, 2, 2.1}, t3[] = {3, 3, 3, 3, 3, 3},
                 t4[] = {4, 4, 4, 4, 4, 4}, t5[] = {5, 5, 5, 5, 5, 5}, t8[] = {8, 8, 8, 8, 8, 8};
    int64_t own = ok_run(&f, &k_cuda, "{\"blocksize\":128}", t2, 6, 4e9, no_phases);
    ok_run(&f, &k_cuda, "{\"blocksize\":256}", t3, 6, 4e9, no_phases);
    ok_run(&f, &k_cusparse, "{}", t4, 6, 4e9, no_phases);
    int64_t coo = ok_run(&f, &k_coo, "{}", t3, 6, 4e9, no_phases);
    int64_t omp = ok_run(&f, &k_omp, "{\"threads\":2}", t5, 6, 4e9, no_phases);
    ok_run(&f, &k_serial, "{}", t8, 6, 4e9, no_phases);
    cr_assert_eq(ud_int(f.db, "SELECT own_run_id FROM own_vs_vendor WHERE device = 'gpu' AND "
                              "sweep_id = ?1", f.sweep), own);
    cr_assert_eq(ud_int(f.db, "SELECT vendor_run_id FROM own_vs_vendor WHERE device = 'gpu' "
                              "AND sweep_id = ?1", f.sweep), coo);
    ud_close(ud_real(f.db, "SELECT ratio FROM own_vs_vendor WHERE own_run_id = ?1", own), 1.5,
             "3 / 2");
    ud_close(ud_real(f.db, "SELECT ratio_lo FROM own_vs_vendor WHERE own_run_id = ?1", own),
             3 / stat(&f, "ci_hi", own), "conservative low end");
    ud_close(ud_real(f.db, "SELECT ratio_hi FROM own_vs_vendor WHERE own_run_id = ?1", own),
             3 / stat(&f, "ci_lo", own), "conservative high end");
    char v[32];
    ud_text(f.db, "SELECT verdict FROM own_vs_vendor WHERE own_run_id = ?1", own, v, sizeof v);
    cr_assert_str_eq(v, "faster");
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM own_vs_vendor WHERE sweep_id = ?1",
                        f.sweep), 2, "one row per device");
    cr_assert_eq(ud_int(f.db, "SELECT vendor_kernel IS NULL AND ratio IS NULL FROM "
                              "own_vs_vendor WHERE own_run_id = ?1", omp), 1,
                 "no vendor on the CPU");
    sp_store_close(f.st);
}

/* own_vs_vendor_geomean over three matrices: the fixture's (20 nonzeros)
 * ours 2 against 4 (ratio 2, apart: faster), big1 (2e6) ours 4 against 2
 * (0.5, slower), big2 (3e6) ours 3 against 3 (1, same). Scope 'all': the
 * geomean (2 · 0.5 · 1)^(1/3) = 1, worst 0.5 on big1; scope 'nnz >= 1e6':
 * the two large ones, sqrt(0.5) with the geomeans of their bounds. */
Test(views, own_vs_vendor_geomean_scopes_verdicts_and_worst)
{
    fixture f;
    fixture_open(&f);
    int64_t big1 = other_matrix(&f, "big1", 2000000), big2 = other_matrix(&f, "big2", 3000000);
    const double t2[] = {1.9, 2, 2, 2, 2, 2.1}, t3[] = {2.9, 3, 3, 3, 3, 3.1},
                 t4[] = {3.9, 4, 4, 4, 4, 4.1};
    ok_run_on(&f, f.matrix, &k_cuda, "{}", t2, 6);
    ok_run_on(&f, f.matrix, &k_cusparse, "{}", t4, 6);
    int64_t a = ok_run_on(&f, big1, &k_cuda, "{}", t4, 6);
    int64_t av = ok_run_on(&f, big1, &k_cusparse, "{}", t2, 6);
    int64_t b = ok_run_on(&f, big2, &k_cuda, "{}", t3, 6);
    int64_t bv = ok_run_on(&f, big2, &k_cusparse, "{}", t3, 6);
    const char *q = "SELECT %s FROM own_vs_vendor_geomean WHERE sweep_id = ?1 AND scope = '%s'";
    char sql[256];
#define G(col, scope) (snprintf(sql, sizeof sql, q, col, scope), ud_real(f.db, sql, f.sweep))
    ud_close(G("matrices", "all"), 3, "three matrices");
    ud_close(G("geomean", "all"), 1, "(2 * 0.5 * 1)^(1/3)");
    ud_close(G("worst", "all"), 0.5, "big1");
    ud_close(G("faster", "all"), 1, "one faster");
    ud_close(G("same", "all"), 1, "one same");
    ud_close(G("slower", "all"), 1, "one slower");
    ud_close(G("matrices", "nnz >= 1e6"), 2, "the two large");
    ud_close(G("geomean", "nnz >= 1e6"), sqrt(0.5), "sqrt(0.5 * 1)");
    double lo = sqrt(stat(&f, "ci_lo", av) / stat(&f, "ci_hi", a) * stat(&f, "ci_lo", bv) /
                     stat(&f, "ci_hi", b));
    ud_close(G("geomean_lo", "nnz >= 1e6"), lo, "the geomean of the low ends");
    cr_assert(lo < sqrt(0.5));
#undef G
    char w[32];
    ud_text(f.db, "SELECT worst_matrix FROM own_vs_vendor_geomean WHERE sweep_id = ?1 AND "
                  "scope = 'all'", f.sweep, w, sizeof w);
    cr_assert_str_eq(w, "big1");
    FILE *out = tmpfile();
    sp_err err = {{0}};
    cr_assert_eq(sp_store_print_summary(f.st, f.sweep, out, &err), 0, "%s", err.msg);
    rewind(out);
    char text[8192];
    text[fread(text, 1, sizeof text - 1, out)] = 0;
    fclose(out);
    cr_assert(strstr(text, "spmv gpu double: 1.00x ["), "%s", text);
    cr_assert(strstr(text, "over 3 matrices (1 faster, 1 same, 1 slower); worst 0.50 on big1"),
              "%s", text);
    cr_assert(strstr(text, "spmv gpu double, nnz >= 1e6: 0.71x"), "%s", text);
    sp_store_close(f.st);
}

/* own_vs_each_vendor on the CPU, one matrix, two vendors: ours (OpenMP at
 * 2 s) against MKL's 3 s and librsb's best (tuned 4 s; the untuned 6 s is
 * not librsb's best): a row for each backend, ratios 1.5 and 2; the
 * strongest vendor (own_vs_vendor) is MKL; the geomean view has a line per
 * backend and one 'strongest', which own_vs_vendor_geomean keeps. */
Test(views, own_vs_each_vendor_one_row_per_backend_and_the_strongest)
{
    static const sp_kernel k_mkl = {.name = "spmv_mkl", .operation = "spmv",
                                    .format = "csr", .backend = "mkl"};
    static const sp_kernel k_rsb = {.name = "spmv_librsb", .operation = "spmv",
                                    .format = "rsb", .backend = "librsb"};
    fixture f;
    fixture_open(&f);
    const double t2[] = {1.9, 2, 2, 2, 2, 2.1}, t3[] = {3, 3, 3, 3, 3, 3},
                 t4[] = {4, 4, 4, 4, 4, 4}, t6[] = {6, 6, 6, 6, 6, 6};
    int64_t own = ok_run(&f, &k_omp, "{\"threads\":2}", t2, 6, 4e9, no_phases);
    int64_t mkl = ok_run(&f, &k_mkl, "{\"threads\":2}", t3, 6, 4e9, no_phases);
    int64_t tuned = ok_run(&f, &k_rsb, "{\"threads\":2,\"tune\":1}", t4, 6, 4e9, no_phases);
    ok_run(&f, &k_rsb, "{\"threads\":2,\"tune\":0}", t6, 6, 4e9, no_phases);
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM own_vs_each_vendor WHERE sweep_id = ?1",
                        f.sweep), 2, "one row per vendor backend");
    cr_assert_eq(ud_int(f.db, "SELECT vendor_run_id FROM own_vs_each_vendor WHERE sweep_id = ?1 "
                              "AND vendor_backend = 'librsb'", f.sweep), tuned);
    ud_close(ud_real(f.db, "SELECT ratio FROM own_vs_each_vendor WHERE sweep_id = ?1 AND "
                           "vendor_backend = 'librsb'", f.sweep), 2, "4 / 2");
    ud_close(ud_real(f.db, "SELECT ratio FROM own_vs_each_vendor WHERE sweep_id = ?1 AND "
                           "vendor_backend = 'mkl'", f.sweep), 1.5, "3 / 2");
    cr_assert_eq(ud_int(f.db, "SELECT own_run_id FROM own_vs_each_vendor WHERE sweep_id = ?1 "
                              "AND vendor_backend = 'mkl'", f.sweep), own);
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM own_vs_vendor WHERE sweep_id = ?1",
                        f.sweep), 1, "one strongest row");
    cr_assert_eq(ud_int(f.db, "SELECT vendor_run_id FROM own_vs_vendor WHERE sweep_id = ?1",
                        f.sweep), mkl, "MKL is the strongest");
    ud_close(ud_real(f.db, "SELECT geomean FROM own_vs_each_vendor_geomean WHERE sweep_id = ?1 "
                           "AND vendor = 'librsb' AND scope = 'all'", f.sweep), 2, "librsb");
    ud_close(ud_real(f.db, "SELECT geomean FROM own_vs_each_vendor_geomean WHERE sweep_id = ?1 "
                           "AND vendor = 'strongest' AND scope = 'all'", f.sweep), 1.5, "MKL");
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM own_vs_vendor_geomean WHERE sweep_id = ?1",
                        f.sweep), 1, "the strongest line only (no matrix of >= 1e6 nnz)");
    ud_close(ud_real(f.db, "SELECT geomean FROM own_vs_vendor_geomean WHERE sweep_id = ?1",
                     f.sweep), 1.5, "against MKL");
    sp_store_close(f.st);
}

/* run_counts: every status counted once, the matrix failures beside; the
 * sweep's tally (its exit status) reads the same view. */
Test(views, run_counts_by_status_and_the_tally_agree)
{
    fixture f;
    fixture_open(&f);
    const double s1[] = {1};
    ok_run(&f, &k_omp, "{\"threads\":1}", s1, 1, 4e9, no_phases);
    const sp_run_status st[] = {SP_RUN_FAILED, SP_RUN_SKIPPED, SP_RUN_SKIPPED, SP_RUN_ERROR,
                                SP_RUN_CRASHED, SP_RUN_TIMEOUT};
    sp_err err = {{0}};
    for (int i = 0; i < 6; i++) {
        char axes[32];
        snprintf(axes, sizeof axes, "{\"threads\":%d}", i + 2);
        sp_run_record r = {.sweep_id = f.sweep, .matrix_id = f.matrix, .kernel = sp_kernel_identity(&k_omp),
                           .axes_json = axes, .status = st[i], .error = "why",
                           .rel_error = NAN};
        cr_assert_eq(sp_store_run(f.st, &r, NULL, &err), 0, "%s", err.msg);
    }
    cr_assert_eq(sp_store_matrix_failure(f.st, f.sweep, "gen:gone", SP_RUN_ERROR, "r", &err), 0,
                 "%s", err.msg);
    const char *cols[] = {"runs", "ok", "failed", "skipped", "error", "crashed", "timeout",
                          "matrices", "matrix_failures"};
    const int want[] = {7, 1, 1, 2, 1, 1, 1, 1, 1};
    for (int i = 0; i < 9; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT %s FROM run_counts WHERE sweep_id = ?1", cols[i]);
        cr_assert_eq(ud_int(f.db, sql, f.sweep), want[i], "%s", cols[i]);
    }
    sp_sweep_tally t;
    cr_assert_eq(sp_store_sweep_tally(f.st, f.sweep, &t, &err), 0, "%s", err.msg);
    cr_assert(t.runs == 7 && t.ok == 1 && t.failed == 1 && t.skipped == 2 && t.errors == 1 &&
              t.crashed == 1 && t.timeouts == 1 && t.matrix_failures == 1);
    sp_store_close(f.st);
}

/* The rate scales: the one table run_stats and the progress line read. */
Test(views, rate_scale_from_the_units_first_letter)
{
    fixture f;
    fixture_open(&f);
    ud_close(sp_store_rate_scale(f.st, "GFLOPS"), 1e9, "G");
    ud_close(sp_store_rate_scale(f.st, NULL), 1e9, "NULL counts as GFLOPS");
    ud_close(sp_store_rate_scale(f.st, "Mkeys/s"), 1e6, "M");
    ud_close(sp_store_rate_scale(f.st, "knnz/s"), 1e3, "k as K");
    ud_close(sp_store_rate_scale(f.st, "Tnnz/s"), 1e12, "T");
    ud_close(sp_store_rate_scale(f.st, "bytes/s"), 1, "no prefix");
    ud_close(sp_store_rate_scale(NULL, "GFLOPS"), 1, "no database");
    sp_store_close(f.st);
}

Test(views, failures_list_runs_and_matrices)
{
    fixture f;
    fixture_open(&f);
    sp_err err;
    const sp_run_status st[] = {SP_RUN_CRASHED, SP_RUN_TIMEOUT, SP_RUN_SKIPPED};
    for (int i = 0; i < 3; i++) {
        char axes[32];
        snprintf(axes, sizeof axes, "{\"threads\":%d}", i + 1);
        sp_run_record r = {.sweep_id = f.sweep, .matrix_id = f.matrix, .kernel = sp_kernel_identity(&k_omp),
                           .axes_json = axes, .status = st[i], .error = "why",
                           .rel_error = NAN};
        cr_assert_eq(sp_store_run(f.st, &r, NULL, &err), 0, "%s", err.msg);
    }
    cr_assert_eq(sp_store_matrix_failure(f.st, f.sweep, "suitesparse:HB/none", SP_RUN_SKIPPED,
                                         "could not be fetched: 404", &err), 0, "%s",
                 err.msg);
    cr_assert_eq(sp_store_matrix_failure(f.st, f.sweep, "x", SP_RUN_OK, "r", &err), -1);
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM run_failures WHERE sweep_id = ?1",
                        f.sweep), 3);
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM failures WHERE sweep_id = ?1", f.sweep), 4);
    char buf[256];
    ud_text(f.db, "SELECT status || '|' || matrix || '|' || reason FROM failures"
                  " WHERE what = 'matrix' AND sweep_id = ?1", f.sweep, buf, sizeof buf);
    cr_assert_str_eq(buf, "skipped|suitesparse:HB/none|could not be fetched: 404");
    FILE *out = tmpfile();
    cr_assert_eq(sp_store_print_summary(f.st, f.sweep, out, &err), 0, "%s", err.msg);
    rewind(out);
    char text[4096];
    text[fread(text, 1, sizeof text - 1, out)] = 0;
    fclose(out);
    cr_assert(strstr(text, "1 crashed, 1 timeout"), "%s", text);
    cr_assert(strstr(text, "matrix suitesparse:HB/none skipped: could not be fetched: 404"),
              "%s", text);
    sp_store_close(f.st);
}

Test(views, duplicate_run_is_not_stored_twice)
{
    fixture f;
    fixture_open(&f);
    const double s[] = {1, 2};
    int64_t a = ok_run(&f, &k_omp, "{\"threads\":1}", s, 2, 4e9, no_phases);
    sp_run_record r = {.sweep_id = f.sweep, .matrix_id = f.matrix, .kernel = sp_kernel_identity(&k_omp),
                       .axes_json = "{\"threads\":1}", .status = SP_RUN_OK, .nsamples = 2,
                       .samples = s, .flops = 1};
    int64_t b = 0;
    sp_err err;
    cr_assert_eq(sp_store_run(f.st, &r, &b, &err), 1, "a duplicate must be refused with 1");
    cr_assert_eq(a, b, "the stored run's id comes back");
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM samples", 0), 2);
    char reason[16];
    ud_text(f.db, "SELECT stop_reason FROM runs WHERE id = ?1", a, reason, sizeof reason);
    cr_assert_str_eq(reason, "count");
    sp_store_close(f.st);
}

/* Read a file of tests/data into a malloc'd string. */
static char *slurp_data(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tu_datadir(), name);
    return tu_slurp(path, NULL);
}

/* A version-1 database (the schema and views of commit 7fe969b) with one
 * sweep, a matrix, an ok run with 3 samples and a failed run. */
static void make_v1_database(const char *path)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *schema = slurp_data("schema-v1/schema.sql"), *views = slurp_data("schema-v1/views.sql");
    ud_exec(db, "PRAGMA journal_mode = WAL");
    ud_exec(db, schema);
    ud_exec(db, views);
    free(schema);
    free(views);
    ud_exec(db, "INSERT INTO sweeps (id, config_text, started_at, status, repetitions)"
                " VALUES (7, 'old', '2024-01-01T00:00:00.000Z', 'done', 3);"
                "INSERT INTO matrices (id, source, name, rows, cols, nnz, checksum)"
                " VALUES (3, 'gen:old', 'old', 2, 2, 2, '0123456789abcdef');"
                "INSERT INTO runs (id, sweep_id, matrix_id, kernel, operation, backend,"
                " axes, status, flops, h2d_s, warmup, repetitions, created_at) VALUES"
                " (11, 7, 3, 'spmv_csr_serial', 'spmv', 'serial', '{}', 'ok', 4e9, 0.5, 1,"
                " 3, 'now'), (12, 7, 3, 'spmv_csr_omp', 'spmv', 'openmp', '{\"threads\":2}',"
                " 'failed', 4e9, NULL, 1, 0, 'now');"
                "INSERT INTO samples VALUES (11, 0, 3.0), (11, 1, 1.0), (11, 2, 2.0);");
    cr_assert_eq(ud_int(db, "PRAGMA user_version", 0), 1);
    sqlite3_close(db);
}

Test(views, migration_from_version_1_keeps_data_and_widens_statuses)
{
    char dir[256], path[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "v1.db");
    make_v1_database(path);
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "migration: %s", err.msg);
    sqlite3 *db = sp_store_db(st);
    cr_assert_eq(ud_int(db, "PRAGMA user_version", 0), 10);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM sweeps WHERE isolate IS NULL", 0), 1,
                 "version 3's column, NULL for the old sweep");
    cr_assert_eq(ud_int(db, "PRAGMA foreign_keys", 0), 1, "foreign keys back on");
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM samples WHERE run_id = 11", 0), 3,
                 "rebuilding runs must not cascade into samples");
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM runs", 0), 2);
    char buf[256];
    ud_text(db, "SELECT kernel || '|' || status || '|' || stop_reason || '|' || rate_unit"
                " || '|' || h2d_s FROM runs WHERE id = 11", 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "spmv_csr_serial|ok|count|GFLOPS|0.5");
    cr_assert_eq(ud_int(db, "SELECT stop_reason IS NULL FROM runs WHERE id = 12", 0), 1);
    ud_close(ud_real(db, "SELECT median FROM run_stats WHERE run_id = 11", 0), 2,
             "median of 3,1,2 after migration");
    ud_close(ud_real(db, "SELECT rate FROM run_stats WHERE run_id = 11", 0), 2, "rate 4/2");
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN"
                            " ('runs_by_sweep', 'runs_by_status', 'matrix_failures',"
                            " 'failures', 'run_modes')", 0), 5);
    /* New statuses and columns work on the migrated database. */
    static const sp_kernel k = {.name = "spmv_csr_cuda_scalar", .operation = "spmv",
                                .backend = "cuda", .needs_gpu = 1};
    sp_run_record r = {.sweep_id = 7, .matrix_id = 3, .kernel = sp_kernel_identity(&k), .axes_json = "{}",
                       .status = SP_RUN_CRASHED, .error = "killed by SIGSEGV", .rel_error = NAN};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
    r.status = SP_RUN_TIMEOUT;
    r.axes_json = "{\"blocksize\":64}";
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM run_failures WHERE sweep_id = 7", 0), 3);
    /* Deleting the sweep still cascades through the rebuilt runs table. */
    ud_exec(db, "DELETE FROM sweeps WHERE id = 7");
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM samples", 0), 0);
    sp_store_close(st);
    /* Opening again is a no-op. */
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "reopen: %s", err.msg);
    cr_assert_eq(ud_int(sp_store_db(st), "PRAGMA user_version", 0), 10);
    sp_store_close(st);
}

/* A version-3 database, from the version-3 schema kept in tests/data, with
 * one ok run of samples 3, 1, 2, 5, 4, 6 and a failed one. */
static void make_v3_database(const char *path)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *schema = slurp_data("schema-v3/schema.sql");
    ud_exec(db, schema);
    free(schema);
    ud_exec(db, "INSERT INTO sweeps (id, config_text, started_at, status, repetitions)"
                " VALUES (7, 'x', '2025-01-01T00:00:00.000Z', 'done', 6);"
                "INSERT INTO matrices (id, source, name, rows, cols, nnz, checksum)"
                " VALUES (3, 'gen:old', 'old', 2, 2, 2, '0123456789abcdef');"
                "INSERT INTO runs (id, sweep_id, matrix_id, kernel, operation, backend,"
                " axes, status, flops, warmup, repetitions, created_at) VALUES"
                " (11, 7, 3, 'spmv_csr_serial', 'spmv', 'serial', '{}', 'ok', 4e9, 1, 6,"
                " 'now'), (12, 7, 3, 'spmv_csr_omp', 'spmv', 'openmp', '{\"threads\":2}',"
                " 'failed', 4e9, 1, 0, 'now');"
                "INSERT INTO samples VALUES (11, 0, 3.0), (11, 1, 1.0), (11, 2, 2.0),"
                " (11, 3, 5.0), (11, 4, 4.0), (11, 5, 6.0);");
    cr_assert_eq(ud_int(db, "PRAGMA user_version", 0), 3);
    sqlite3_close(db);
}

/* Version 3 to 4: the runs gain their statistics (computed by db/stats.c
 * from the samples, as for new runs), one round 0 each, and the harness's
 * columns (one launch a sample, warm, one round). */
Test(views, migration_from_version_3_computes_the_statistics)
{
    char dir[256], path[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "v3.db");
    make_v3_database(path);
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "migration: %s", err.msg);
    sqlite3 *db = sp_store_db(st);
    cr_assert_eq(ud_int(db, "PRAGMA user_version", 0), 10);
    /* samples 1..6: median 3.5; n = 6 -> ranks 1 and 6 (level 0.96875) */
    ud_close(ud_real(db, "SELECT median FROM run_stats WHERE run_id = 11", 0), 3.5, "median");
    ud_close(ud_real(db, "SELECT ci_lo FROM run_stats WHERE run_id = 11", 0), 1.0, "ci_lo");
    ud_close(ud_real(db, "SELECT ci_hi FROM run_stats WHERE run_id = 11", 0), 6.0, "ci_hi");
    ud_close(ud_real(db, "SELECT ci_level FROM run_stats WHERE run_id = 11", 0), 0.96875,
             "level");
    cr_assert_eq(ud_int(db, "SELECT batch FROM run_stats WHERE run_id = 11", 0), 1);
    cr_assert_eq(ud_int(db, "SELECT rounds FROM run_stats WHERE run_id = 11", 0), 1);
    cr_assert_eq(ud_int(db, "SELECT noisy FROM run_stats WHERE run_id = 11", 0), 1,
                 "an interval of +-71 %% is noisy");
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM run_rounds WHERE round = 0", 0), 2);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM samples WHERE round = 0", 0), 6);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM run_stats", 0), 1, "the failed run has none");
    sp_store_close(st);
}

/* A version-2 database (version 3 without its column) gains sweeps.isolate,
 * and its sweep and runs stay. */
Test(views, migration_from_version_2_adds_isolate)
{
    char dir[256], path[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "v2.db");
    make_v3_database(path);
    sp_store *st;
    sp_err err = {{0}};
    sp_sweep_meta m;
    sp_sweep_meta_init(&m);
    m.config_text = "x";
    int64_t id;
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    ud_exec(db, "ALTER TABLE sweeps DROP COLUMN isolate; PRAGMA user_version = 2");
    sqlite3_close(db);
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "migration: %s", err.msg);
    db = sp_store_db(st);
    cr_assert_eq(ud_int(db, "PRAGMA user_version", 0), 10);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM sweeps WHERE isolate IS NULL", 0), 1);
    m.isolate = "matrix";
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    char buf[32];
    ud_text(db, "SELECT isolate FROM sweeps ORDER BY id DESC LIMIT 1", 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "matrix");
    sp_store_close(st);
}

/* A version-5 database gains sweeps.libraries (NULL for its sweeps: they
 * did not record them), and a new sweep stores them. */
Test(views, migration_from_version_5_adds_libraries)
{
    char dir[256], path[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "v5.db");
    sp_store *st;
    sp_err err = {{0}};
    sp_sweep_meta m;
    sp_sweep_meta_init(&m);
    m.config_text = "x";
    int64_t id;
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    sp_store_close(st);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    /* the last column first: SQLite 3.40 cannot drop a table's last column
     * once the columns before it were dropped */
    ud_drop_views(db);
    ud_exec(db, UNDO_V9 "ALTER TABLE run_rounds DROP COLUMN steps; "
                "ALTER TABLE sweeps DROP COLUMN host_cache_bytes; ALTER TABLE sweeps DROP "
                "COLUMN host_cache_gbs; ALTER TABLE sweeps DROP COLUMN device_l2_bytes; "
                "ALTER TABLE sweeps DROP COLUMN device_l2_gbs; ALTER TABLE sweeps DROP COLUMN "
                "libraries; PRAGMA user_version = 5");
    sqlite3_close(db);
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "migration: %s", err.msg);
    db = sp_store_db(st);
    cr_assert_eq(ud_int(db, "PRAGMA user_version", 0), 10);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM sweeps WHERE libraries IS NULL", 0), 1);
    m.libraries = "librsb 1.3; MKL 2026.2, threading gnu";
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    char buf[64];
    ud_text(db, "SELECT libraries FROM sweeps WHERE id = ?1", id, buf, sizeof buf);
    cr_assert_str_eq(buf, "librsb 1.3; MKL 2026.2, threading gnu");
    sp_store_close(st);
}

/* A version-6 database gains the cache roofs (NULL for its sweeps: they
 * did not measure them), and a new sweep stores them. */
Test(views, migration_from_version_6_adds_the_cache_roofs)
{
    char dir[256], path[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "v6.db");
    sp_store *st;
    sp_err err = {{0}};
    sp_sweep_meta m;
    sp_sweep_meta_init(&m);
    m.config_text = "x";
    int64_t id;
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    sp_store_close(st);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    ud_drop_views(db);
    ud_exec(db, UNDO_V9 "ALTER TABLE run_rounds DROP COLUMN steps; "
                "ALTER TABLE sweeps DROP COLUMN host_cache_bytes; "
                "ALTER TABLE sweeps DROP COLUMN host_cache_gbs; ALTER TABLE sweeps DROP "
                "COLUMN device_l2_bytes; ALTER TABLE sweeps DROP COLUMN device_l2_gbs; "
                "PRAGMA user_version = 6");
    sqlite3_close(db);
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "migration: %s", err.msg);
    db = sp_store_db(st);
    cr_assert_eq(ud_int(db, "PRAGMA user_version", 0), 10);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM sweeps WHERE device_l2_gbs IS NULL AND "
                            "host_cache_bytes IS NULL", 0), 1);
    m.device_l2_gbs = 9000, m.device_l2_bytes = 50 << 20;
    m.host_cache_gbs = 300, m.host_cache_bytes = 32 << 20;
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    ud_close(ud_real(db, "SELECT device_l2_gbs FROM sweeps WHERE id = ?1", id), 9000, "l2");
    cr_assert_eq(ud_int(db, "SELECT device_l2_bytes FROM sweeps WHERE id = ?1", id), 50 << 20);
    ud_close(ud_real(db, "SELECT host_cache_gbs FROM sweeps WHERE id = ?1", id), 300, "llc");
    cr_assert_eq(ud_int(db, "SELECT host_cache_bytes FROM sweeps WHERE id = ?1", id), 32 << 20);
    sp_store_close(st);
}

Test(views, newer_schema_refused)
{
    char dir[256], path[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "v11.db");
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    ud_exec(db, "PRAGMA user_version = 11");
    sqlite3_close(db);
    sp_store *st;
    sp_err err;
    cr_assert_eq(sp_store_open(path, &st, &err), -1);
    cr_assert(strstr(err.msg, "version 11 is newer"), "%s", err.msg);
}

/* ---- run_steps (schema version 8) ----------------------------------------- */

/* Store round `round` of an ok run of k with samples s and the round's
 * steps JSON (NULL: none). */
static void steps_round(fixture *f, const sp_kernel *k, int round, const double *s, int n,
                        const char *steps)
{
    sp_run_record r = {.sweep_id = f->sweep, .matrix_id = f->matrix, .kernel = sp_kernel_identity(k),
                       .axes_json = "{}", .status = SP_RUN_OK, .rel_error = 0, .flops = 4e9,
                       .bytes = 8e9, .nsamples = n, .samples = s, .round = round,
                       .steps = steps};
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(f->st, &r, NULL, &err), 0, "%s", err.msg);
}

/* Each step once per run, in the order marked, its median over the
 * rounds' medians (the middle one of 3; the mean of the middle two of 2),
 * and its share of the run's median launch. A run without steps has no
 * row. */
Test(views, run_steps_gives_each_steps_median_over_rounds)
{
    fixture f;
    fixture_open(&f);
    static const sp_kernel k_scan = {.name = "transpose_scantrans", .operation = "transpose",
                                     .format = "csc", .backend = "openmp"};
    static const sp_kernel k_two = {.name = "transpose_two", .operation = "transpose",
                                    .format = "csc", .backend = "openmp"};
    const double s[] = {2, 2, 2};
    steps_round(&f, &k_scan, 0, s, 3, "{\"a\":0.5,\"b\":1.5}");
    steps_round(&f, &k_scan, 1, s, 3, "{\"a\":0.7,\"b\":1.1}");
    steps_round(&f, &k_scan, 2, s, 3, "{\"a\":0.6,\"b\":1.4}");
    steps_round(&f, &k_two, 0, s, 3, "{\"x\":1,\"y\":1}");
    steps_round(&f, &k_two, 1, s, 3, "{\"x\":2,\"y\":0.5}");
    steps_round(&f, &k_serial, 0, s, 3, NULL);
    sqlite3 *db = f.db;
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM run_rounds WHERE steps IS NOT NULL", 0), 5);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM run_stats", 0), 3);
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM run_steps", 0), 4, "two steps of two runs");
    cr_assert_eq(ud_int(db, "SELECT count(*) FROM run_steps WHERE kernel = 'spmv_csr_serial'",
                        0), 0);
    /* a: 0.5 0.7 0.6 -> 0.6; b: 1.5 1.1 1.4 -> 1.4; kernel_s 2 */
    ud_close(ud_real(db, "SELECT median_s FROM run_steps WHERE step = 'a'", 0), 0.6, "a");
    ud_close(ud_real(db, "SELECT median_s FROM run_steps WHERE step = 'b'", 0), 1.4, "b");
    ud_close(ud_real(db, "SELECT share FROM run_steps WHERE step = 'a'", 0), 0.3, "a share");
    ud_close(ud_real(db, "SELECT share FROM run_steps WHERE step = 'b'", 0), 0.7, "b share");
    cr_assert_eq(ud_int(db, "SELECT position FROM run_steps WHERE step = 'b'", 0), 2);
    cr_assert_eq(ud_int(db, "SELECT rounds FROM run_steps WHERE step = 'a'", 0), 3);
    /* two rounds: x 1, 2 -> 1.5; y 1, 0.5 -> 0.75 */
    ud_close(ud_real(db, "SELECT median_s FROM run_steps WHERE step = 'x'", 0), 1.5, "x");
    ud_close(ud_real(db, "SELECT median_s FROM run_steps WHERE step = 'y'", 0), 0.75, "y");
    cr_assert_eq(ud_int(db, "SELECT position FROM run_steps WHERE step = 'y'", 0), 2);
    sp_store_close(f.st);
}

/* A version-7 database gains run_rounds.steps (NULL for its rounds: they
 * timed no steps) and the view; a new run stores its steps and the view
 * reads them. */
Test(views, migration_from_version_7_adds_the_steps)
{
    fixture f;
    fixture_open(&f);
    const double s[] = {1, 1, 1};
    steps_round(&f, &k_serial, 0, s, 3, NULL);
    char path[400];
    snprintf(path, sizeof path, "%s", sqlite3_db_filename(f.db, "main"));
    sp_store_close(f.st);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    ud_drop_views(db);
    ud_exec(db, UNDO_V9 "ALTER TABLE run_rounds DROP COLUMN steps; "
                "PRAGMA user_version = 7");
    sqlite3_close(db);
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &f.st, &err), 0, "migration: %s", err.msg);
    f.db = sp_store_db(f.st);
    cr_assert_eq(ud_int(f.db, "PRAGMA user_version", 0), 10);
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM run_rounds WHERE steps IS NULL", 0), 1);
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM run_steps", 0), 0);
    steps_round(&f, &k_omp, 0, s, 3, "{\"histogram\":0.25,\"write_back\":0.75}");
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM run_steps WHERE kernel = 'spmv_csr_omp'",
                        0), 2);
    ud_close(ud_real(f.db, "SELECT share FROM run_steps WHERE step = 'write_back'", 0), 0.75,
             "write back's share");
    sp_store_close(f.st);
}

/* A run on managed memory is a series of its own, as a single-precision
 * one is: " (managed)", " (single, managed)"; device memory, whether the
 * axis is set or left out, keeps the plain name. */
Test(views, managed_memory_runs_are_series_of_their_own)
{
    fixture f;
    fixture_open(&f);
    const double t1[] = {1}, t2[] = {2}, t3[] = {3}, t4[] = {4};
    ok_run(&f, &k_cuda, "{\"blocksize\":128}", t1, 1, 4e9, no_phases);
    ok_run(&f, &k_cuda, "{\"blocksize\":128,\"memory\":\"device\"}", t2, 1, 4e9, no_phases);
    ok_run(&f, &k_cuda, "{\"blocksize\":128,\"memory\":\"managed\"}", t3, 1, 4e9, no_phases);
    ok_run(&f, &k_cuda, "{\"blocksize\":128,\"precision\":\"single\",\"memory\":\"managed\"}",
           t4, 1, 4e9, no_phases);
    const char *series[] = {"spmv_csr_cuda_vector", "spmv_csr_cuda_vector (managed)",
                            "spmv_csr_cuda_vector (single, managed)", "csr/cuda (managed)"};
    const double best[] = {1, 3, 4, 3};
    for (int i = 0; i < 4; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT median FROM series_best_runs WHERE series = '%s' "
                 "AND sweep_id = ?1", series[i]);
        ud_close(ud_real(f.db, sql, f.sweep), best[i], series[i]);
    }
    cr_assert_eq(ud_int(f.db, "SELECT count(*) FROM series_best_runs WHERE level = 'kernel' "
                              "AND sweep_id = ?1", f.sweep), 3,
                 "device memory set or left out: one series");
    char m[32];
    ud_text(f.db, "SELECT group_concat(memory) FROM (SELECT memory FROM run_stats "
                  "WHERE sweep_id = ?1 ORDER BY run_id)", f.sweep, m, sizeof m);
    cr_assert_str_eq(m, "device,device,managed,managed");
    sp_store_close(f.st);
}
