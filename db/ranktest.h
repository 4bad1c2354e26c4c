/*
 * ranktest.h — the two-sided Mann–Whitney U (Wilcoxon rank-sum) test of
 * two independent samples (db/ranktest.c). Pure C, no I/O: `spsweep
 * compare` and the report's change table run it on two runs' samples.
 */
#ifndef SP_RANKTEST_H
#define SP_RANKTEST_H

#ifdef __cplusplus
extern "C" {
#endif

/* Both sides at most this long and no tied value: the exact null
 * distribution (C(40, 20) ~ 1.4e11 arrangements still count exactly in a
 * double); otherwise the normal approximation. */
#define SP_MWU_EXACT_MAX 20

typedef enum { SP_MWU_EXACT, SP_MWU_NORMAL } sp_mwu_method;

typedef struct sp_mwu {
    double u;               /* U of the first sample: pairs (a, b) with a > b, ties 1/2 */
    double p;               /* two-sided p-value, in [0, 1] */
    sp_mwu_method method;
    int ties;               /* 1 when a value occurs more than once in the pooled samples */
} sp_mwu;

/* Test a[0..na) against b[0..nb) (na, nb >= 1, finite values). The same
 * statistic and p-value as scipy.stats.mannwhitneyu(a, b,
 * alternative='two-sided') with method='exact' where the exact method is
 * used and method='asymptotic' (use_continuity=True) otherwise. -1 on bad
 * input (empty side, NaN or infinity) or when out of memory. */
int sp_mann_whitney(const double *a, int na, const double *b, int nb, sp_mwu *out);

/* "exact" or "normal". */
const char *sp_mwu_method_name(sp_mwu_method m);

#ifdef __cplusplus
}
#endif
#endif
