/*
 * test_stats.c — db/stats.c, the one definition of a run's statistics,
 * against an independent implementation: the expected values below were
 * computed with numpy 1.24 / scipy 1.10 (Debian's python3-scipy) by
 *   med = np.median(x); mad = scipy.stats.median_abs_deviation(x, scale=1.0)
 *   sd = np.std(x, ddof=1); l = largest l with scipy.stats.binom.cdf(l-1, n, .5) <= .025
 *   ci = (sorted(x)[l-1], sorted(x)[n-l]), level = 1 - 2 * binom.cdf(l-1, n, .5)
 *   t975 = scipy.stats.t.ppf(0.975, df)
 * (the script is in the comment of each case).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../db/stats.h"

#define REL(a, b, tol) (fabs((a) - (b)) <= (tol) * fabs(b))

/* rng = np.random.default_rng(7); np.round(1e-3 * (1 + rng.lognormal(0, 0.3, 40)), 9) */
static const double skewed40[40] = {
    0.002000369, 0.002093763, 0.00192105,  0.001765537, 0.001872492, 0.001742677,
    0.002018207, 0.002494908, 0.001862723, 0.001830155, 0.002158299, 0.002113008,
    0.00203213,  0.001756434, 0.001991263, 0.002231941, 0.001668135, 0.001871722,
    0.001565318, 0.001679185, 0.001575497, 0.001931902, 0.001683701, 0.002084782,
    0.002048149, 0.001945464, 0.001469997, 0.001850775, 0.001985555, 0.002034577,
    0.00163189,  0.001866472, 0.001745608, 0.001784545, 0.002374747, 0.001784852,
    0.001990291, 0.002303844, 0.00183939,  0.001967045};

Test(stats, skewed_samples_match_scipy)
{
    sp_stats x;
    cr_assert_eq(sp_stats_compute(skewed40, NULL, 40, &x), 0);
    cr_assert_eq(x.n, 40);
    cr_assert(REL(x.median, 0.001896771, 1e-12), "median %.17g", x.median);
    cr_assert(REL(x.mean, 0.0019142099750000003, 1e-12), "mean %.17g", x.mean);
    cr_assert(REL(x.stddev, 0.00022037171985481394, 1e-12), "sd %.17g", x.stddev);
    cr_assert(REL(x.mad, 0.00013658250000000006, 1e-12), "mad %.17g", x.mad);
    /* l = 14: ranks 14 and 27 */
    cr_assert(REL(x.ci_lo, 0.001830155, 1e-15) && REL(x.ci_hi, 0.001991263, 1e-15),
              "[%.17g, %.17g]", x.ci_lo, x.ci_hi);
    cr_assert(REL(x.ci_level, 0.9615226917157997, 1e-12), "level %.17g", x.ci_level);
    cr_assert_str_eq(x.ci_method, SP_CI_ORDER);
    cr_assert_eq(x.outliers, 0);
    cr_assert_eq(sp_median_ci_rank(40), 14);
}

/* x = [10, 9, ..., 1]: median 5.5, mad 2.5, sd 3.0276503540974917, ranks 2 and 9 */
Test(stats, ten_descending)
{
    double s[10];
    for (int i = 0; i < 10; i++)
        s[i] = 10 - i;
    sp_stats x;
    cr_assert_eq(sp_stats_compute(s, NULL, 10, &x), 0);
    cr_assert_float_eq(x.median, 5.5, 0);
    cr_assert_float_eq(x.mad, 2.5, 0);
    cr_assert(REL(x.stddev, 3.0276503540974917, 1e-14));
    cr_assert_float_eq(x.ci_lo, 2.0, 0);
    cr_assert_float_eq(x.ci_hi, 9.0, 0);
    cr_assert_float_eq(x.ci_level, 0.978515625, 1e-15);
    double scratch[10];
    cr_assert_float_eq(sp_median_noise(s, 10, scratch), 3.5 / 5.5, 1e-15);
}

