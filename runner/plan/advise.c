/*
 * advise.c — the learning set of `spsweep advise` (the views
 * advise_features and advise_rates of every --db), the features of a new
 * matrix through the same view, and k-nearest-neighbour advice. See
 * advise.h.
 *
 * Why kNN: the answer must be explainable ("these five measured matrices
 * are most like yours, and on them X was within 2 % of the best"), it
 * needs no training step or model file, and a database that grows is a
 * model that grows. Why relative rates: a configuration's rate over the
 * best on the same matrix removes the matrix's own size and difficulty,
 * so neighbours of different sizes vote on the same scale.
 */
#include <math.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/store.h"
#include "../../kernels/kernel.h"
#include "advise.h"
#include "plan.h"

const char *const sp_adv_feature_names[SP_ADV_NFEAT] = {
    "f_nnz", "f_row_mean", "f_row_cv", "f_row_peak", "f_empty", "f_band", "f_sym",
    "f_dia", "f_ell", "f_sell8", "f_sell32", "f_top1", "f_gap", "f_xnew"};

#define FEATURE_COLS                                                                      \
    "f.f_nnz, f.f_row_mean, f.f_row_cv, f.f_row_peak, f.f_empty, f.f_band, f.f_sym,"      \
    " f.f_dia, f.f_ell, f.f_sell8, f.f_sell32, f.f_top1, f.f_gap, f.f_xnew"

/* A z-score's smallest spread: a feature that hardly varies over the
 * learning set (every matrix square: f_sym near 1) must not turn a small
 * difference into a large distance. */
#define SD_FLOOR 0.05

void sp_adv_opts_default(sp_adv_opts *o)
{
    memset(o, 0, sizeof *o);
    o->operation = "spmv";
    o->precision = "double";
    o->k = SP_ADV_K;
    o->max_distance = SP_ADV_MAX_DISTANCE;
    o->max_fill = SP_MAX_FILL_DEFAULT;
}

/* The integer of axis `name` in an axes JSON object ({"hack":32}); 0 when
 * absent. */
static long axes_long(const char *axes, const char *name)
{
    char key[40];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *h = axes ? strstr(axes, key) : NULL;
    return h ? strtol(h + strlen(key), NULL, 10) : 0;
}

int sp_adv_fill_feature(const char *kernel, const char *axes)
{
    const sp_kernel *k = sp_kernel_find(kernel);
    if (!k || !k->format)
        return -1;
    if (!strcmp(k->format, "dia"))
        return 7;                               /* f_dia */
    if (!strcmp(k->format, "ell"))
        return 8;                               /* f_ell */
    if (strcmp(k->format, "hll") || strstr(kernel, "sell") || axes_long(axes, "sigma") > 1)
        return -1;                              /* rows sorted: pads less */
    long hack = axes_long(axes, "hack");
    if (hack > 0 && hack % 32 == 0)
        return 10;                              /* f_sell32 */
    if (hack > 0 && hack % 8 == 0)
        return 9;                               /* f_sell8 */
    return -1;
}

double sp_adv_fill_bound(const char *kernel, const char *axes, const double f[SP_ADV_NFEAT])
{
    int j = sp_adv_fill_feature(kernel, axes);
    return j < 0 ? 0 : exp(f[j]);
}

void sp_adv_set_free(sp_adv_set *set)
{
    for (int i = 0; i < set->ncases; i++)
        free(set->cases[i].name), free(set->cases[i].source);
    for (int i = 0; i < set->nconfigs; i++)
        free(set->kernel[i]), free(set->axes[i]);
    free(set->cases), free(set->rates), free(set->kernel), free(set->axes);
    memset(set, 0, sizeof *set);
}

/* Grow an array of *cap elements of size sz to hold n + 1. */
static int grow(void **p, int *cap, int n, size_t sz)
{
    if (n < *cap)
        return 0;
    int c = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, (size_t)c * sz);
    if (!q)
        return -1;
    *p = q, *cap = c;
    return 0;
}

static char *dup_col(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return strdup(t ? (const char *)t : "");
}

