/*
 * advise_eval.c — `spsweep advise --evaluate`: leave-one-matrix-out over
 * the stored sweeps. Each measured matrix in turn is advised on from all
 * the others (its own runs, in every sweep and database, left out: the
 * same checksum), and the configuration advised is looked up in what was
 * measured on it. Three baselines are judged the same way: the safest
 * configuration (the best geomean over the others, what stands in for the
 * advice where nothing close is known), always the configuration that is
 * best most often (over the others), and always the vendor library (its
 * fastest run on the matrix: the strongest form of it).
 *
 * Judged: "within" = the choice's run is advise_rates.near_best (within
 * 10 % of the measured best, or its interval reaches the best's); regret =
 * the geomean of best rate / the choice's rate; a choice that never ran on
 * the matrix (failed, refused, or not in that sweep) counts as not within
 * and is left out of the regret (counted in `unmeasured`).
 *
 * Held out (sp_adv_opts.test_db): only the matrices of the held-out
 * databases are judged, each advised from the others alone: the feature
 * selection, the neighbours, the safest and the most often best learnt
 * without any held-out run (and without the judged matrix's own runs where
 * it was also swept in a database learnt from). That tests rules chosen
 * on one sweep against one they were not chosen on.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"

static void method_init(sp_adv_method *m, const char *name)
{
    memset(m, 0, sizeof *m);
    m->name = name;
    m->worst = 1;
}

/* Count choice r (NULL: never ran) on case c; regret sums logs until done. */
static void judge(sp_adv_method *m, const sp_adv_case *c, const sp_adv_rate *r)
{
    m->cases++;
    if (!r) {
        m->unmeasured++;
        return;
    }
    m->within += r->near_best;
    double ratio = c->best_rate / r->rate;
    m->regret += log(ratio);
    m->worst = ratio > m->worst ? ratio : m->worst;
}

static void method_done(sp_adv_method *m)
{
    int n = m->cases - m->unmeasured;
    m->regret = n > 0 ? exp(m->regret / n) : NAN;
}

/* The cases not learnt from when case c is judged (-1: none judged): its
 * matrix, every case of the same checksum, and, held out, every case of a
 * held-out database. calloc'd; NULL out of memory. */
static unsigned char *fold_skip(const sp_adv_set *set, const sp_adv_opts *o, int c)
{
    unsigned char *skip = sp_adv_skip_matrix(set, c >= 0 ? set->cases[c].checksum : NULL);
    if (skip && o->test_db > 0)
        for (int d = 0; d < set->ncases; d++)
            skip[d] |= set->cases[d].db >= o->test_db;
    return skip;
}

/* A choice's share of the best as table text, or what stands for none. */
static void share(const sp_adv_rate *r, const char *none, char *buf, size_t len)
{
    if (r)
        snprintf(buf, len, "%.3f", r->rel);
    else
        snprintf(buf, len, "%s", none);
}

int sp_adv_evaluate(const sp_adv_set *set, const sp_adv_opts *o, sp_adv_eval *ev,
                    FILE *per_matrix, sp_err *err)
{
    memset(ev, 0, sizeof *ev);
    method_init(&ev->advised, "advised");
    method_init(&ev->safest, "safest");
    method_init(&ev->most_often, "most often best");
    method_init(&ev->vendor, "vendor library");
    unsigned char *learnt = fold_skip(set, o, -1);
    if (!learnt)
        return sp_fail(err, "advise: out of memory evaluating");
    int all = sp_adv_most_often_best(set, learnt);
    if (o->test_db > 0) {
        ev->learnt_from = sp_adv_distinct_matrices(set, learnt);
        for (int c = 0; c < set->ncases; c++)   /* now the learnt-from cases skipped */
            learnt[c] = !learnt[c];
        ev->held_out = sp_adv_distinct_matrices(set, learnt);
    }
    free(learnt);
    if (o->test_db > 0 && !ev->learnt_from)
        return sp_fail(err, "advise: the databases to learn from (before the held-out ones) "
                            "hold no measured matrix of %s on the %s (%s precision)",
                       set->operation, set->device, set->precision);
    if (all >= 0)
        snprintf(ev->most_often_config, sizeof ev->most_often_config, "%s %s",
                 set->kernel[all], set->axes[all]);
    if (per_matrix)
        fprintf(per_matrix, "| matrix | best measured | advised | advised / best | safest "
                            "/ best | most often best / best | vendor / best | nearest d |\n"
                            "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int c = 0; c < set->ncases; c++) {
        const sp_adv_case *x = &set->cases[c];
        if (o->test_db > 0 && x->db < o->test_db)
            continue;           /* held out: only the held-out matrices are judged */
        sp_advice adv;
        unsigned char *skip = fold_skip(set, o, c);
        unsigned use = SP_ADV_ALL;
        if (!skip)
            return sp_fail(err, "advise: out of memory evaluating");
        if ((!o->all_features && sp_adv_learn_features(set, skip, o, &use, err)) ||
            sp_adv_predict_skip(set, x->f, skip, use, o, &adv, err)) {
            free(skip);
            return -1;
        }
        int mob = sp_adv_most_often_best(set, skip);
        free(skip);
        for (int j = 0; j < SP_ADV_NFEAT; j++)
            ev->kept[j] += use >> j & 1;
        int safe = adv.safest.config;
        int cfg = adv.close ? adv.choices[0].config : safe;
        ev->not_close += !adv.close;
        const sp_adv_rate *a = cfg >= 0 ? sp_adv_rate_of(set, c, cfg) : NULL;
        const sp_adv_rate *sf = safe >= 0 ? sp_adv_rate_of(set, c, safe) : NULL;
        const sp_adv_rate *m = mob >= 0 ? sp_adv_rate_of(set, c, mob) : NULL;
        judge(&ev->advised, x, a);
        judge(&ev->safest, x, sf);
        judge(&ev->most_often, x, m);
        if (x->vendor_at >= 0)
            judge(&ev->vendor, x, &set->rates[x->vendor_at]);
        ev->matrices++;
        if (per_matrix) {
            const sp_adv_rate *v = x->vendor_at >= 0 ? &set->rates[x->vendor_at] : NULL;
            char ra[32], rs[32], rm[32], rv[32];
            share(a, "not run", ra, sizeof ra);
            share(sf, "not run", rs, sizeof rs);
            share(m, "not run", rm, sizeof rm);
            share(v, "none", rv, sizeof rv);
            fprintf(per_matrix, "| %s | %s %s | %s %s%s | %s | %s | %s | %s | %.2f |\n", x->name,
                    set->kernel[set->rates[x->first].config],
                    set->axes[set->rates[x->first].config], cfg >= 0 ? set->kernel[cfg] : "-",
                    cfg >= 0 ? set->axes[cfg] : "", adv.close ? "" : " (nothing close: the "
                    "safest)", ra, rs, rm, rv, adv.nnb ? adv.nearest : NAN);
        }
        sp_advice_free(&adv);
    }
    if (o->test_db > 0 && !ev->matrices)
        return sp_fail(err, "advise: the held-out databases hold no measured matrix of %s on "
                            "the %s (%s precision)", set->operation, set->device,
                       set->precision);
    method_done(&ev->advised);
    method_done(&ev->safest);
    method_done(&ev->most_often);
    method_done(&ev->vendor);
    return 0;
}

