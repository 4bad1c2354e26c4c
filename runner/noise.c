/*
 * noise.c — how precisely the repetitions so far pin the median down: the
 * half-width of the distribution-free 95 % confidence interval of the
 * median (the same order-statistics interval as the run_stats view, see
 * db/views.sql), relative to the median. Used by `repetitions = auto`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"

/* The rank l (1-based) of the interval [x_(l), x_(n+1-l)]: the largest l
 * with P(B <= l - 1) <= 0.025 for B ~ Binomial(n, 1/2); 0 when even l = 1
 * misses 95 % (n <= 5). The pmf in log space, as the view computes it. */
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

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of s[0..n) (scratch: n doubles, left sorted). */
double sp_median(const double *s, int n, double *scratch)
{
    if (n < 1)
        return NAN;
    memcpy(scratch, s, (size_t)n * sizeof *s);
    qsort(scratch, (size_t)n, sizeof *scratch, cmp_double);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* (x_(n+1-l) - x_(l)) / 2 / median; +Inf when there is no interval. */
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