static double real_or_nan(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

/* The index of configuration (kernel, axes), added when new; -1 out of memory. */
static int config_id(sp_adv_set *set, const char *kernel, const char *axes)
{
    for (int i = 0; i < set->nconfigs; i++)
        if (!strcmp(set->kernel[i], kernel) && !strcmp(set->axes[i], axes))
            return i;
    if (set->nconfigs == set->cap_configs) {
        int cap = set->cap_configs ? 2 * set->cap_configs : 64;
        char **k = realloc(set->kernel, (size_t)cap * sizeof *k);
        if (!k)
            return -1;
        set->kernel = k;
        char **a = realloc(set->axes, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        set->axes = a;
        set->cap_configs = cap;
    }
    set->kernel[set->nconfigs] = strdup(kernel);
    set->axes[set->nconfigs] = strdup(axes);
    if (!set->kernel[set->nconfigs] || !set->axes[set->nconfigs])
        return -1;
    return set->nconfigs++;
}

static const char load_sql[] =
    "SELECT f.checksum, f.name, f.source, r.sweep_id, r.matrix_id, r.kernel, r.axes,"
    " r.rate, r.rate_lo, r.rate_hi, r.rel, r.near_best, r.vendor, r.best_rate, r.rate_unit, "
    FEATURE_COLS
    " FROM advise_rates r JOIN advise_features f ON f.matrix_id = r.matrix_id"
    " WHERE r.operation = ?1 AND r.device = ?2 AND r.precision = ?3"
    " ORDER BY r.sweep_id, r.matrix_id, r.place";

/* Start a new case from the row's matrix columns. */
static int new_case(sp_adv_set *set, sqlite3_stmt *s, int db)
{
    if (grow((void **)&set->cases, &set->cap_cases, set->ncases, sizeof *set->cases))
        return -1;
    sp_adv_case *c = &set->cases[set->ncases];
    memset(c, 0, sizeof *c);
    const unsigned char *ck = sqlite3_column_text(s, 0);
    snprintf(c->checksum, sizeof c->checksum, "%s", ck ? (const char *)ck : "");
    c->name = dup_col(s, 1);
    c->source = dup_col(s, 2);
    c->db = db;
    c->sweep_id = sqlite3_column_int64(s, 3);
    c->first = set->nrates;
    c->best_rate = sqlite3_column_double(s, 13);
    c->vendor_rate = NAN;
    c->vendor_at = -1;
    for (int j = 0; j < SP_ADV_NFEAT; j++)
        c->f[j] = sqlite3_column_double(s, 15 + j);
    set->ncases++;
    return c->name && c->source ? 0 : -1;
}

/* Append one row of load_sql to set. */
static int add_row(sp_adv_set *set, sqlite3_stmt *s, int db, long long *last_sweep,
                   long long *last_matrix)
{
    long long sw = sqlite3_column_int64(s, 3), mx = sqlite3_column_int64(s, 4);
    if (sw != *last_sweep || mx != *last_matrix) {
        if (new_case(set, s, db))
            return -1;
        *last_sweep = sw, *last_matrix = mx;
    }
    sp_adv_case *c = &set->cases[set->ncases - 1];
    const char *k = (const char *)sqlite3_column_text(s, 5);
    const char *a = (const char *)sqlite3_column_text(s, 6);
    int cfg = config_id(set, k ? k : "", a ? a : "{}");
    if (cfg < 0 || grow((void **)&set->rates, &set->cap_rates, set->nrates, sizeof *set->rates))
        return -1;
    sp_adv_rate *r = &set->rates[set->nrates++];
    r->config = cfg;
    r->rate = sqlite3_column_double(s, 7);
    r->rate_lo = real_or_nan(s, 8);
    r->rate_hi = real_or_nan(s, 9);
    r->rel = sqlite3_column_double(s, 10);
    r->near_best = sqlite3_column_int(s, 11);
    if (sqlite3_column_int(s, 12) && !(r->rate <= c->vendor_rate))
        c->vendor_rate = r->rate, c->vendor_at = set->nrates - 1;
    c->n++;
    const unsigned char *unit = sqlite3_column_text(s, 14);
    if (unit && !set->rate_unit[0])
        snprintf(set->rate_unit, sizeof set->rate_unit, "%s", (const char *)unit);
    return 0;
}

/* The rows of one database. */
static int load_db(const char *path, int db, sp_adv_set *set, sp_err *err)
{
    sp_store *st;
    if (sp_store_open_readonly(path, &st, err))
        return -1;
    sqlite3 *h = sp_store_db(st);
    sqlite3_stmt *s;
    int rc = -1;
    if (sqlite3_prepare_v2(h, load_sql, -1, &s, NULL) != SQLITE_OK) {
        sp_fail(err, "%s: reading the advise views: %s", path, sqlite3_errmsg(h));
        sp_store_close(st);
        return -1;
    }
    sqlite3_bind_text(s, 1, set->operation, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, set->device, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, set->precision, -1, SQLITE_STATIC);
    long long last_sweep = -1, last_matrix = -1;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        if (add_row(set, s, db, &last_sweep, &last_matrix)) {
            sp_fail(err, "%s: out of memory reading the runs", path);
            goto done;
        }
    if (step != SQLITE_DONE)
        sp_fail(err, "%s: reading the advise views: %s", path, sqlite3_errmsg(h));
    else
        rc = 0;
done:
    sqlite3_finalize(s);
    sp_store_close(st);
    return rc;
}

/* Load every database for one device. */
static int load_device(const char *const *dbs, int ndb, const char *device, sp_adv_set *set,
                       sp_err *err)
{
    snprintf(set->device, sizeof set->device, "%s", device);
    for (int i = 0; i < ndb; i++)
        if (load_db(dbs[i], i, set, err))
            return -1;
    return 0;
}

int sp_adv_load(const char *const *dbs, int ndb, const sp_adv_opts *o, sp_adv_set *set,
                sp_err *err)
{
    memset(set, 0, sizeof *set);
    snprintf(set->operation, sizeof set->operation, "%s", o->operation ? o->operation : "spmv");
    snprintf(set->precision, sizeof set->precision, "%s",
             o->precision ? o->precision : "double");
    if (ndb < 1)
        return sp_fail(err, "advise: no database to learn from");
    int rc = load_device(dbs, ndb, o->device ? o->device : "cpu", set, err);
    if (rc == 0 && !o->device && set->ncases == 0)
        rc = load_device(dbs, ndb, "gpu", set, err);
    if (rc == 0 && !o->device && set->ncases == 0)
        snprintf(set->device, sizeof set->device, "cpu");
    if (rc)
        sp_adv_set_free(set);
    return rc;
}

const sp_adv_rate *sp_adv_rate_of(const sp_adv_set *set, int c, int config)
{
    const sp_adv_case *x = &set->cases[c];
    for (int i = x->first; i < x->first + x->n; i++)
        if (set->rates[i].config == config)
            return &set->rates[i];
    return NULL;
}

int sp_adv_features_of(const sp_matrix *M, double f[SP_ADV_NFEAT], sp_err *err)
{
    sp_store *st;
    if (sp_store_open(":memory:", &st, err))
        return -1;
    int64_t id;
    sqlite3_stmt *s = NULL;
    int rc = -1;
    if (sp_store_matrix(st, sp_matrix_identity(M), &id, err))
        goto done;
    if (sqlite3_prepare_v2(sp_store_db(st),
                           "SELECT " FEATURE_COLS " FROM advise_features f WHERE matrix_id = ?1",
                           -1, &s, NULL) != SQLITE_OK) {
        sp_fail(err, "advise: the features view: %s", sqlite3_errmsg(sp_store_db(st)));
        goto done;
    }
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        sp_fail(err, "%s: no features to advise on (an empty matrix: %d x %d, %d nonzeros)",
                M->src.text, M->feat.rows, M->feat.cols, M->feat.nnz);
        goto done;
    }
    for (int j = 0; j < SP_ADV_NFEAT; j++)
        f[j] = sqlite3_column_double(s, j);
    rc = 0;
done:
    sqlite3_finalize(s);
    sp_store_close(st);
    return rc;
}

/* Mean and spread (population, floored) of each feature over the cases
 * kept (skip[c] 0; skip NULL: all); returns how many were kept. */
static int zscoring(const sp_adv_set *set, const unsigned char *skip, double *mean, double *sd)
{
    int n = 0;
    for (int j = 0; j < SP_ADV_NFEAT; j++)
        mean[j] = sd[j] = 0;
    for (int c = 0; c < set->ncases; c++) {
        if (skip && skip[c])
            continue;
        n++;
        for (int j = 0; j < SP_ADV_NFEAT; j++)
            mean[j] += set->cases[c].f[j];
    }
    for (int j = 0; j < SP_ADV_NFEAT; j++)
        mean[j] = n ? mean[j] / n : 0;
    for (int c = 0; c < set->ncases; c++) {
        if (skip && skip[c])
            continue;
        for (int j = 0; j < SP_ADV_NFEAT; j++) {
            double d = set->cases[c].f[j] - mean[j];
            sd[j] += d * d;
        }
    }
    for (int j = 0; j < SP_ADV_NFEAT; j++) {
        sd[j] = n ? sqrt(sd[j] / n) : 1;
        sd[j] = sd[j] > SD_FLOOR ? sd[j] : SD_FLOOR;
    }
    return n;
}

/* RMS of the z-scored differences over the features in use: 1 = one
 * spread per feature on average. */
static double distance(const double *a, const double *b, const double *sd, unsigned use)
{
    double s = 0;
    int n = 0;
    for (int j = 0; j < SP_ADV_NFEAT; j++) {
        if (!(use >> j & 1))
            continue;
        double z = (a[j] - b[j]) / sd[j];
        s += z * z;
        n++;
    }
    return n ? sqrt(s / n) : 0;
}

/* The k nearest kept cases into adv (insertion into a sorted list). */
static void nearest(const sp_adv_set *set, const double *f, const unsigned char *skip,
                    unsigned use, int k, sp_advice *adv)
{
    adv->nnb = 0;
    for (int c = 0; c < set->ncases; c++) {
        if (skip && skip[c])
            continue;
        double d = distance(f, set->cases[c].f, adv->sd, use);
        int at = adv->nnb < k ? adv->nnb : k;
        if (at == k && d >= adv->dist[k - 1])
            continue;
        while (at > 0 && adv->dist[at - 1] > d) {
            if (at < k)
                adv->nb[at] = adv->nb[at - 1], adv->dist[at] = adv->dist[at - 1];
            at--;
        }
        adv->nb[at] = c, adv->dist[at] = d;
        adv->nnb += adv->nnb < k;
    }
}

static int by_score(const void *a, const void *b)
{
    const sp_adv_choice *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    if (x->raw != y->raw)       /* both at the cap: the one scaled higher */
        return x->raw < y->raw ? 1 : -1;
    return x->config - y->config;
}

#define MISSING_REL SP_ADV_MISSING_REL

/* One configuration's score over n cases of weights w: the weighted
 * geomean of its rel over them (MISSING_REL where it did not run ok), so
 * that a configuration 10x slower on one case pays for it as regret does,
 * instead of being averaged away. A padded layout's rel (and rate) on a
 * case is first scaled by its fill there over its fill on the matrix
 * advised for (here, from feature j; sp_adv_fill_bound): its time grows
 * with the entries it stores, so DIA measured at fill 1 on a neighbour
 * counts a third at fill 3 here. On bench/advise_cpu.ini (2026-12-07, two
 * sweeps) this took the leave-one-out regret from 1.068 and 1.053 to 1.040
 * and 1.028. A scaled rel is capped at 1: scaling extrapolates (a layout's
 * time is not all in the entries it stores: x, y and the launch are not),
 * so a padded layout scaled past the best on a neighbour counts as level
 * with it, not ahead (ties: the higher uncapped score, ch->raw). On the
 * sweeps of the fourth session of 2026-12-07 the cap took the regret from
 * 1.044 / 1.064 (CPU A / B) and 1.035 (H100) to 1.024 / 1.044 and 1.024.
 * ch->worst: the least capped rel (MISSING_REL counted); rels, when not
 * NULL, gets each case's capped rel (the safest's worst tenth). */
static void config_score(const sp_adv_set *set, int cfg, int j, double here, const int *cases,
                         const double *w, int n, sp_adv_choice *ch, double *rels)
{
    *ch = (sp_adv_choice){.config = cfg, .lo = INFINITY, .hi = 0, .worst = 1};
    double s = 0, raw = 0, wsum = 0, lw = 0, lsum = 0;
    for (int i = 0; i < n; i++) {
        const sp_adv_rate *r = sp_adv_rate_of(set, cases[i], cfg);
        double rel = MISSING_REL;
        if (r) {
            double scale = j < 0 ? 1 : exp(set->cases[cases[i]].f[j]) / here;
            double rate = r->rate * scale;
            rel = r->rel * scale > MISSING_REL ? r->rel * scale : MISSING_REL;
            lw += w[i], lsum += w[i] * log(rate);
            ch->lo = rate < ch->lo ? rate : ch->lo;
            ch->hi = rate > ch->hi ? rate : ch->hi;
            ch->support++;
        }
        wsum += w[i];
        raw += w[i] * log(rel);
        rel = rel < 1 ? rel : 1;
        s += w[i] * log(rel);
        ch->worst = rel < ch->worst ? rel : ch->worst;
        if (rels)
            rels[i] = rel;
    }
    ch->score = wsum > 0 ? exp(s / wsum) : 0;
    ch->raw = wsum > 0 ? exp(raw / wsum) : 0;
    ch->expected = lw > 0 ? exp(lsum / lw) : NAN;
}

/* Its fill on the matrix of features f (0: unknown), or -1 when above
 * max_fill: a layout the sweep would refuse there is not advised. */
static double fill_here(const sp_adv_set *set, int cfg, const double *f, const sp_adv_opts *o,
                        int *j)
{
    *j = sp_adv_fill_feature(set->kernel[cfg], set->axes[cfg]);
    double here = *j < 0 ? 0 : exp(f[*j]);
    return here > o->max_fill && o->max_fill > 0 ? -1 : here;
}

/* Score every configuration the neighbours measured (weights 1 / (d +
 * 0.05)), best first; those refused by max_fill listed apart. */
static int score(const sp_adv_set *set, const double *f, const sp_adv_opts *o,
                 sp_advice *adv)
{
    adv->choices = calloc((size_t)(set->nconfigs ? set->nconfigs : 1), sizeof *adv->choices);
    if (!adv->choices)
        return -1;
    double w[SP_ADV_MAX_K];
    for (int i = 0; i < adv->nnb; i++)
        w[i] = 1 / (adv->dist[i] + 0.05);
    for (int cfg = 0; cfg < set->nconfigs; cfg++) {
        int j;
        double here = fill_here(set, cfg, f, o, &j);
        if (here < 0) {
            if (adv->nrefused < SP_ADV_MAX_REFUSED)
                adv->refused[adv->nrefused] = cfg,
                adv->refused_fill[adv->nrefused] = exp(f[j]);
            adv->nrefused++;
            continue;
        }
        sp_adv_choice ch;
        config_score(set, cfg, j, here, adv->nb, w, adv->nnb, &ch, NULL);
        if (ch.support)
            adv->choices[adv->nchoices++] = ch;
    }
    qsort(adv->choices, (size_t)adv->nchoices, sizeof *adv->choices, by_score);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The geomean of the lowest tenth (at least one) of rel[0..n), sorted in
 * place. */
static double worst_tenth(double *rel, int n)
{
    qsort(rel, (size_t)n, sizeof *rel, by_value);
    int m = (n + 9) / 10;
    double s = 0;
    for (int i = 0; i < m; i++)
        s += log(rel[i]);
    return m ? exp(s / m) : 0;
}

/* The safest configuration, what stands in where nothing close is known:
 * over every kept case, each of weight 1, the one whose fill-scaled rel
 * is highest on its worst tenth of them (the geomean there, MISSING_REL
 * where it did not run; ties: the higher geomean over all). A matrix far
 * from everything measured may lie anywhere, so the choice guards the
 * tail rather than the bulk: the configuration best on average, or best
 * most often, can be far off where it does not win. On the H100 sweep of
 * 2026-12-07 (bench/advise_gpu.ini) the warp-per-row CSR kernel was both
 * (geomean 0.84 over the other 75 matrices, worst tenth 0.30) and ran 28x
 * below the best on the one matrix with nothing close, whose dense row it
 * gives to one warp; the adaptive CSR kernel (0.81, worst tenth 0.58) was
 * the best there. That one matrix is what this rule was drawn from: it is
 * not yet confirmed on a second GPU sweep. */
static int safest(const sp_adv_set *set, const double *f, const unsigned char *skip,
                  const sp_adv_opts *o, sp_advice *adv)
{
    size_t cap = (size_t)(set->ncases ? set->ncases : 1);
    int *cases = malloc(cap * sizeof *cases), n = 0;
    double *w = malloc(cap * sizeof *w), *rel = malloc(cap * sizeof *rel);
    if (!cases || !w || !rel) {
        free(cases), free(w), free(rel);
        return -1;
    }
    for (int c = 0; c < set->ncases; c++)
        if (!(skip && skip[c]))
            cases[n] = c, w[n++] = 1;
    adv->safest = (sp_adv_choice){.config = -1};
    adv->safest_over = n;
    for (int cfg = 0; cfg < set->nconfigs && n; cfg++) {
        int j;
        double here = fill_here(set, cfg, f, o, &j);
        if (here < 0)
            continue;
        sp_adv_choice ch;
        config_score(set, cfg, j, here, cases, w, n, &ch, rel);
        if (!ch.support)
            continue;
        ch.tail = worst_tenth(rel, n);
        const sp_adv_choice *b = &adv->safest;
        if (b->config < 0 || ch.tail > b->tail ||
            (ch.tail == b->tail && by_score(&ch, b) < 0))
            adv->safest = ch;
    }
    free(cases), free(w), free(rel);
    return 0;
}

int sp_adv_predict_skip(const sp_adv_set *set, const double f[SP_ADV_NFEAT],
                        const unsigned char *skip, unsigned use, const sp_adv_opts *o,
                        sp_advice *adv, sp_err *err)
{
    memset(adv, 0, sizeof *adv);
    adv->safest.config = -1;
    int k = o->k > 0 ? (o->k < SP_ADV_MAX_K ? o->k : SP_ADV_MAX_K) : SP_ADV_K;
    int n = zscoring(set, skip, adv->mean, adv->sd);
    adv->use = use ? use : SP_ADV_ALL;
    if (n < SP_ADV_MIN_CASES) {
        snprintf(adv->why, sizeof adv->why, "%d measured matri%s to learn from for %s on "
                 "the %s in %s precision; advice needs at least %d", n,
                 n == 1 ? "x" : "ces", set->operation, set->device, set->precision,
                 SP_ADV_MIN_CASES);
        return 0;
    }
    nearest(set, f, skip, adv->use, k, adv);
    adv->nearest = adv->dist[0];
    if (score(set, f, o, adv) || safest(set, f, skip, o, adv))
        return sp_fail(err, "advise: out of memory scoring configurations");
    if (adv->nearest > o->max_distance) {
        snprintf(adv->why, sizeof adv->why, "the nearest measured matrix (%s) is %.2f "
                 "spreads away on average over the features, beyond %.2f: nothing close is "
                 "known", set->cases[adv->nb[0]].name, adv->nearest, o->max_distance);
        return 0;
    }
    adv->close = adv->nchoices > 0;
    if (!adv->close)
        snprintf(adv->why, sizeof adv->why, "the nearest matrices have no ok runs");
    return 0;
}

unsigned char *sp_adv_skip_matrix(const sp_adv_set *set, const char *exclude)
{
    unsigned char *skip = calloc((size_t)set->ncases + 1, 1);
    for (int c = 0; skip && exclude && c < set->ncases; c++)
        skip[c] = !strcmp(set->cases[c].checksum, exclude);
    return skip;
}

int sp_adv_predict(const sp_adv_set *set, const double f[SP_ADV_NFEAT], const char *exclude,
                   const sp_adv_opts *o, sp_advice *adv, sp_err *err)
{
    unsigned char *skip = sp_adv_skip_matrix(set, exclude);
    if (!skip)
        return sp_fail(err, "advise: out of memory");
    int rc = sp_adv_predict_skip(set, f, skip, set->use, o, adv, err);
    free(skip);
    return rc;
}

void sp_advice_free(sp_advice *adv)
{
    free(adv->choices);
    adv->choices = NULL;
}

int sp_adv_most_often_best(const sp_adv_set *set, const unsigned char *skip)
{
    int *wins = calloc((size_t)(set->nconfigs ? set->nconfigs : 1), sizeof *wins), best = -1;
    if (!wins)
        return -1;
    for (int c = 0; c < set->ncases; c++) {
        const sp_adv_case *x = &set->cases[c];
        if (x->n && !(skip && skip[c]))
            wins[set->rates[x->first].config]++;    /* rows come best first */
    }
    for (int i = 0; i < set->nconfigs; i++)
        if (wins[i] && (best < 0 || wins[i] > wins[best]))
            best = i;
    free(wins);
    return best;
}

int sp_adv_distinct_matrices(const sp_adv_set *set, const unsigned char *skip)
{
    int n = 0;
    for (int c = 0; c < set->ncases; c++) {
        int seen = skip && skip[c];
        for (int d = 0; d < c && !seen; d++)
            seen = !(skip && skip[d]) &&
                   !strcmp(set->cases[d].checksum, set->cases[c].checksum);
        n += !seen;
    }
    return n;
}
