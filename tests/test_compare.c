/* test_compare.c — the comparison of two sweeps (issue 19, point 7): the
 * Mann–Whitney U test against scipy (suite ranktest), the verdict rules on
 * synthetic runs, and `spsweep compare` and the report's change table on
 * two small databases of synthetic samples (suite compare). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/compare.h"
#include "../db/ranktest.h"
#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
#include "../plots/report.h"
#include "testutil.h"

/* ---- the rank test against scipy 1.10.1 ------------------------------------
 * Every expected value below was printed once by
 *   /usr/bin/python3 -c "from scipy.stats import mannwhitneyu as mwu; \
 *       r = mwu(A, B, alternative='two-sided', method=M); \
 *       print(repr(float(r.statistic)), repr(float(r.pvalue)))"
 * with A, B and M as given above each case (the Python expressions that
 * build A and B are written out in C the same way, so the doubles are the
 * same). p is checked to 1e-12 absolute and 1e-9 relative: the exact
 * method adds integer counts (exact in a double) and the normal one calls
 * erfc, both far inside that. */
static void check_mwu(const double *a, int na, const double *b, int nb, double u, double p,
                      sp_mwu_method m, const char *what)
{
    sp_mwu r;
    cr_assert_eq(sp_mann_whitney(a, na, b, nb, &r), 0, "%s", what);
    cr_expect_eq(r.method, m, "%s: method %s", what, sp_mwu_method_name(r.method));
    cr_expect(r.u == u, "%s: U %.17g, scipy %.17g", what, r.u, u);
    cr_expect(fabs(r.p - p) <= 1e-12 + 1e-9 * p, "%s: p %.17g, scipy %.17g", what, r.p, p);
}

Test(ranktest, exact_small_samples_match_scipy)
{
    /* A = [1.12, 0.98, 1.05, 1.31, 0.91, 1.22, 1.07]
     * B = [1.41, 1.18, 1.29, 1.52, 1.36, 1.09, 1.44, 1.27, 1.60]; M = 'exact' */
    const double a[] = {1.12, 0.98, 1.05, 1.31, 0.91, 1.22, 1.07};
    const double b[] = {1.41, 1.18, 1.29, 1.52, 1.36, 1.09, 1.44, 1.27, 1.60};
    check_mwu(a, 7, b, 9, 7.0, 0.007867132867132868, SP_MWU_EXACT, "7 vs 9");
    /* A = [1.0, 1.1, 1.2], B = [2.0, 2.1, 2.2, 2.3]; 'exact': 2 / C(7, 3) */
    const double sa[] = {1.0, 1.1, 1.2}, sb[] = {2.0, 2.1, 2.2, 2.3};
    check_mwu(sa, 3, sb, 4, 0.0, 0.05714285714285714, SP_MWU_EXACT, "separated");
    /* A = [1.0, 3.0, 5.0, 7.0], B = [2.0, 4.0, 6.0, 8.0]; 'exact' */
    const double ia[] = {1.0, 3.0, 5.0, 7.0}, ib[] = {2.0, 4.0, 6.0, 8.0};
    check_mwu(ia, 4, ib, 4, 6.0, 0.6857142857142857, SP_MWU_EXACT, "interleaved");
    /* the same, swapped: U becomes na*nb - U, p stays */
    check_mwu(ib, 4, ia, 4, 10.0, 0.6857142857142857, SP_MWU_EXACT, "interleaved, swapped");
    /* A = [1.55], B = [1 + k/10 for k in range(20)]; 'exact' */
    double one[] = {1.55}, twenty[20];
    for (int k = 0; k < 20; k++)
        twenty[k] = 1 + k / 10.0;
    check_mwu(one, 1, twenty, 20, 6.0, 0.6666666666666666, SP_MWU_EXACT, "1 vs 20");
}