static void method_row(const sp_adv_method *m, const char *label, FILE *out)
{
    if (!m->cases) {
        fprintf(out, "| %s | 0 | - | - | - | - |\n", label);
        return;
    }
    fprintf(out, "| %s | %d | %d (%.0f %%) | %.3f | %.2f | %d |\n", label, m->cases, m->within,
            100.0 * m->within / m->cases, m->regret, m->worst, m->unmeasured);
}

void sp_adv_eval_print(const sp_adv_set *set, const sp_adv_opts *o, const sp_adv_eval *ev,
                       FILE *out)
{
    if (o->test_db > 0) {
        fprintf(out, "held out: the %d measured matrices of the held-out databases judged",
                ev->held_out);
        if (ev->held_out != ev->matrices)
            fprintf(out, " (%d sweeps of them)", ev->matrices);
        fprintf(out, ", each advised from the %d of the databases learnt from alone (a "
                     "matrix swept in both without its own runs)", ev->learnt_from);
    } else {
        int distinct = sp_adv_distinct_matrices(set, NULL);
        fprintf(out, "leave-one-matrix-out over %d measured matrices", distinct);
        if (distinct != ev->matrices)
            fprintf(out, " (%d sweeps of them, each judged with every sweep of its matrix "
                         "left out)", ev->matrices);
    }
    fprintf(out, ", %d configurations (%s on the %s, %s precision, rates in %s); k = %d, "
                 "nothing close beyond %.2f\n\n", set->nconfigs, set->operation, set->device,
            set->precision, set->rate_unit[0] ? set->rate_unit : "-", o->k, o->max_distance);
    fprintf(out, "| choice | judged | within 10 %% of the best or the noise | regret "
                 "(geomean best / chosen) | worst | never ran |\n"
                 "| --- | ---: | ---: | ---: | ---: | ---: |\n");
    char label[400];
    snprintf(label, sizeof label, "advised (kNN)%s",
             ev->not_close ? " ¹" : "");
    method_row(&ev->advised, label, out);
    method_row(&ev->safest, "the safest over the others (the best on its worst tenth of them)", out);
    snprintf(label, sizeof label, "always the most often best (%s)",
             ev->most_often_config[0] ? ev->most_often_config : "none");
    method_row(&ev->most_often, label, out);
    method_row(&ev->vendor, "always the vendor library (its best run)", out);
    fprintf(out, "\nfeatures the distance used (%s), in how many of the %d folds: ",
            o->all_features ? "all, --all-features"
            : o->test_db > 0 ? "learnt in each fold without the held-out databases"
                             : "learnt in each fold, the matrix judged left out",
            ev->matrices);
    for (int j = 0, first = 1; j < SP_ADV_NFEAT; j++)
        if (ev->kept[j]) {
            fprintf(out, "%s%s %d", first ? "" : ", ", sp_adv_feature_names[j], ev->kept[j]);
            first = 0;
        }
    fprintf(out, "\n");
    if (ev->not_close)
        fprintf(out, "\n¹ nothing close was known for %d of the %d matrices: the safest "
                     "configuration stood in for the advice there.\n", ev->not_close,
                ev->matrices);
    fprintf(out, "\nregret counts the matrices where the choice ran; \"never ran\": it failed, "
                 "was refused (max_fill) or was not in the sweep.\n");
}
