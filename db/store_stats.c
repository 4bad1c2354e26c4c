/*
 * store_stats.c — a run's statistics columns (median, interval, spread),
 * computed from its stored samples by db/stats.c and written into its row:
 * when the run is stored, when a later round adds samples to it, and for
 * the runs of a database migrated from schema version 3. The views read
 * these columns; nothing else computes them.
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"
#include "store_impl.h"

/* The samples of run_id (seconds, round) into malloc'd arrays. */
static int load_samples(sp_store *st, int64_t run_id, double **s, int32_t **round, int *n,
                        sp_err *err)
{
    sqlite3_stmt *q;
    *s = NULL, *round = NULL, *n = 0;
    if (store_prepare(st, "SELECT seconds, round FROM samples WHERE run_id = ?1 ORDER BY rep",
                      &q, "reading a run's samples", err))
        return -1;
    sqlite3_bind_int64(q, 1, run_id);
    int cap = 0, rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            double *ns = realloc(*s, (size_t)cap * sizeof **s);
            int32_t *nr = ns ? realloc(*round, (size_t)cap * sizeof **round) : NULL;
            if (ns)
                *s = ns;
            if (!nr) {
                sqlite3_finalize(q);
                return sp_fail(err, "%s: out of memory reading samples", st->path);
            }
            *round = nr;
        }
        (*s)[*n] = sqlite3_column_double(q, 0);
        (*round)[(*n)++] = (int32_t)sqlite3_column_int(q, 1);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : store_fail(st, err, "reading a run's samples");
}

int store_restat_run(sp_store *st, int64_t run_id, sp_err *err)
{
    double *s;
    int32_t *round;
    int n;
    if (load_samples(st, run_id, &s, &round, &n, err))
        return -1;
    sp_stats x;
    int rc = sp_stats_compute(s, round, n, &x);
    free(s);
    free(round);
    if (rc)
        return sp_fail(err, "%s: out of memory computing statistics", st->path);
    sqlite3_stmt *u;
    if (store_prepare(st,
                      "UPDATE runs SET repetitions = ?2, median = ?3, mean = ?4, min_s = ?5, max_s = ?6,"
                      " stddev = ?7, ci_lo = ?8, ci_hi = ?9, ci_level = ?10, ci_method = ?11,"
                      " mad = ?12, outliers = ?13, rounds = ?14"
                      " WHERE id = ?1",
                      &u, "storing a run's statistics", err))
        return -1;
    sqlite3_bind_int64(u, 1, run_id);
    sqlite3_bind_int(u, 2, x.n);
    bind_real(u, 3, x.median);
    bind_real(u, 4, x.mean);
    bind_real(u, 5, x.min);
    bind_real(u, 6, x.max);
    bind_real(u, 7, x.stddev);
    bind_real(u, 8, x.ci_lo);
    bind_real(u, 9, x.ci_hi);
    bind_real(u, 10, x.ci_level);
    bind_text(u, 11, x.ci_method);
    bind_real(u, 12, x.mad);
    sqlite3_bind_int(u, 13, x.outliers);
    sqlite3_bind_int(u, 14, x.rounds);
    return store_step_done(st, u, "storing a run's statistics", err);
}

int store_restat_missing(sp_store *st, sp_err *err)
{
    sqlite3_stmt *q;
    if (store_prepare(st, "SELECT id FROM runs WHERE status = 'ok' AND median IS NULL", &q,
                      "listing runs without statistics", err))
        return -1;
    int64_t *ids = NULL;
    int n = 0, cap = 0, rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *ni = realloc(ids, (size_t)cap * sizeof *ids);
            if (!ni) {
                free(ids);
                sqlite3_finalize(q);
                return sp_fail(err, "%s: out of memory listing runs", st->path);
            }
            ids = ni;
        }
        ids[n++] = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) {
        free(ids);
        return store_fail(st, err, "listing runs without statistics");
    }
    for (int i = 0; i < n; i++)
        if (store_restat_run(st, ids[i], err)) {
            free(ids);
            return -1;
        }
    free(ids);
    return 0;
}

double sp_store_rate_scale(sp_store *st, const char *unit)
{
    sqlite3_stmt *s;
    sp_err err = {{0}};
    if (!st || store_prepare(st, "SELECT scale FROM rate_scales"
                                 " WHERE prefix = upper(substr(coalesce(?1, 'G'), 1, 1))",
                             &s, "preparing the rate scale", &err))
        return 1;
    if (unit)
        sqlite3_bind_text(s, 1, unit, -1, SQLITE_STATIC);
    double scale = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_double(s, 0) : 1;
    sqlite3_finalize(s);
    return scale;
}