Test(ranktest, exact_twenty_a_side_matches_scipy)
{
    double a[20], b[20];
    /* A = [1 + ((i*37) % 101)/1000 for i in range(20)]
     * B = [1.01 + ((i*53) % 97)/1000 + 0.0001 for i in range(20)]; 'exact' */
    for (int i = 0; i < 20; i++) {
        a[i] = 1 + ((i * 37) % 101) / 1000.0;
        b[i] = 1.01 + ((i * 53) % 97) / 1000.0 + 0.0001;
    }
    check_mwu(a, 20, b, 20, 185.0, 0.6980275512025765, SP_MWU_EXACT, "20 vs 20");
    /* A = [1 + i/100 for i in range(20)]
     * B = [1.17 + i/100 + 0.001 for i in range(20)]; 'exact' (tail of 1e-10) */
    for (int i = 0; i < 20; i++) {
        a[i] = 1 + i / 100.0;
        b[i] = 1.17 + i / 100.0 + 0.001;
    }
    check_mwu(a, 20, b, 20, 3.0, 1.0156222372694778e-10, SP_MWU_EXACT, "20 vs 20, far");
}

Test(ranktest, normal_approximation_matches_scipy)
{
    /* A = [1,2,2,3,3,3,4], B = [2,3,4,4,5,5,6]; 'asymptotic' (ties: small
     * samples too use the tie-corrected normal approximation) */
    const double ta[] = {1, 2, 2, 3, 3, 3, 4}, tb[] = {2, 3, 4, 4, 5, 5, 6};
    check_mwu(ta, 7, tb, 7, 8.5, 0.043051432728945134, SP_MWU_NORMAL, "ties, 7 vs 7");
    double a[45], b[45];
    /* A = [1 + ((i*37) % 101)/1000 for i in range(30)]
     * B = [1.02 + ((i*29) % 89)/1000 + 0.00005 for i in range(45)]; 'asymptotic' */
    for (int i = 0; i < 45; i++) {
        a[i] = 1 + ((i * 37) % 101) / 1000.0;
        b[i] = 1.02 + ((i * 29) % 89) / 1000.0 + 0.00005;
    }
    check_mwu(a, 30, b, 45, 483.0, 0.038356290710355775, SP_MWU_NORMAL, "30 vs 45");
    /* A = [(1000 + ((i*37) % 101) // 10 * 10) / 1000 for i in range(25)]
     * B = [(1015 + ((i*53) % 97) // 10 * 10) / 1000 for i in range(25)];
     * 'asymptotic' (values on a 0.01 grid: many ties) */
    for (int i = 0; i < 25; i++) {
        a[i] = (1000 + ((i * 37) % 101) / 10 * 10) / 1000.0;
        b[i] = (1015 + ((i * 53) % 97) / 10 * 10) / 1000.0;
    }
    check_mwu(a, 25, b, 25, 264.0, 0.3510077042972175, SP_MWU_NORMAL, "ties, 25 vs 25");
    /* A = [1.0, 1.0, 1.0], B = [1.0, 1.0]; 'asymptotic': every value tied */
    const double same[] = {1.0, 1.0, 1.0};
    check_mwu(same, 3, same, 2, 3.0, 1.0, SP_MWU_NORMAL, "all tied");
}

Test(ranktest, bad_input_refused)
{
    const double a[] = {1, 2}, bad[] = {1, NAN};
    sp_mwu r;
    cr_expect_eq(sp_mann_whitney(a, 0, a, 2, &r), -1, "empty first sample");
    cr_expect_eq(sp_mann_whitney(a, 2, a, 0, &r), -1, "empty second sample");
    cr_expect_eq(sp_mann_whitney(a, 2, bad, 2, &r), -1, "NaN");
    cr_expect_eq(sp_mann_whitney(a, 2, a, 2, NULL), -1, "no output");
}

/* ---- synthetic runs -------------------------------------------------------- */

/* A uniform number in [-1, 1) from a 64-bit LCG (Knuth's MMIX constants):
 * the same samples on every machine. */
static double jitter(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) * 0x1.0p-53 * 2 - 1;
}

/* n samples median * (1 + spread * u), u uniform in [-1, 1). */
static void draw(double *x, int n, double median, double spread, uint64_t seed)
{
    for (int i = 0; i < n; i++)
        x[i] = median * (1 + spread * jitter(&seed));
}