/* x = [2, 2, 2, 2, 3, 2, 2, 9, 2, 2, 1]: mad 0, so every sample off the
 * median is an outlier (3); ranks 2 and 10 -> [2, 3], level 0.98828125 */
Test(stats, ties_and_zero_mad)
{
    const double s[11] = {2, 2, 2, 2, 3, 2, 2, 9, 2, 2, 1};
    sp_stats x;
    cr_assert_eq(sp_stats_compute(s, NULL, 11, &x), 0);
    cr_assert_float_eq(x.median, 2.0, 0);
    cr_assert_float_eq(x.mad, 0.0, 0);
    cr_assert_eq(x.outliers, 3);
    cr_assert(REL(x.stddev, 2.1574395598823743, 1e-14));
    cr_assert_float_eq(x.ci_lo, 2.0, 0);
    cr_assert_float_eq(x.ci_hi, 3.0, 0);
    cr_assert_float_eq(x.ci_level, 0.98828125, 1e-15);
}

/* Five samples or fewer have no 95 % interval; one sample has stddev 0. */
Test(stats, too_few_samples_have_no_interval)
{
    const double s[5] = {1, 2, 3, 4, 5};
    sp_stats x;
    cr_assert_eq(sp_stats_compute(s, NULL, 5, &x), 0);
    cr_assert(isnan(x.ci_lo) && isnan(x.ci_hi) && isnan(x.ci_level));
    cr_assert_null(x.ci_method);
    cr_assert_eq(sp_stats_compute(s, NULL, 1, &x), 0);
    cr_assert_float_eq(x.stddev, 0.0, 0);
    cr_assert_float_eq(x.median, 1.0, 0);
    cr_assert_eq(sp_stats_compute(s, NULL, 0, &x), 0);
    cr_assert(isnan(x.median));
}

/* scipy.stats.t.ppf(0.975, df) */
Test(stats, student_t_quantile)
{
    static const int df[] = {1, 2, 3, 5, 10, 30, 31, 50, 100, 1000};
    static const double want[] = {12.706204736432095, 4.302652729911275, 3.182446305284263,
                                  2.5705818366147395, 2.2281388519649385, 2.0422724563012373,
                                  2.0395134463964077, 2.008559109715206, 1.9839715184496334,
                                  1.9623390808264074};
    for (int i = 0; i < 10; i++)
        cr_assert(REL(sp_t975(df[i]), want[i], 5e-5), "df %d: %.12g, scipy %.12g", df[i],
                  sp_t975(df[i]), want[i]);
    cr_assert(isnan(sp_t975(0)));
}

/* Three rounds of ten whose medians drift (1.00, 1.05, 0.97): the pooled
 * order interval [0.9894, 1.0395] (ranks 10 and 21 of 30) misses the drift;
 * the round medians' t interval, on their logarithms, is
 *   l = log(meds); m = mean(l); h = t.ppf(.975, 2) * np.std(l, ddof=1) / sqrt(3)
 *   -> exp([m - h, m + h]) = [0.911014263851211, 1.1111742758185092]
 * and the reported interval is the union of the two. */
Test(stats, rounds_widen_the_interval_by_their_drift)
{
    static const double r0[10] = {1.00, 1.01, 0.99, 1.02, 1.00, 1.01, 0.99, 1.00, 1.01, 1.00};
    double s[30];
    int32_t round[30];
    for (int i = 0; i < 10; i++) {
        s[i] = r0[i], round[i] = 0;
        s[10 + i] = r0[i] * 1.05, round[10 + i] = 1;
        s[20 + i] = r0[i] * 0.97, round[20 + i] = 2;
    }
    sp_stats one, three;
    cr_assert_eq(sp_stats_compute(s, NULL, 30, &one), 0);
    cr_assert(REL(one.ci_lo, 0.9894, 1e-12) && REL(one.ci_hi, 1.0395, 1e-12), "[%.17g, %.17g]",
              one.ci_lo, one.ci_hi);
    cr_assert_eq(sp_stats_compute(s, round, 30, &three), 0);
    cr_assert_eq(three.rounds, 3);
    cr_assert_str_eq(three.ci_method, SP_CI_ROUNDS);
    cr_assert(REL(three.ci_lo, 0.911014263851211, 1e-9) &&
                  REL(three.ci_hi, 1.1111742758185092, 1e-9),
              "[%.17g, %.17g]", three.ci_lo, three.ci_hi);
    cr_assert_float_eq(three.median, one.median, 0, "the median is the pooled one");
    /* two rounds are not enough to widen it */
    sp_stats two;
    cr_assert_eq(sp_stats_compute(s, round, 20, &two), 0);
    cr_assert_eq(two.rounds, 2);
    cr_assert_str_eq(two.ci_method, SP_CI_ORDER);
}

