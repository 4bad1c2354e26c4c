/*
 * advise_plan.c — `kernels = advised:K` in a config's [sweep]: each matrix
 * runs only the K configurations of the plan advised for it (advise.h,
 * learnt from `advise_db`, default the sweep's own database), plus every
 * vendor library's configurations (the baseline the report divides by).
 * A matrix the database knows nothing close to runs the whole plan: no
 * guess stands in for a measurement. The advice is stored with the sweep
 * (table advice), and the view advice_outcome holds it against what was
 * measured: the end-of-sweep summary says how often it was right.
 *
 * The features of a matrix come from the advice database when it holds the
 * same source (nothing loaded), else from loading it once at plan time.
 * Advice is for double precision: a combination with another `precision`
 * value is not advised on and always runs.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/store.h"
#include "advise.h"
#include "advise_plan.h"
#include "load_guard.h"

/* A vendor library's kernel (the view vendor_runs' backends): always runs. */
static int vendor(const sp_kernel *k)
{
    return k->backend && (!strcmp(k->backend, "cusparse") || !strcmp(k->backend, "librsb") ||
                          !strcmp(k->backend, "mkl"));
}

/* Does the combination take part in advice: double precision only (the
 * learning set is, advise.h). */
static int advisable(const sp_combo *cb)
{
    char json[512];
    sp_params_json(&cb->params, json, sizeof json);
    return !strstr(json, "\"precision\":") || strstr(json, "\"precision\":\"double\"");
}

void sp_advised_free(sp_advised *a)
{
    if (!a)
        return;
    free(a->rows);
    free(a->keep);
    free(a);
}