/* A run over samples x[0..n) with the given interval (lo = hi = 0: no
 * interval, the range is taken). */
static sp_cmp_run run_of(const double *x, int n, double median, double lo, double hi)
{
    sp_cmp_run r = {.run_id = 1, .matrix = "m", .source = "gen:m", .operation = "spmv",
                    .kernel = "k", .axes = "{}", .median = median, .lo = lo, .hi = hi,
                    .n = n, .samples = x};
    return r;
}

static sp_cmp_verdict judge(const sp_cmp_run *a, const sp_cmp_run *b, double min_effect,
                            double alpha, double max_noise, sp_cmp_row *row)
{
    sp_cmp_opts o = {.min_effect = min_effect, .alpha = alpha, .max_noise = max_noise};
    sp_err err = {{0}};
    cr_assert_eq(sp_cmp_judge(a, b, &o, row, &err), 0, "%s", err.msg);
    return row->verdict;
}

/* Each of the three conditions alone keeps a difference from being
 * called; with all three it is called, in the right direction. */
Test(compare, verdict_needs_test_effect_and_noise)
{
    double a[20], b[20];
    sp_cmp_row row;
    draw(a, 20, 1.0, 0.001, 1);
    draw(b, 20, 1.01, 0.001, 2);    /* 1 % slower, every b above every a */
    sp_cmp_run ra = run_of(a, 20, 1.0, 0.9995, 1.0005), rb = run_of(b, 20, 1.01, 1.0095, 1.0105);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.05, &row), SP_CMP_SAME, "below the 2 %% effect");
    cr_expect(row.p < 1e-6, "separated samples: p %g", row.p);
    cr_expect_eq(judge(&ra, &rb, 0.005, 0.05, 0.05, &row), SP_CMP_SLOWER, "above 0.5 %%");
    cr_expect(fabs(row.ratio - 1.01) < 1e-12 && fabs(row.ratio_lo - 1.0095 / 1.0005) < 1e-12 &&
              fabs(row.ratio_hi - 1.0105 / 0.9995) < 1e-12, "ratio %g [%g, %g]", row.ratio,
              row.ratio_lo, row.ratio_hi);
    cr_expect_eq(judge(&rb, &ra, 0.005, 0.05, 0.05, &row), SP_CMP_FASTER, "swapped");
    /* the same medians, but A's interval is 3 % wide on each side: the
     * 1 % gap is inside A's noise */
    ra.lo = 0.97, ra.hi = 1.03;
    cr_expect_eq(judge(&ra, &rb, 0.0, 1.0, 0.05, &row), SP_CMP_SAME, "inside A's noise");
    ra.lo = 0.9995, ra.hi = 1.0005, rb.lo = 0.98, rb.hi = 1.04;
    cr_expect_eq(judge(&ra, &rb, 0.0, 1.0, 0.05, &row), SP_CMP_SAME, "inside B's noise");
    /* a 3 % gap wider than each half-width (2 %), yet the intervals
     * [0.98, 1.02] and [1.01, 1.05] overlap: B/A's bounds hold 1, same */
    ra = run_of(a, 20, 1.0, 0.98, 1.02), rb = run_of(b, 20, 1.03, 1.01, 1.05);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.05, &row), SP_CMP_SAME, "overlapping intervals");
    cr_expect(row.ratio_lo < 1 && row.ratio_hi > 1, "[%g, %g]", row.ratio_lo, row.ratio_hi);
    rb.lo = 1.021, rb.hi = 1.05;       /* now they miss each other */
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.05, &row), SP_CMP_SLOWER, "apart");
    /* two samples a side: the smallest two-sided p is 2/6, never below 0.05 */
    rb = run_of(b, 2, 1.1, 1.09, 1.11);
    ra = run_of(a, 2, 1.0, 0.999, 1.001);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.05, &row), SP_CMP_SAME, "p = %g", row.p);
    cr_expect(fabs(row.p - 1.0 / 3) < 1e-12, "p %g", row.p);
}

