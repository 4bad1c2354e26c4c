/*
 * stats.h — the statistics of a run's samples, defined once (db/stats.c):
 * the runner stops `repetitions = auto` on them, the store writes them into
 * the run's row when it stores or extends a run, and the views only read
 * those columns. tests/test_stats.c checks them against scipy.
 */
#ifndef SP_STATS_H
#define SP_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Interval methods (runs.ci_method). */
#define SP_CI_ORDER "order"     /* order statistics of all samples */
#define SP_CI_ROUNDS "rounds"   /* that, widened to cover the spread between rounds */

/* Fewest rounds whose medians widen the interval (two give no spread worth
 * a t quantile: t(0.975, 1) = 12.7). */
#define SP_STATS_MIN_ROUNDS 3

typedef struct sp_stats {
    int n;                  /* samples */
    double median, mean, min, max;
    double stddev;          /* divisor n - 1; 0 for n = 1 */
    double ci_lo, ci_hi;    /* 95 % interval of the median; NaN when none */
    double ci_level;        /* its coverage (>= 0.95); NaN when none */
    const char *ci_method;  /* SP_CI_ORDER or SP_CI_ROUNDS; NULL when none */
    double mad;             /* median absolute deviation from the median */
    int outliers;           /* modified z-score 0.6745·|x - median| / mad > 3.5 */
    int rounds;             /* distinct rounds among the samples */
} sp_stats;

/* The rank l (1-based) of the distribution-free interval [x_(l),
 * x_(n+1-l)] of the median: the largest l with P(B <= l - 1) <= 0.025 for
 * B ~ Binomial(n, 1/2); 0 when even l = 1 misses 95 % (n <= 5). */
int sp_median_ci_rank(int n);
/* The median of s[0..n) (scratch: n doubles, left sorted); NaN for n = 0. */
double sp_median(const double *s, int n, double *scratch);
/* The order-statistics interval's half-width relative to the median:
 * (x_(n+1-l) - x_(l)) / 2 / median; +Inf when there is none. What
 * `repetitions = auto` stops on. */
double sp_median_noise(const double *s, int n, double *scratch);
/* Two-sided 97.5 % quantile of Student's t with df degrees of freedom. */
double sp_t975(int df);

/* The 95 % Student-t interval of the mean of n independent readings,
 * mean ± t(0.975, n-1)·sd/sqrt(n), sd = sqrt(ss / (n - 1)) from ss, the
 * sum of their squared deviations from the mean (the store sums them in
 * SQL over a run's energy windows). NaN ends when n < 2. */
void sp_t_interval95(int n, double mean, double ss, double *lo, double *hi);
/* Everything above of s[0..n), the samples of one run; round[i] is the
 * round sample i was taken in (NULL: all in one round). With
 * SP_STATS_MIN_ROUNDS or more rounds the interval is the union of the
 * order-statistics interval of all samples and the t interval of the
 * round medians (mean ± t(0.975, R-1)·sd/sqrt(R)): drift between rounds,
 * which samples of one round cannot see, widens it. -1 when out of memory. */
int sp_stats_compute(const double *s, const int32_t *round, int n, sp_stats *out);

#ifdef __cplusplus
}
#endif
#endif