/* The features of source src from the advice database (1 found, 0 not). */
static int stored_features(sqlite3 *db, const sp_source *src, double *f)
{
    sqlite3_stmt *s;
    if (!db || sqlite3_prepare_v2(db, "SELECT f_nnz, f_row_mean, f_row_cv, f_row_peak, "
                                      "f_empty, f_band, f_sym, f_dia, f_ell, f_sell8, "
                                      "f_sell32, f_top1, f_gap, f_xnew FROM advise_features "
                                      "WHERE source = ?1 ORDER BY matrix_id DESC LIMIT 1",
                                  -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(s, 1, src->text, -1, SQLITE_STATIC);
    int found = sqlite3_step(s) == SQLITE_ROW;
    for (int j = 0; found && j < SP_ADV_NFEAT; j++)
        f[j] = sqlite3_column_double(s, j);
    sqlite3_finalize(s);
    return found;
}

/* The features of matrix m: stored, else loaded (0). 1 with why when the
 * load would not fit in memory (the sweep's own guard then says so). */
static int features(const sp_config *cfg, int m, sqlite3 *db, double *f, char *why,
                    size_t len, sp_err *err)
{
    const sp_source *src = &cfg->matrices[m];
    if (stored_features(db, src, f))
        return 0;
    sp_load_opts lo;
    sp_matrix M;
    sp_config_load_opts(cfg, &lo);
    if (sp_load_mem_short(src, &lo, 0, NULL, 0, "advice", why, len))
        return 1;
    if (sp_matrix_load(src, &lo, &M, err))
        return sp_fail_prefix(err, "advised: features of %s", src->name);
    int rc = sp_adv_features_of(&M, f, err);
    sp_matrix_free(&M);
    return rc;
}

/* The plan's combination of configuration cfg of set in group (op,
 * device), or -1. */
static int combo_of(const sp_plan *plan, const sp_adv_set *set, int config)
{
    for (int c = 0; c < plan->ncombos; c++) {
        const sp_combo *cb = &plan->combos[c];
        if (strcmp(cb->kernel->name, set->kernel[config]) || !advisable(cb))
            continue;
        char json[512];
        sp_params_json(&cb->params, json, sizeof json);
        if (!strcmp(json, set->axes[config]))
            return c;
    }
    return -1;
}

static int add_row(sp_advised *a, const sp_advised_row *r)
{
    if (a->nrows == a->cap) {
        int cap = a->cap ? 2 * a->cap : 64;
        sp_advised_row *p = realloc(a->rows, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        a->rows = p, a->cap = cap;
    }
    a->rows[a->nrows++] = *r;
    return 0;
}

/* The neighbours' names, comma-separated. */
static void neighbour_names(const sp_adv_set *set, const sp_advice *adv, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < adv->nnb && n + 1 < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
                              set->cases[adv->nb[i]].name);
}

/* Nothing close, or no advised configuration in this plan, or no features:
 * matrix m runs all of the group's combinations; a rank-0 row says why
 * (the dry run prints it, the store skips it). */
static int whole_plan(const sp_plan *plan, const sp_adv_set *set, int m, sp_advised *a,
                      const char *why, sp_err *err)
{
    for (int c = 0; c < plan->ncombos; c++)
        if (!strcmp(plan->combos[c].kernel->operation, set->operation) &&
            !strcmp(sp_kernel_device(plan->combos[c].kernel), set->device))
            a->keep[(size_t)m * plan->ncombos + c] = 1;
    a->unadvised++;
    sp_advised_row none = {.matrix = m, .rank = 0, .combo = -1};
    snprintf(none.neighbours, sizeof none.neighbours, "%s", why);
    return add_row(a, &none) ? sp_fail(err, "out of memory advising") : 0;
}

/* Mark the K advised combinations of group g for matrix m. */
static int advise_matrix(const sp_config *cfg, const sp_plan *plan, const sp_adv_set *set,
                         int m, const double *f, sp_advised *a, sp_err *err)
{
    sp_adv_opts o;
    sp_adv_opts_default(&o);
    o.max_fill = cfg->max_fill;     /* what this sweep would refuse is not advised */
    sp_advice adv;
    if (sp_adv_predict(set, f, NULL, &o, &adv, err))
        return -1;
    int chosen = 0;
    for (int i = 0; adv.close && i < adv.nchoices && chosen < cfg->advised_k; i++) {
        int c = combo_of(plan, set, adv.choices[i].config);
        if (c < 0 || a->keep[(size_t)m * plan->ncombos + c])
            continue;
        a->keep[(size_t)m * plan->ncombos + c] = 1;
        sp_advised_row r = {.matrix = m, .rank = ++chosen, .combo = c,
                            .expected = adv.choices[i].expected, .lo = adv.choices[i].lo,
                            .hi = adv.choices[i].hi};
        neighbour_names(set, &adv, r.neighbours, sizeof r.neighbours);
        if (add_row(a, &r)) {
            sp_advice_free(&adv);
            return sp_fail(err, "out of memory advising on %s", cfg->matrices[m].name);
        }
    }
    int rc = chosen ? 0 : whole_plan(plan, set, m, a, adv.close ? "no advised configuration "
                                     "is in this plan" : adv.why, err);
    sp_advice_free(&adv);
    return rc;
}

/* Load the learning set of each (operation, device) of the plan and
 * advise every matrix of wl. */
static int advise_all(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                      sp_advised *a, sp_err *err)
{
    const char *db = cfg->advise_db ? cfg->advise_db : cfg->database;
    sp_store *st = NULL;
    sp_err why;
    if (sp_store_open_readonly(db, &st, &why)) {
        if (cfg->advise_db)         /* named on purpose: it must be there */
            return sp_fail(err, "%s: advise_db: %s", cfg->path, why.msg);
        st = NULL;                  /* the sweep's own database, not yet there: every
                                       matrix runs the whole plan */
    }
    int rc = 0;
    for (int g = 0; g < plan->ncombos && !rc; g++) {
        const sp_kernel *k = plan->combos[g].kernel;
        int seen = 0;               /* one pass per (operation, device) */
        for (int h = 0; h < g && !seen; h++)
            seen = !strcmp(plan->combos[h].kernel->operation, k->operation) &&
                   !strcmp(sp_kernel_device(plan->combos[h].kernel), sp_kernel_device(k));
        if (seen)
            continue;
        sp_adv_opts o;
        sp_adv_opts_default(&o);
        o.operation = k->operation, o.device = sp_kernel_device(k);
        sp_adv_set set;
        memset(&set, 0, sizeof set);
        snprintf(set.operation, sizeof set.operation, "%s", o.operation);
        snprintf(set.device, sizeof set.device, "%s", o.device);
        snprintf(set.precision, sizeof set.precision, "%s", o.precision);
        if (st)
            rc = sp_adv_load(&db, 1, &o, &set, err);
        for (int i = 0; !rc && i < wl->n; i++) {
            int m = wl->w[i].matrix;
            if (i && wl->w[i - 1].matrix == m)
                continue;
            double f[SP_ADV_NFEAT] = {0};  /* too few measured: no advice, nothing loaded */
            char why[900];
            int got = set.ncases >= SP_ADV_MIN_CASES
                          ? features(cfg, m, st ? sp_store_db(st) : NULL, f, why, sizeof why,
                                     err)
                          : 0;
            rc = got < 0 ? -1
                 : got   ? whole_plan(plan, &set, m, a, why, err)
                         : advise_matrix(cfg, plan, &set, m, f, a, err);
        }
        sp_adv_set_free(&set);
    }
    sp_store_close(st);
    return rc ? -1 : 0;
}

int sp_advise_select(const sp_config *cfg, const sp_plan *plan, sp_worklist *wl, sp_err *err)
{
    if (!cfg->advised_k)
        return 0;
    sp_advised *a = calloc(1, sizeof *a);
    size_t cells = (size_t)cfg->nmatrices * (size_t)plan->ncombos;
    if (!a || !(a->keep = calloc(cells ? cells : 1, 1))) {
        sp_advised_free(a);
        return sp_fail(err, "out of memory advising on the plan");
    }
    if (advise_all(cfg, plan, wl, a, err)) {
        sp_advised_free(a);
        return -1;
    }
    int kept = 0;
    wl->total_cost = 0;
    for (int i = 0; i < wl->n; i++) {
        const sp_work *w = &wl->w[i];
        const sp_combo *cb = &plan->combos[w->combo];
        if (!vendor(cb->kernel) && advisable(cb) &&
            !a->keep[(size_t)w->matrix * plan->ncombos + w->combo])
            continue;
        wl->total_cost += w->cost;
        wl->w[kept++] = *w;
    }
    a->dropped = wl->n - kept;
    wl->n = kept;
    wl->advised = a;
    return 0;
}

void sp_advised_print(const sp_config *cfg, const sp_plan *plan, const sp_advised *a,
                      FILE *out)
{
    if (!a)
        return;
    fprintf(out, "# advised:%d: %d runs left out; %d matri%s with nothing close known run "
                 "the whole plan\n", cfg->advised_k, a->dropped, a->unadvised,
            a->unadvised == 1 ? "x" : "ces");
    for (int i = 0; i < a->nrows; i++) {
        const sp_advised_row *r = &a->rows[i];
        char axes[256];
        if (r->rank == 0) {
            fprintf(out, "# not advised for %s (the whole plan runs): %s\n",
                    cfg->matrices[r->matrix].name, r->neighbours);
            continue;
        }
        sp_params_text(&plan->combos[r->combo].params, axes, sizeof axes);
        fprintf(out, "# advised %d for %s: %s %s, expected %.4g (%.4g .. %.4g), from %s\n",
                r->rank, cfg->matrices[r->matrix].name, plan->combos[r->combo].kernel->name,
                axes, r->expected, r->lo, r->hi, r->neighbours);
    }
}

int sp_advised_store(sp_store *st, int64_t sweep_id, const sp_config *cfg,
                     const sp_plan *plan, const sp_advised *a, sp_err *err)
{
    if (!a || !a->nrows)
        return 0;
    sqlite3 *db = sp_store_db(st);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO advice (sweep_id, source, rank, kernel,"
                               " axes, expected_rate, rate_lo, rate_hi, neighbours)"
                               " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", -1, &s,
                           NULL) != SQLITE_OK)
        return sp_fail(err, "%s: storing the advice: %s", cfg->database, sqlite3_errmsg(db));
    int rc = 0;
    for (int i = 0; i < a->nrows && !rc; i++) {
        const sp_advised_row *r = &a->rows[i];
        char json[512];
        if (r->rank == 0)
            continue;
        sp_params_json(&plan->combos[r->combo].params, json, sizeof json);
        sqlite3_bind_int64(s, 1, sweep_id);
        sqlite3_bind_text(s, 2, cfg->matrices[r->matrix].text, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(s, 3, r->rank);
        sqlite3_bind_text(s, 4, plan->combos[r->combo].kernel->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 5, json, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(s, 6, r->expected);
        sqlite3_bind_double(s, 7, r->lo);
        sqlite3_bind_double(s, 8, r->hi);
        sqlite3_bind_text(s, 9, r->neighbours, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = sp_fail(err, "%s: storing the advice: %s", cfg->database, sqlite3_errmsg(db));
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

void sp_advised_summary(sp_store *st, int64_t sweep_id, FILE *out)
{
    sqlite3_stmt *s;
    if (!out || sqlite3_prepare_v2(sp_store_db(st),
                                   "SELECT COUNT(*), coalesce(SUM(right), 0),"
                                   " coalesce(SUM(in_interval), 0), COUNT(measured_rate)"
                                   " FROM advice_outcome WHERE sweep_id = ?1",
                                   -1, &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, sweep_id);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) > 0)
        fprintf(out, "advice (advice_outcome): the configuration advised first was within "
                     "10 %% or the noise of the best measured on %d of %d matrices; its rate "
                     "fell in the advised interval on %d of the %d where it ran\n",
                sqlite3_column_int(s, 1), sqlite3_column_int(s, 0), sqlite3_column_int(s, 2),
                sqlite3_column_int(s, 3));
    sqlite3_finalize(s);
}