/* A run whose interval is too wide makes the combination noisy, whatever
 * the gap: on a busy machine the gap is the machine's, not the kernel's. */
Test(compare, noisy_whenever_an_interval_is_too_wide)
{
    double a[20], b[20];
    sp_cmp_row row;
    draw(a, 20, 1.0, 0.3, 3);
    draw(b, 20, 1.0, 0.005, 4);
    sp_cmp_run ra = run_of(a, 20, 1.0, 0.9, 1.12), rb = run_of(b, 20, 1.0, 0.998, 1.002);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.05, &row), SP_CMP_NOISY);
    cr_expect(fabs(row.noise_a - 0.11) < 1e-12, "noise %g", row.noise_a);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.2, &row), SP_CMP_SAME, "threshold 20 %%");
    draw(b, 20, 1.5, 0.005, 4);
    rb = run_of(b, 20, 1.5, 1.497, 1.503);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.05, &row), SP_CMP_NOISY, "50 %% slower");
    cr_expect(row.p < 1e-6, "the test alone would call it: p %g", row.p);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.2, &row), SP_CMP_SLOWER, "threshold 20 %%");
    cr_expect_eq(judge(&rb, &ra, 0.02, 0.05, 0.05, &row), SP_CMP_NOISY, "B noisy");
    /* without a threshold of its own, compare takes run_stats.noisy (each
     * sweep's `noisy` setting): one definition for the views and here */
    ra = run_of(a, 20, 1.0, 0.99, 1.01), rb = run_of(b, 20, 1.5, 1.497, 1.503);
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, -1, &row), SP_CMP_SLOWER);
    ra.noisy = 1;
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, -1, &row), SP_CMP_NOISY, "run_stats says noisy");
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.05, &row), SP_CMP_SLOWER, "a threshold given");
    /* measured on a busy (throttled, slowing) machine: noisy whatever the
     * interval or the threshold; a steady busy machine gives tight
     * intervals that a re-run on a quiet one misses */
    ra = run_of(a, 20, 1.0, 0.99, 1.01), rb = run_of(b, 20, 1.5, 1.497, 1.503);
    rb.unfit = 1;
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, -1, &row), SP_CMP_NOISY, "B busy");
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.5, &row), SP_CMP_NOISY, "B busy, 50 %%");
    /* no interval (too few samples): noisy under any threshold */
    ra = run_of(a, 5, 1.0, 0.99, 1.01);
    ra.from_range = 1;
    cr_expect_eq(judge(&ra, &rb, 0.02, 0.05, 0.5, &row), SP_CMP_NOISY, "no interval");
}

/* ---- two small databases --------------------------------------------------- */

static const sp_kernel k_omp = {.name = "spmv_csr_omp", .operation = "spmv",
                                .format = "csr", .backend = "openmp"};

static int64_t put_sweep(sp_store *st)
{
    sp_sweep_meta m;
    sp_sweep_meta_init(&m);
    m.config_path = "compare-test.ini";
    m.config_text = "[sweep]\nrepetitions = 20\n";
    m.repetitions = 20;
    int64_t id;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_begin_sweep(st, &m, &id, &err), 0, "%s", err.msg);
    return id;
}

static int64_t put_matrix(sp_store *st)
{
    sp_matrix M;
    memset(&M, 0, sizeof M);
    snprintf(M.src.text, sizeof M.src.text, "gen:laplace2d?n=50");
    snprintf(M.src.name, sizeof M.src.name, "laplace2d_n50");
    M.feat = (sp_features){.rows = 2500, .cols = 2500, .nnz = 12300, .size_class = "small"};
    M.checksum = 0x0123456789abcdefull;
    int64_t id;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_matrix(st, sp_matrix_identity(&M), &id, &err), 0, "%s", err.msg);
    return id;
}

/* One run of spmv_csr_omp at this thread count, n samples around median. */
static unsigned put_flags;     /* SP_MACHINE_* bits of the next put_run's round */

