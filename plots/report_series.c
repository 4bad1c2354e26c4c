/*
 * report_series.c — which series an operation's charts draw, the same on
 * each of them: its kernels (each at its best axis values on each matrix)
 * when there are RP_SERIES or fewer, else its kernel families
 * (format/backend, each at its best kernel), and of those at most
 * RP_SERIES, the best first; the rest are in the appendix (every run in
 * OP-all-runs.tsv, the heatmaps, the geomean chart of every kernel).
 */
#include <string.h>

#include "report_impl.h"

/* The level's series of one operation, the best first: the mean over the
 * operation's matrices of 1 / ratio (the fraction of the best rate it
 * reaches there; 0 where it did not run), then the name. */
static const char SERIES_SQL[] =
    "SELECT series, SUM(1 / ratio) / (SELECT COUNT(DISTINCT matrix_id) FROM run_stats"
    "   WHERE sweep_id = ?1 AND operation = ?2) AS score, MAX(rate_unit)"
    " FROM series_best_runs WHERE sweep_id = ?1 AND operation = ?2 AND level = ?3"
    " GROUP BY series ORDER BY score DESC, series";

/* The number sql gives for the sweep and operation. */
static int count(rp_report *r, const char *sql, const char *op, int *n, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing a series count");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : rp_db_fail(r, err, "counting series");
    if (rc == 0)
        *n = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return rc;
}

int rp_series_pick(rp_report *r, const char *op, rp_series *se, sp_err *err)
{
    memset(se, 0, sizeof *se);
    se->op = op;
    rp_sanitize(se->file, sizeof se->file, op);
    if (count(r, "SELECT COUNT(DISTINCT kernel) FROM run_stats WHERE sweep_id = ?1"
                 " AND operation = ?2", op, &se->kernels, err) ||
        count(r, "SELECT COUNT(DISTINCT matrix_id) FROM run_stats WHERE sweep_id = ?1"
                 " AND operation = ?2", op, &se->matrices, err))
        return -1;
    se->level = se->kernels <= RP_SERIES ? "kernel" : "family";
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, SERIES_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the series query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, se->level, -1, SQLITE_STATIC);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (se->n < RP_SERIES) {
            snprintf(se->name[se->n++], sizeof se->name[0], "%s",
                     (const char *)sqlite3_column_text(s, 0));
            if (!se->unit[0])
                snprintf(se->unit, sizeof se->unit, "%s",
                         (const char *)sqlite3_column_text(s, 2));
        }
        se->total++;
    }
    int rc = step == SQLITE_DONE ? 0 : rp_db_fail(r, err, "reading the series");
    sqlite3_finalize(s);
    return rc;
}

int rp_series_index(const rp_series *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (name && !strcmp(s->name[i], name))
            return i;
    return -1;
}

void rp_series_note(char *buf, size_t len, const rp_series *s)
{
    if (s->total <= s->n)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "the %d best of %d %s; all in %s-all-runs.tsv", s->n, s->total,
                 strcmp(s->level, "family") ? "kernels" : "kernel families", s->file);
}
