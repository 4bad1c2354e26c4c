/*
 * report_compare.c — the change table of `report --base OLD.db`: every
 * combination (matrix source, operation, kernel, axis values) of this
 * sweep against the same combination in the base sweep, marked
 *   faster  this sweep's 95% confidence interval of the median lies wholly
 *           below the base's,
 *   slower  wholly above it,
 *   same    the intervals overlap;
 * where either run has too few samples for an interval (the run_stats view
 * leaves ci_lo NULL), the [min, max] ranges decide instead. ratio = base
 * median / this median (above 1: faster now). Combinations found on one
 * side only are listed as "new" or "gone". Slower rows come first.
 * This sweep's run_stats is named without a schema: it is this build's
 * TEMP view (sp_store_open_readonly), which SQLite looks up first; the
 * base database's views are its own.
 */
#include <stdio.h>
#include <string.h>

#include "../db/store.h"
#include "report_impl.h"

static const char COMPARE_SQL[] =
    "WITH cur AS (SELECT s.*, m.source FROM run_stats s"
    "   JOIN main.matrices m ON m.id = s.matrix_id WHERE s.sweep_id = ?1),"
    " old AS (SELECT s.*, m.source FROM base.run_stats s"
    "   JOIN base.matrices m ON m.id = s.matrix_id WHERE s.sweep_id = ?2),"
    " pairs AS ("
    "  SELECT c.matrix, c.operation, c.kernel, c.axes, o.median AS om, c.median AS cm,"
    "   CASE WHEN c.ci_lo IS NOT NULL AND o.ci_lo IS NOT NULL THEN"
    "     CASE WHEN c.ci_hi < o.ci_lo THEN 'faster' WHEN c.ci_lo > o.ci_hi THEN 'slower'"
    "     ELSE 'same' END"
    "   ELSE CASE WHEN c.max < o.min THEN 'faster' WHEN c.min > o.max THEN 'slower'"
    "     ELSE 'same' END END AS verdict"
    "  FROM cur c JOIN old o ON o.source = c.source AND o.operation = c.operation"
    "   AND o.kernel = c.kernel AND o.axes = c.axes"
    "  UNION ALL SELECT c.matrix, c.operation, c.kernel, c.axes, NULL, c.median, 'new'"
    "  FROM cur c WHERE NOT EXISTS (SELECT 1 FROM old o WHERE o.source = c.source"
    "   AND o.operation = c.operation AND o.kernel = c.kernel AND o.axes = c.axes)"
    "  UNION ALL SELECT o.matrix, o.operation, o.kernel, o.axes, o.median, NULL, 'gone'"
    "  FROM old o WHERE NOT EXISTS (SELECT 1 FROM cur c WHERE c.source = o.source"
    "   AND c.operation = o.operation AND c.kernel = o.kernel AND c.axes = o.axes))"
    " SELECT verdict, matrix, operation, kernel, " AXES_TEXT("axes") ","
    " CASE WHEN om IS NULL THEN '-' ELSE printf('%.4g', om * 1e3) END,"
    " CASE WHEN cm IS NULL THEN '-' ELSE printf('%.4g', cm * 1e3) END,"
    " CASE WHEN om IS NULL OR cm IS NULL THEN '-' ELSE printf('%.3fx', om / cm) END"
    " FROM pairs ORDER BY CASE verdict WHEN 'slower' THEN 0 WHEN 'faster' THEN 1"
    "  WHEN 'gone' THEN 2 WHEN 'new' THEN 3 ELSE 4 END, matrix, operation, kernel, axes";

/* Attach the base database read-only and resolve its sweep (before any
 * file is written, so a wrong --base or --base-sweep leaves no report). */
int rp_attach_base(rp_report *r, sp_err *err)
{
    char uri[4200];
    sqlite3_stmt *s;
    if (!r->base_db)
        return 0;
    snprintf(uri, sizeof uri, "file:%s?mode=ro", r->base_db);
    if (sqlite3_prepare_v2(r->db, "ATTACH DATABASE ?1 AS base", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "attaching the base database");
    sqlite3_bind_text(s, 1, uri, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(s);
    if (rc)
        return sp_fail(err, "%s: cannot open the base database: %s", r->base_db,
                       sqlite3_errmsg(r->db));
    if (r->base_sweep_id && sp_store_check_sweep(r->db, "base", r->base_db, "--base-sweep",
                                                 r->base_sweep_id, err))
        return -1;
    if (sqlite3_prepare_v2(r->db, "SELECT MAX(sweep_id) FROM base.run_stats"
                                  " WHERE ?1 = 0 OR sweep_id = ?1", -1, &s, NULL) != SQLITE_OK)
        return sp_fail(err, "%s: not an spsweep results database (%s)", r->base_db,
                       sqlite3_errmsg(r->db));
    sqlite3_bind_int64(s, 1, r->base_sweep_id);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
        r->base_sweep_id = sqlite3_column_int64(s, 0);
    else
        rc = sp_fail(err, "%s: no sweep with successful runs to compare with", r->base_db);
    sqlite3_finalize(s);
    return rc;
}

/* Count the verdicts for the table's title. */
static void verdict_counts(const rp_table *t, char *out, size_t len)
{
    static const char *const names[] = {"slower", "faster", "same", "new", "gone"};
    int n[5] = {0};
    for (int i = 0; i < t->nrows; i++)
        for (int k = 0; k < 5; k++)
            n[k] += !strcmp(t->cell[i * t->ncols], names[k]);
    snprintf(out, len, "%d slower, %d faster, %d same, %d new, %d gone", n[0], n[1], n[2],
             n[3], n[4]);
}

int rp_compare_table(rp_report *r, sp_err *err)
{
    static const char *const head[] = {"verdict", "matrix", "operation", "kernel", "axes",
                                       "base median ms", "median ms", "ratio"};
    if (!r->base_db)
        return 0;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, COMPARE_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the comparison");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_int64(s, 2, r->base_sweep_id);
    rp_table t;
    char counts[160], title[600];
    rp_table_init(&t, "compare", "Change", 8, head);
    int rc = rp_table_query(&t, s, r, err);
    sqlite3_finalize(s);
    if (!rc) {
        verdict_counts(&t, counts, sizeof counts);
        const char *slash = strrchr(r->base_db, '/');
        snprintf(title, sizeof title, "Change against %s, sweep %lld: %s",
                 slash ? slash + 1 : r->base_db, (long long)r->base_sweep_id, counts);
        t.title = title;
        rc = rp_table_emit(r, &t, err);
    }
    rp_table_free(&t);
    return rc;
}