static void put_run(sp_store *st, int64_t sweep, int64_t matrix, int threads, int n,
                    double median, double spread, uint64_t seed)
{
    double x[64];
    char axes[32];
    draw(x, n, median, spread, seed);
    snprintf(axes, sizeof axes, "{\"threads\":%d}", threads);
    sp_run_record r = {.sweep_id = sweep, .matrix_id = matrix, .kernel = sp_kernel_identity(&k_omp),
                       .axes_json = axes, .status = SP_RUN_OK, .rel_error = 1e-16, .flops = 2e4,
                       .bytes = 1e5, .warmup = 1, .nsamples = n, .samples = x,
                       .flags = put_flags};
    sp_err err = {{0}};
    cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
}

/* The scenarios, by thread count (the axis keeps them apart). In B:
 *   1  the same distribution (other draws), 1 % spread     -> same
 *   2  1 % slower, 5 % spread (interval wider than 1 %)    -> same
 *   3  10 % slower, 1 % spread                             -> slower
 *   4  10 % faster, 1 % spread                             -> faster
 *   5  A spread 40 % (a wide interval), B 1 %, same median -> noisy
 *   6  1 % slower, 0.1 % spread: the intervals do not overlap, the test
 *      is significant, but 1 % is below the 2 % effect    -> same
 *   7  in A only -> gone;  8  in B only -> new
 *   9  10 % slower, 1 % spread, 5 samples: too few for an interval in
 *      run_stats, so noisy there and here (the exact test's smallest p,
 *      2/252, is below 0.05, but five samples of one prepare cannot
 *      tell a 10 % change from another prepare's)       -> noisy */
static void put_scenarios(sp_store *st, int64_t sweep, int64_t m, int side)
{
    const double t = 1e-3;
    uint64_t s = side ? 1000 : 0;
    put_run(st, sweep, m, 1, 20, t, 0.01, s + 1);
    put_run(st, sweep, m, 2, 20, side ? 1.01 * t : t, 0.05, s + 2);
    put_run(st, sweep, m, 3, 20, side ? 1.10 * t : t, 0.01, s + 3);
    put_run(st, sweep, m, 4, 20, side ? 0.90 * t : t, 0.01, s + 4);
    put_run(st, sweep, m, 5, 20, t, side ? 0.01 : 0.40, s + 5);
    put_run(st, sweep, m, 6, 20, side ? 1.01 * t : t, 0.001, s + 6);
    put_run(st, sweep, m, side ? 8 : 7, 20, t, 0.01, s + 7);
    put_run(st, sweep, m, 9, 5, side ? 1.10 * t : t, 0.01, s + 9);
}

/* Database path with one sweep of side 0 (A) or 1 (B); with both = 1,
 * sweep 1 is A and sweep 2 is B. */
static void build_db(const char *path, int side, int both)
{
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    int64_t m = put_matrix(st);
    for (int s = both ? 0 : side; s <= side; s++) {
        int64_t sw = put_sweep(st);
        put_scenarios(st, sw, m, s);
        cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    }
    sp_store_close(st);
}

static const char *const expected[10] = {NULL, "same", "same", "slower", "faster", "noisy",
                                         "same", "gone", "new", "noisy"};

/* The verdict of threads=T in the CSV output (NULL when absent). */
static const char *csv_verdict(const char *csv, int threads, char *buf, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "\"{\"\"threads\"\":%d}\",", threads);
    const char *line = strstr(csv, key);
    if (!line)
        return NULL;
    const char *end = strstr(line, "\r\n");
    const char *comma = end;
    while (comma > line && comma[-1] != ',')
        comma--;
    snprintf(buf, len, "%.*s", (int)(end - comma), comma);
    return buf;
}

static void paths(char *dir, char *a, char *b, size_t len)
{
    tu_tempdir(dir, 512);
    tu_path(a, len, dir, "a.db");
    tu_path(b, len, dir, "b.db");
    build_db(a, 0, 0);
    build_db(b, 1, 0);
}