/* Rounds that agree leave the order interval as it is (the union with a
 * narrower t interval changes nothing). */
Test(stats, rounds_that_agree_change_nothing)
{
    double s[30];
    int32_t round[30];
    for (int i = 0; i < 30; i++)
        s[i] = 1.0 + 0.01 * (i % 10), round[i] = i / 10;
    sp_stats a, b;
    cr_assert_eq(sp_stats_compute(s, NULL, 30, &a), 0);
    cr_assert_eq(sp_stats_compute(s, round, 30, &b), 0);
    cr_assert_float_eq(a.ci_lo, b.ci_lo, 0);
    cr_assert_float_eq(a.ci_hi, b.ci_hi, 0);
}

/* x = np.array([...]); st.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=st.sem(x)) */
static void t_interval_of(const double *x, int n, double *lo, double *hi)
{
    double mean = 0, ss = 0;
    for (int i = 0; i < n; i++)
        mean += x[i] / n;
    for (int i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    sp_t_interval95(n, mean, ss, lo, hi);
}

Test(stats, mean_interval_matches_scipy)
{
    static const double five[] = {0.155, 0.162, 0.149, 0.171, 0.158}, two[] = {2.0, 4.0};
    double lo, hi;
    t_interval_of(five, 5, &lo, &hi);
    cr_assert(REL(lo, 0.14879868929012613, 1e-9) && REL(hi, 0.16920131070987388, 1e-9),
              "[%.17g, %.17g]", lo, hi);
    t_interval_of(two, 2, &lo, &hi);
    cr_assert(REL(lo, -9.706204736432095, 1e-9) && REL(hi, 15.706204736432095, 1e-9),
              "[%.17g, %.17g]", lo, hi);
    t_interval_of(two, 1, &lo, &hi);
    cr_assert(isnan(lo) && isnan(hi), "one reading: no interval");
    t_interval_of(two, 0, &lo, &hi);
    cr_assert(isnan(lo) && isnan(hi));
}

/* Three rounds that disagree by a factor of 15 (medians ~1, 3, 0.2): on a
 * linear scale their t interval would start at -2.18 s; on the logarithms
 * it is [0.0286, 24.86], positive, and contains every round's median. */
Test(stats, round_interval_never_goes_below_zero)
{
    double s[30];
    int32_t round[30];
    static const double med[3] = {1.0, 3.0, 0.2};
    for (int i = 0; i < 30; i++)
        s[i] = med[i / 10] * (1 + 0.001 * (i % 10)), round[i] = i / 10;
    sp_stats st;
    cr_assert_eq(sp_stats_compute(s, round, 30, &st), 0);
    cr_assert_str_eq(st.ci_method, SP_CI_ROUNDS);
    cr_assert_gt(st.ci_lo, 0, "[%.17g, %.17g]", st.ci_lo, st.ci_hi);
    cr_assert(st.ci_lo < 0.2 && st.ci_hi > 3.0, "[%.17g, %.17g]", st.ci_lo, st.ci_hi);
    /* each round's median is its value x 1.0045 (samples x 1.000..1.009) */
    cr_assert(REL(st.ci_lo, 0.028617167605274038 * 1.0045, 1e-9) &&
                  REL(st.ci_hi, 24.85845806651069 * 1.0045, 1e-9),
              "[%.17g, %.17g]", st.ci_lo, st.ci_hi);
}
