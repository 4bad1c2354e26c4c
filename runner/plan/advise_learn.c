/*
 * advise_learn.c — which features the distance uses, learnt from the
 * stored sweeps: backward elimination from all fourteen, dropping the
 * feature whose absence lowers the leave-one-matrix-out regret most, while
 * that does not raise it. Why: a feature that does not tell the winners apart (on one
 * machine, for one set of kernels) only adds noise to the distance; which
 * ones those are depends on the machine and the kernels, so it is measured,
 * not fixed. --evaluate repeats the learning inside each fold (the matrix
 * judged is left out of it too), so its numbers are not flattered by it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"

/* Mean log(best / chosen) over the cases not skipped, each advised on
 * from the others (its own matrix left out too) with features `use`;
 * always advising (no distance limit). A choice that never ran counts as
 * SP_ADV_MISSING_REL of the best. */
static int loo_regret(const sp_adv_set *set, const unsigned char *skip, unsigned use,
                      const sp_adv_opts *o, double *out, sp_err *err)
{
    unsigned char *inner = malloc((size_t)set->ncases + 1);
    if (!inner)
        return sp_fail(err, "advise: out of memory learning the features");
    sp_adv_opts any = *o;
    any.max_distance = INFINITY;
    double sum = 0;
    int n = 0;
    for (int c = 0; c < set->ncases; c++) {
        if (skip && skip[c])
            continue;
        for (int i = 0; i < set->ncases; i++)
            inner[i] = (skip && skip[i]) ||
                       !strcmp(set->cases[i].checksum, set->cases[c].checksum);
        sp_advice adv;
        if (sp_adv_predict_skip(set, set->cases[c].f, inner, use, &any, &adv, err)) {
            free(inner);
            return -1;
        }
        if (adv.nchoices) {
            const sp_adv_rate *r = sp_adv_rate_of(set, c, adv.choices[0].config);
            double rel = r && r->rel > SP_ADV_MISSING_REL ? r->rel : SP_ADV_MISSING_REL;
            sum -= log(rel);
            n++;
        }
        sp_advice_free(&adv);
    }
    free(inner);
    *out = n ? sum / n : 0;
    return 0;
}

static int popcount(unsigned x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

int sp_adv_learn_features(const sp_adv_set *set, const unsigned char *skip,
                          const sp_adv_opts *o, unsigned *use, sp_err *err)
{
    unsigned cur = SP_ADV_ALL;
    double best;
    *use = cur;
    if (loo_regret(set, skip, cur, o, &best, err))
        return -1;
    while (popcount(cur) > SP_ADV_MIN_FEATURES) {
        int drop = -1;
        double low = INFINITY;
        for (int j = 0; j < SP_ADV_NFEAT; j++) {
            double r;
            if (!(cur >> j & 1))
                continue;
            if (loo_regret(set, skip, cur & ~(1u << j), o, &r, err))
                return -1;
            if (r < low - 1e-12)
                low = r, drop = j;
        }
        /* a tie drops it too: of two distances as good, the one over fewer
         * features (noise that happens not to hurt the learning set hurts
         * the next matrix) */
        if (drop < 0 || low > best + 1e-12)
            break;
        cur &= ~(1u << drop);
        best = low;
    }
    *use = cur;
    return 0;
}