Test(compare, cli_verdicts_on_two_databases, .timeout = 60)
{
    char dir[512], a[1024], b[1024], args[2400], v[32];
    paths(dir, a, b, sizeof a);
    char *out;
    snprintf(args, sizeof args, "compare %s %s --csv", a, b);
    cr_assert_eq(tu_run_spsweep(args, &out), 3, "a slower combination: exit 3\n%s", out);
    cr_assert(!strncmp(out, "matrix,source,operation,kernel,axes,a_run_id,", 45), "%s", out);
    for (int t = 1; t <= 9; t++) {
        const char *got = csv_verdict(out, t, v, sizeof v);
        cr_expect(got && !strcmp(got, expected[t]), "threads=%d: %s, expected %s\n%s", t,
                  got ? got : "(missing)", expected[t], out);
    }
    /* scenario 9: run ids, 5 samples, its range (from_range 1) */
    cr_expect(strstr(out, "\"{\"\"threads\"\":9}\",8,5,"), "%s", out);
    cr_expect(strstr(out, ",1,8,5,"), "A's range, then B's run: %s", out);
    free(out);
    /* swapped: slower and faster trade places, new and gone too */
    snprintf(args, sizeof args, "compare %s %s --csv", b, a);
    cr_assert_eq(tu_run_spsweep(args, &out), 3, "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 3, v, sizeof v), "faster"), "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 4, v, sizeof v), "slower"), "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 7, v, sizeof v), "new"), "%s", out);
    free(out);
    /* nothing slower: exit 0; the table and its summary line */
    snprintf(args, sizeof args, "compare %s %s", a, a);
    cr_assert_eq(tu_run_spsweep(args, &out), 0, "%s", out);
    cr_expect(strstr(out, "| matrix ") && strstr(out, "| B/A bounds ") &&
              strstr(out, "8 compared: 0 slower, 0 faster, 2 noisy, 6 same; 0 only in A "
                          "(gone), 0 only in B (new)\n"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "compare %s %s", a, b);
    cr_assert_eq(tu_run_spsweep(args, &out), 3, "%s", out);
    cr_expect(strstr(out, "7 compared: 1 slower, 1 faster, 2 noisy, 3 same; 1 only in A "
                          "(gone), 1 only in B (new)\n"), "%s", out);
    const char *line = strstr(out, "| threads=3 ");
    cr_expect(line && strstr(line, " slower ") && strstr(line, " slower ") < strchr(line, '\n'),
              "%s", out);
    free(out);
}

/* Options move the thresholds: a 1 % effect is called slower for
 * scenario 6 with --min-effect 0.5, and nothing is noisy at 50 %. */
Test(compare, cli_thresholds, .timeout = 60)
{
    char dir[512], a[1024], b[1024], args[2400], v[32];
    paths(dir, a, b, sizeof a);
    char *out;
    snprintf(args, sizeof args, "compare %s %s --csv --min-effect 0.5%% --max-noise 50", a, b);
    cr_assert_eq(tu_run_spsweep(args, &out), 3, "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 6, v, sizeof v), "slower"), "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 5, v, sizeof v), "same"), "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 2, v, sizeof v), "same"), "noise, not the effect: %s",
              out);
    free(out);
    /* alpha so small that no test passes: nothing called, exit 0 */
    snprintf(args, sizeof args, "compare %s %s --csv --alpha 1e-30", a, b);
    cr_assert_eq(tu_run_spsweep(args, &out), 0, "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 3, v, sizeof v), "same"), "%s", out);
    free(out);
}

