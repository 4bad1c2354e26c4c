/*
 * stats.c — the one definition of a run's statistics (stats.h).
 *
 * The median's interval is distribution-free: with B ~ Binomial(n, 1/2),
 * [x_(l), x_(n+1-l)] holds the true median with probability 1 - 2·P(B <=
 * l - 1); l is the largest rank keeping that >= 95 %, found exactly (the
 * pmf by p(k+1) = p(k)·(n-k)/(k+1) in log space). Examples: n = 6 → l = 1
 * (level 0.96875); n = 10 → l = 2 (0.978515625); n = 20 → 6. Timing
 * samples are skewed and dependent within a run, so no normal model.
 *
 * Rounds (`rounds = R`, the plan executed R times in shuffled orders): the
 * samples of one round can agree tightly while a re-run an hour later
 * lands elsewhere (clocks, placement, a neighbour). The round medians are R
 * independent readings of that drift; their t interval is the honest width
 * of "what a re-run sees", and the reported interval is the union of the
 * two, so it is never narrower than the pooled samples alone allow. The t
 * interval is taken on the logarithms of the round medians: drift in time
 * is multiplicative (a clock 5 % lower makes every launch 5 % longer), and
 * on a linear scale three rounds (t = 4.30) that disagree by a factor of 3
 * gave a negative lower end, a time no run can take.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int sp_median_ci_rank(int n)
{
    if (n < 1)
        return 0;
    double lp = n * log(0.5), cdf = exp(lp);
    if (cdf > 0.025)
        return 0;
    int k = 0;
    while (k + 1 < n) {
        double next = lp + log((double)(n - k)) - log((double)(k + 1));
        if (cdf + exp(next) > 0.025)
            break;
        lp = next;
        cdf += exp(next);
        k++;
    }
    return k + 1;
}

/* 1 - 2·P(B <= l - 1): the coverage of the rank-l interval. */
static double ci_level(int n, int l)
{
    double lp = n * log(0.5), cdf = exp(lp);
    for (int k = 0; k + 1 < l; k++) {
        lp += log((double)(n - k)) - log((double)(k + 1));
        cdf += exp(lp);
    }
    return 1.0 - 2.0 * cdf;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of the sorted v[0..n). */
static double sorted_median(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double sp_median(const double *s, int n, double *scratch)
{
    if (n < 1)
        return NAN;
    memcpy(scratch, s, (size_t)n * sizeof *s);
    qsort(scratch, (size_t)n, sizeof *scratch, cmp_double);
    return sorted_median(scratch, n);
}

double sp_median_noise(const double *s, int n, double *scratch)
{
    int l = sp_median_ci_rank(n);
    if (l == 0)
        return INFINITY;
    double med = sp_median(s, n, scratch);
    if (!(med > 0))
        return INFINITY;
    return 0.5 * (scratch[n - l] - scratch[l - 1]) / med;
}

double sp_t975(int df)
{
    /* scipy.stats.t.ppf(0.975, df) to 10 decimals up to 30 degrees of
     * freedom, then the Cornish-Fisher expansion around the normal
     * quantile (relative error 4e-5 at 31, 1e-6 at 100) */
    static const double t[] = {
        NAN,          12.7062047364, 4.3026527299, 3.1824463053, 2.7764451052,
        2.5705818366, 2.4469118488,  2.3646242510, 2.3060041350, 2.2621571627,
        2.2281388520, 2.2009851601,  2.1788128297, 2.1603686565, 2.1447866879,
        2.1314495456, 2.1199052992,  2.1098155778, 2.1009220402, 2.0930240544,
        2.0859634473, 2.0796138447,  2.0738730679, 2.0686576104, 2.0638985616,
        2.0595385528, 2.0555294386,  2.0518305165, 2.0484071418, 2.0452296421,
        2.0422724563};
    if (df < 1)
        return NAN;
    if (df <= 30)
        return t[df];
    const double z = 1.959963984540054, v = df;
    return z + (z * z * z + z) / (4 * v) +
           (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
}

void sp_t_interval95(int n, double mean, double ss, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (n < 2)
        return;
    double half = sp_t975(n - 1) * sqrt(ss / (n - 1)) / sqrt(n);
    *lo = mean - half, *hi = mean + half;
}

/* Mean, min, max, stddev of s[0..n). */
static void moments(const double *s, int n, sp_stats *o)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        sum += s[i];
        lo = s[i] < lo ? s[i] : lo;
        hi = s[i] > hi ? s[i] : hi;
    }
    o->mean = sum / n, o->min = lo, o->max = hi;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (s[i] - o->mean) * (s[i] - o->mean);
    o->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
}

/* MAD and outliers (Iglewicz and Hoaglin's modified z-score > 3.5; with
 * mad = 0 every sample off the median is one). d: n doubles of scratch. */
static void spread(const double *s, int n, double median, double *d, sp_stats *o)
{
    for (int i = 0; i < n; i++)
        d[i] = fabs(s[i] - median);
    qsort(d, (size_t)n, sizeof *d, cmp_double);
    o->mad = sorted_median(d, n);
    o->outliers = 0;
    for (int i = 0; i < n; i++) {
        double dev = fabs(s[i] - median);
        o->outliers += o->mad > 0 ? 0.6745 * dev / o->mad > 3.5 : dev > 0;
    }
}

/* Widen [lo, hi] to the t interval of the medians of each round: v is the
 * sorted samples' copy area (n doubles), used per round. */
static void round_interval(const double *s, const int32_t *round, int n, double *v,
                           sp_stats *o)
{
    int32_t rmax = 0;
    for (int i = 0; i < n; i++)
        rmax = round[i] > rmax ? round[i] : rmax;
    double sum = 0, sum2 = 0;
    int R = 0;
    for (int32_t r = 0; r <= rmax; r++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (round[i] == r)
                v[m++] = s[i];
        if (m == 0)
            continue;
        qsort(v, (size_t)m, sizeof *v, cmp_double);
        double med = log(sorted_median(v, m));
        sum += med, sum2 += med * med, R++;
    }
    o->rounds = R;
    if (R < SP_STATS_MIN_ROUNDS || !isfinite(sum) || !isfinite(sum2))
        return;
    double mean = sum / R, var = (sum2 - R * mean * mean) / (R - 1);
    double half = sp_t975(R - 1) * sqrt(var > 0 ? var : 0) / sqrt(R);
    double lo = exp(mean - half), hi = exp(mean + half);
    if (isnan(o->ci_lo) || lo < o->ci_lo)
        o->ci_lo = lo;
    if (isnan(o->ci_hi) || hi > o->ci_hi)
        o->ci_hi = hi;
    o->ci_level = isnan(o->ci_level) ? 0.95 : o->ci_level;
    o->ci_method = SP_CI_ROUNDS;
}

int sp_stats_compute(const double *s, const int32_t *round, int n, sp_stats *o)
{
    memset(o, 0, sizeof *o);
    o->n = n;
    o->ci_lo = o->ci_hi = o->ci_level = NAN;
    o->median = o->mean = o->min = o->max = o->stddev = o->mad = NAN;
    o->rounds = n > 0;
    if (n < 1)
        return 0;
    double *v = malloc(2 * (size_t)n * sizeof *v);
    if (!v)
        return -1;
    memcpy(v, s, (size_t)n * sizeof *s);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    o->median = sorted_median(v, n);
    moments(s, n, o);
    int l = sp_median_ci_rank(n);
    if (l > 0) {
        o->ci_lo = v[l - 1], o->ci_hi = v[n - l];
        o->ci_level = ci_level(n, l);
        o->ci_method = SP_CI_ORDER;
    }
    spread(s, n, o->median, v + n, o);
    if (round)
        round_interval(s, round, n, v, o);
    free(v);
    return 0;
}
