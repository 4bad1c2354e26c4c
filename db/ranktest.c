/*
 * ranktest.c — the two-sided Mann–Whitney U test (ranktest.h).
 *
 * The samples are pooled and ranked, tied values sharing the mean of
 * their ranks (midranks); U1 = R1 - na(na + 1)/2 from the rank sum R1 of
 * the first sample, U2 = na·nb - U1, U = max(U1, U2). Then:
 *   exact   (na, nb <= SP_MWU_EXACT_MAX and no ties) p = 2·P(U' >= U)
 *           under the null, P from the number of arrangements of na a's
 *           and nb b's with each U value, counted by dynamic programming
 *           over ranks: f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u) (the
 *           largest of m + n values is an a, above all n b's, or a b);
 *   normal  otherwise (ties, or a side longer than SP_MWU_EXACT_MAX):
 *           z = (U - na·nb/2 - 1/2) / s with the continuity correction 1/2
 *           and the tie-corrected s² = na·nb/12 · ((n + 1) - Σ(t³ - t) /
 *           (n(n - 1))), t the size of each group of tied values;
 *           p = 2·(1 - Φ(z)). When every value is tied (s = 0), p = 1.
 * p is clipped to 1, as U = na·nb/2 gives 2·P >= 1. This is scipy's
 * mannwhitneyu (two-sided; method 'exact' / 'asymptotic'), checked against
 * it to 1e-9 in tests/test_compare.c. Timings tie where the clock's
 * resolution is coarse (CUDA events: 0.5 µs), so ties are the normal case
 * for short kernels and the exact method, which assumes none, is not used
 * for them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ranktest.h"

typedef struct pooled {
    double x;
    int first;                  /* 1: from the first sample */
} pooled;

static int by_value(const void *pa, const void *pb)
{
    const pooled *a = pa, *b = pb;
    return (a->x > b->x) - (a->x < b->x);
}

/* Rank sum of the first sample (midranks) over the sorted pool, and
 * Σ(t³ - t) over groups of tied values. */
static double rank_sum(const pooled *v, int n, double *tie_term)
{
    double r1 = 0;
    *tie_term = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && v[j + 1].x == v[i].x)
            j++;
        double t = j - i + 1, mid = (i + j) / 2.0 + 1;   /* ranks i+1 .. j+1 */
        for (int k = i; k <= j; k++)
            r1 += v[k].first ? mid : 0;
        *tie_term += t * t * t - t;
        i = j + 1;
    }
    return r1;
}

/* P(U' >= u) for U' of na a's and nb b's under the null, exactly: f is
 * (na + 1) rows of (na·nb + 1) counts, f[m][u] = f(m, n, u) for the n of
 * the current step (in place: row m-1 is already at n, row m still at
 * n - 1 when it is read). -1 when out of memory. */
static double exact_sf(int na, int nb, double u, int *fail)
{
    int cells = na * nb + 1;
    double *f = calloc((size_t)(na + 1) * (size_t)cells, sizeof *f);
    if (!f) {
        *fail = 1;
        return 1;
    }
    for (int m = 0; m <= na; m++)
        f[(size_t)m * cells] = 1;           /* f(m, 0, 0) = 1 */
    for (int n = 1; n <= nb; n++)
        for (int m = 1; m <= na; m++)
            for (int k = m * n; k >= n; k--)    /* f(m, n, k) = 0 beyond m·n */
                f[(size_t)m * cells + k] += f[(size_t)(m - 1) * cells + k - n];
    double total = 0, tail = 0;
    for (int k = 0; k < cells; k++) {
        total += f[(size_t)na * cells + k];
        tail += k >= u ? f[(size_t)na * cells + k] : 0;
    }
    free(f);
    return tail / total;
}

/* 2·(1 - Φ(z)) for the tie- and continuity-corrected normal z. */
static double normal_p(int na, int nb, double u, double tie_term)
{
    double n = (double)na + nb;
    double s2 = (double)na * nb / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
    if (!(s2 > 0))
        return 1;
    double z = (u - (double)na * nb / 2.0 - 0.5) / sqrt(s2);
    return erfc(z / sqrt(2.0));
}

int sp_mann_whitney(const double *a, int na, const double *b, int nb, sp_mwu *out)
{
    if (!a || !b || !out || na < 1 || nb < 1)
        return -1;
    int n = na + nb;
    pooled *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    for (int i = 0; i < n; i++) {
        v[i].x = i < na ? a[i] : b[i - na];
        v[i].first = i < na;
        if (!isfinite(v[i].x)) {
            free(v);
            return -1;
        }
    }
    qsort(v, (size_t)n, sizeof *v, by_value);
    double tie_term;
    double u1 = rank_sum(v, n, &tie_term) - (double)na * (na + 1) / 2.0;
    free(v);
    double u = fmax(u1, (double)na * nb - u1);
    int fail = 0;
    memset(out, 0, sizeof *out);
    out->u = u1;
    out->ties = tie_term > 0;
    if (!out->ties && na <= SP_MWU_EXACT_MAX && nb <= SP_MWU_EXACT_MAX) {
        out->method = SP_MWU_EXACT;
        out->p = 2 * exact_sf(na, nb, u, &fail);
    } else {
        out->method = SP_MWU_NORMAL;
        out->p = normal_p(na, nb, u, tie_term);
    }
    out->p = fmin(out->p, 1.0);
    return fail ? -1 : 0;
}

const char *sp_mwu_method_name(sp_mwu_method m)
{
    return m == SP_MWU_EXACT ? "exact" : "normal";
}
