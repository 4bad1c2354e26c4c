/*
 * advise_print.c — advice as `spsweep advise` prints it: the configuration
 * advised, its expected rate with the neighbours' range, the runner-up, and
 * the measured matrices it rests on; with --explain the features, how far
 * each neighbour is and the score of every configuration. Nothing close:
 * one plain sentence instead of a guess, and the safest configuration
 * over everything measured, named as what to measure first.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "advise.h"

/* "spmv_hll_omp_static {"threads":2,"hack":8}" as kernel and axis=value. */
static void config_text(const sp_adv_set *set, int cfg, char *buf, size_t len)
{
    const char *a = set->axes[cfg];
    char axes[256];
    size_t n = 0;
    for (const char *p = a; *p && n + 1 < sizeof axes; p++) {
        if (*p == '{' || *p == '}' || *p == '"')
            continue;
        axes[n++] = *p == ':' ? '=' : *p == ',' ? ' ' : *p;
    }
    axes[n] = 0;
    snprintf(buf, len, "%s%s%s", set->kernel[cfg], n ? " " : "", axes);
}

static void print_choice(const sp_adv_set *set, const sp_adv_choice *c, const char *what,
                         int nnb, FILE *out)
{
    char cfg[400];
    config_text(set, c->config, cfg, sizeof cfg);
    fprintf(out, "%s: %s\n", what, cfg);
    fprintf(out, "  expected: %.4g %s (neighbours' range %.4g .. %.4g); %.0f %% of the best "
                 "on the neighbours (weighted geomean); measured on %d of %d\n",
            c->expected, set->rate_unit[0] ? set->rate_unit : "", c->lo, c->hi,
            100 * c->score, c->support, nnb);
}

/* The neighbours and what won on each; for a padded layout advised, its
 * share there also scaled to this matrix's fill (what its score used). */
static void print_neighbours(const sp_adv_set *set, const sp_advice *adv, const double *f,
                             FILE *out)
{
    int j = adv->nchoices ? sp_adv_fill_feature(set->kernel[adv->choices[0].config],
                                                set->axes[adv->choices[0].config])
                          : -1;
    fprintf(out, "rests on the %d nearest measured matrices (distance: RMS of the "
                 "z-scored feature differences):\n", adv->nnb);
    for (int i = 0; i < adv->nnb; i++) {
        const sp_adv_case *c = &set->cases[adv->nb[i]];
        char best[400];
        config_text(set, set->rates[c->first].config, best, sizeof best);
        const sp_adv_rate *mine = adv->nchoices
                                      ? sp_adv_rate_of(set, adv->nb[i], adv->choices[0].config)
                                      : NULL;
        fprintf(out, "  %-28s d=%.2f  best: %s %.4g; advised: ", c->name, adv->dist[i], best,
                c->best_rate);
        double scaled = mine && j >= 0 && f ? mine->rel * exp(c->f[j] - f[j]) : 0;
        if (mine && j >= 0 && f)
            fprintf(out, "%.4g (%.0f %% of the best at fill %.3g there; %.0f %% scaled to "
                         "fill %.3g here%s)\n", mine->rate, 100 * mine->rel, exp(c->f[j]),
                    100 * scaled, exp(f[j]), scaled > 1 ? ", counted as 100 %" : "");
        else if (mine)
            fprintf(out, "%.4g (%.0f %% of the best)\n", mine->rate, 100 * mine->rel);
        else
            fprintf(out, "did not run\n");
    }
}

static void print_explain(const sp_adv_set *set, const sp_advice *adv, const double *f,
                          FILE *out)
{
    fprintf(out, "features (value; z-score over the %d measured matrices):\n", set->ncases);
    for (int j = 0; j < SP_ADV_NFEAT && f; j++)
        fprintf(out, "  %-11s %9.4g  z=%+.2f%s\n", sp_adv_feature_names[j], f[j],
                (f[j] - adv->mean[j]) / adv->sd[j], adv->use >> j & 1 ? "" : "  (not used)");
    fprintf(out, "why: each configuration scores the weighted geomean of its rate over "
                 "the best on each neighbour (weight 1 / (d + 0.05); 0.1 where it did not "
                 "run ok; a padded layout's scaled by its fill there over its fill here, "
                 "at most 1); the highest score is advised.\nscores:\n");
    for (int i = 0; i < adv->nchoices; i++) {
        char cfg[400];
        config_text(set, adv->choices[i].config, cfg, sizeof cfg);
        fprintf(out, "  %5.3f  %s (on %d)\n", adv->choices[i].score, cfg,
                adv->choices[i].support);
    }
    if (adv->nrefused)
        fprintf(out, "not advised, their layout too padded for this matrix (above "
                     "--max-fill):\n");
    for (int i = 0; i < adv->nrefused && i < SP_ADV_MAX_REFUSED; i++) {
        char cfg[400];
        config_text(set, adv->refused[i], cfg, sizeof cfg);
        fprintf(out, "  %s: at least %.3gx the nonzeros\n", cfg, adv->refused_fill[i]);
    }
    if (adv->nrefused > SP_ADV_MAX_REFUSED)
        fprintf(out, "  and %d more\n", adv->nrefused - SP_ADV_MAX_REFUSED);
}

/* Where nothing close is known: no prediction, but the one configuration
 * of least regret over everything measured, as what to measure first. */
static void print_safest(const sp_adv_set *set, const sp_advice *adv, FILE *out)
{
    if (adv->safest.config < 0)
        return;
    char cfg[400];
    config_text(set, adv->safest.config, cfg, sizeof cfg);
    fprintf(out, "safest to measure first: %s\n  not a prediction for this matrix: over "
                 "all %d measured matrices it ran at %.0f %% of the best on their worst "
                 "tenth for it (geomean), the most of any configuration; %.0f %% over all of "
                 "them, %.0f %% at worst; a sweep of this matrix is the answer\n", cfg,
            adv->safest_over, 100 * adv->safest.tail, 100 * adv->safest.score,
            100 * adv->safest.worst);
}

void sp_advice_print(const sp_adv_set *set, const sp_advice *adv, const double *f,
                     int explain, FILE *out)
{
    fprintf(out, "learnt from: %d measured matrices (%d sweeps of them), %d configurations "
                 "(%s on the %s, %s precision)\n", sp_adv_distinct_matrices(set, NULL),
            set->ncases, set->nconfigs, set->operation, set->device, set->precision);
    fprintf(out, "distance over %s:", adv->use == SP_ADV_ALL ? "every feature" : "the features "
                 "that predict best here");
    for (int j = 0; j < SP_ADV_NFEAT; j++)
        if (adv->use >> j & 1)
            fprintf(out, " %s", sp_adv_feature_names[j]);
    fprintf(out, "\n");
    if (!adv->close) {
        fprintf(out, "no advice: %s\n", adv->why);
        print_safest(set, adv, out);
        if (adv->nnb && explain)
            print_neighbours(set, adv, f, out);
        if (explain && adv->nnb)
            print_explain(set, adv, f, out);
        return;
    }
    print_choice(set, &adv->choices[0], "advised", adv->nnb, out);
    if (adv->nchoices > 1)
        print_choice(set, &adv->choices[1], "runner-up", adv->nnb, out);
    print_neighbours(set, adv, f, out);
    if (explain)
        print_explain(set, adv, f, out);
}