/* --sweep-a / --sweep-b pick sweeps of one file; defaults: the latest. */
Test(compare, cli_sweep_options_and_errors, .timeout = 60)
{
    char dir[512], db[1024], args[2400], v[32];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "both.db");
    build_db(db, 1, 1);
    char *out;
    snprintf(args, sizeof args, "compare %s %s --csv", db, db);
    cr_assert_eq(tu_run_spsweep(args, &out), 0, "latest against latest: %s", out);
    free(out);
    snprintf(args, sizeof args, "compare %s %s --csv --sweep-a 1", db, db);
    cr_assert_eq(tu_run_spsweep(args, &out), 3, "%s", out);
    cr_expect(!strcmp(csv_verdict(out, 4, v, sizeof v), "faster"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "compare %s %s --sweep-b 9", db, db);
    cr_assert_eq(tu_run_spsweep(args, &out), 1, "%s", out);
    cr_expect(strstr(out, "--sweep-b 9: no such sweep in") && strstr(out, "(sweeps 1-2)"),
              "%s", out);
    free(out);
    /* sweep ids as export's --sweep takes them (tests/test_cli.c) */
    static const char *const bad_id[] = {"1e3", "abc", "2x", "0", "-1", "", " 2",
                                         "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_id / sizeof *bad_id; i++)
        for (int side = 0; side < 2; side++) {
            char want[128];
            snprintf(args, sizeof args, "compare %s %s --sweep-%c '%s'", db, db,
                     side ? 'b' : 'a', bad_id[i]);
            snprintf(want, sizeof want, "--sweep-%c '%s': expected a positive integer",
                     side ? 'b' : 'a', bad_id[i]);
            cr_expect_eq(tu_run_spsweep(args, &out), 1, "%s: %s", args, out);
            cr_expect(strstr(out, want), "%s: %s", args, out);
            free(out);
        }
    static const char *const bad[] = {"--alpha 0", "--alpha 2", "--alpha x",
                                      "--min-effect -1", "--max-noise x", "--max-noise 5%x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, "compare %s %s %s", db, db, bad[i]);
        cr_expect_eq(tu_run_spsweep(args, &out), 1, "%s: %s", bad[i], out);
        cr_expect(strstr(out, "expected a number in"), "%s: %s", bad[i], out);
        free(out);
    }
    snprintf(args, sizeof args, "compare %s", db);
    cr_expect_eq(tu_run_spsweep(args, &out), 1, "one database: %s", out);
    cr_expect(strstr(out, "expected two databases"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "compare %s %s/absent.db", db, dir);
    cr_expect_eq(tu_run_spsweep(args, &out), 1, "%s", out);
    cr_expect(strstr(out, "absent.db: no such database file"), "%s", out);
    free(out);
    cr_expect_eq(tu_run_spsweep("compare --help", &out), 0, "%s", out);
    cr_expect(strstr(out, "exit status: 0 nothing slower, 3 something slower"), "%s", out);
    free(out);
}

Test(compare, databases_are_not_written, .timeout = 60)
{
    char dir[512], a[1024], b[1024], args[2400];
    paths(dir, a, b, sizeof a);
    size_t la, lb, la2, lb2;
    char *before_a = tu_slurp(a, &la), *before_b = tu_slurp(b, &lb), *out;
    snprintf(args, sizeof args, "compare %s %s", a, b);
    cr_assert_eq(tu_run_spsweep(args, &out), 3, "%s", out);
    free(out);
    char *after_a = tu_slurp(a, &la2), *after_b = tu_slurp(b, &lb2);
    cr_expect(la == la2 && !memcmp(before_a, after_a, la), "A changed");
    cr_expect(lb == lb2 && !memcmp(before_b, after_b, lb), "B changed");
    free(before_a), free(before_b), free(after_a), free(after_b);
}

/* The report's change table gives every combination the verdict compare
 * gives it (one definition): scenario 6 was "slower" by the old rule of
 * non-overlapping intervals, scenario 5 "same". */
Test(compare, report_uses_the_same_verdicts, .timeout = 120)
{
    char dir[512], a[1024], b[1024], out[1024], path[1200];
    paths(dir, a, b, sizeof a);
    tu_path(out, sizeof out, dir, "report");
    sp_report_opts o = {.base_db = a};
    sp_err err = {{0}};
    cr_assert_eq(sp_report_run(b, out, &o, &err), 0, "%s", err.msg);
    tu_path(path, sizeof path, out, "compare.tsv");
    size_t n;
    char *tsv = tu_slurp(path, &n);
    for (int t = 1; t <= 9; t++) {
        char want[96];
        snprintf(want, sizeof want, "\n%s\tlaplace2d_n50\tspmv\tspmv_csr_omp\tthreads=%d\t",
                 expected[t], t);
        cr_expect(strstr(tsv, want), "threads=%d should be %s:\n%s", t, expected[t], tsv);
    }
    cr_expect(strstr(tsv, "\tratio\tratio bounds\tp\n"), "%s", tsv);
    free(tsv);
}

/* 10 % slower with 1 % intervals, but B was measured on a busy machine
 * (run_stats.flags): noisy, not slower; the same pair unflagged is slower,
 * and a governor that is not `performance` (informational) changes nothing. */
Test(compare, a_run_on_a_busy_machine_is_noisy, .timeout = 60)
{
    char dir[512], a[1024], b[1024], args[2400], v[32];
    tu_tempdir(dir, sizeof dir);
    tu_path(a, sizeof a, dir, "a.db");
    tu_path(b, sizeof b, dir, "b.db");
    const unsigned flags[] = {0x2u /* busy */, 0x1u /* throttled */, 0x4u /* clock drop */,
                              0x8u /* governor */, 0};
    const char *const want[] = {"noisy", "noisy", "noisy", "slower", "slower"};
    for (int side = 0; side < 2; side++) {
        sp_store *st;
        sp_err err = {{0}};
        cr_assert_eq(sp_store_open(side ? b : a, &st, &err), 0, "%s", err.msg);
        int64_t m = put_matrix(st), sw = put_sweep(st);
        for (int t = 1; t <= 5; t++) {
            put_flags = side ? flags[t - 1] : 0;
            put_run(st, sw, m, t, 20, side ? 1.10e-3 : 1e-3, 0.01, (uint64_t)(10 * side + t));
        }
        put_flags = 0;
        cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
        sp_store_close(st);
    }
    char *out;
    snprintf(args, sizeof args, "compare %s %s --csv", a, b);
    cr_assert_eq(tu_run_spsweep(args, &out), 3, "%s", out);
    for (int t = 1; t <= 5; t++) {
        const char *got = csv_verdict(out, t, v, sizeof v);
        cr_expect(got && !strcmp(got, want[t - 1]), "threads=%d (flags 0x%x): %s, expected "
                  "%s\n%s", t, flags[t - 1], got ? got : "(missing)", want[t - 1], out);
    }
    free(out);
}

/* bench/repeatability.py on the two scenario databases: 7 pairs, of which
 * 3, 4, 6 and 9 do not overlap; compare calls 3, 4 and 9 (here real
 * changes; on a re-run of one config they would be false alarms). */
Test(compare, repeatability_script_on_two_databases, .timeout = 60)
{
    char dir[512], a[1024], b[1024], csv[1100], md[1100], cmd[4800];
    paths(dir, a, b, sizeof a);
    tu_path(csv, sizeof csv, dir, "compare.csv");
    tu_path(md, sizeof md, dir, "repeatability.md");
    snprintf(cmd, sizeof cmd, "compare %s %s --csv > %s", a, b, csv);
    char *out;
    cr_assert_eq(tu_run_spsweep(cmd, &out), 3, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "python3 bench/repeatability.py %s %s --compare %s --md %s 2>&1",
             a, b, csv, md);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, p);
    text[n] = '\0';
    cr_assert_eq(pclose(p), 0, "%s", text);
    cr_expect(strstr(text, "| **all** | 7 | 3 (42.9 %) | "), "%s", text);
    /* run_stats and compare both call the 5-sample run noisy (no interval):
     * one definition, so the non-overlapping pair it makes is no alarm */
    cr_expect(strstr(text, " | 1 of 4 (25 %) | 2 (28.6 %) | 1 of 4 noisy, 1 same |"), "%s",
              text);
    cr_expect(strstr(text, "- 1 combinations had too few samples for an interval: the range "
                           "of their samples stands in for the overlap; they are noisy."),
              "%s", text);
    cr_expect(strstr(text, "- 2 combinations were measured in one run only"), "%s", text);
    size_t len;
    char *file = tu_slurp(md, &len);
    cr_expect(len == n && !memcmp(file, text, n), "the Markdown file holds the printed table");
    free(file);
}
