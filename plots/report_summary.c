/*
 * report_summary.c — the summary table of each operation (best kernel and
 * axis values per matrix, its time, rate and speedups over the fixed
 * baselines each with its 95 % interval, and whether it beats or ties the
 * runner-up; the geomeans are a chart, report_geomean.c), ours against
 * the vendor library per matrix and in geomean (own_vs_vendor), and the failure
 * table (every run and matrix the sweep could not measure, with the
 * reason: nothing is dropped silently).
 */
#include <string.h>

#include "report_impl.h"

/* The winner against the runner-up (the best run of any other kernel):
 * a difference inside the two intervals is a tie, not a win; without an
 * interval on either side nothing can be said. */
#define RUNNER_UP                                                                     \
    "CASE WHEN runner_up_kernel IS NULL THEN '-'"                                     \
    " WHEN tie = 1 THEN 'tie with ' || runner_up_kernel"                              \
    " WHEN tie = 0 THEN 'beats ' || runner_up_kernel"                                 \
    " ELSE runner_up_kernel || ' (no interval)' END"

/* One operation's best run per matrix, every number with its 95 %
 * interval (rp_measure, rp_ratio: report_format.c; the rate's unit is in
 * the header, the operation's); the speedups over the operation's fixed
 * baselines (db/views.sql baselines, named in the header). */
static const char BEST_SQL[] =
    "SELECT matrix, size_class, nnz, kernel, " AXES_TEXT("axes") ","
    " rp_measure(median * 1e3, ci_lo * 1e3, ci_hi * 1e3, ''),"
    " rp_measure(rate, rate_lo, rate_hi, ''),"
    " rp_ratio(speedup, speedup_lo, speedup_hi),"
    " rp_ratio(vendor_speedup, vendor_speedup_lo, vendor_speedup_hi), " RUNNER_UP
    " FROM best_runs WHERE sweep_id = ?1 AND operation = ?2 ORDER BY nnz, matrix";

/* The baseline of a role ("(none)" without one) and the rate unit of an
 * operation, for the headers. */
static const char HEAD_SQL[] =
    "SELECT coalesce((SELECT kernel FROM baselines WHERE sweep_id = ?1 AND operation = ?2"
    "  AND role = 'serial'), 'serial (none)'),"
    " coalesce((SELECT kernel FROM baselines WHERE sweep_id = ?1 AND operation = ?2"
    "  AND role = 'vendor'), 'vendor (none)'),"
    " (SELECT MAX(rate_unit) FROM run_stats WHERE sweep_id = ?1 AND operation = ?2)";

static const char FAILURES_SQL[] =
    "SELECT status, what, matrix, coalesce(kernel, '-'), coalesce(" AXES_TEXT("axes") ", '-'),"
    " coalesce(reason, '-') FROM failures WHERE sweep_id = ?1"
    " ORDER BY status, matrix, kernel, axes";

/* Run sql (bound to the sweep, and to op when given) into t, emitted. */
static int emit_query(rp_report *r, const char *sql, const char *op, rp_table *t, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, t->title);
    sqlite3_bind_int64(s, 1, r->sweep_id);
    if (op)
        sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    int rc = rp_table_query(t, s, r, err) || rp_table_emit(r, t, err) ? -1 : 0;
    sqlite3_finalize(s);
    rp_table_free(t);
    return rc;
}

/* OP-best-per-matrix: .tsv, .csv, .md, .tex with every column, pages with
 * the columns a reader scans (the page holds 150 characters). */
static int best_table(rp_report *r, const char *op, sp_err *err)
{
    static const int shown[] = {1, 4, 5, 7, 8, 10, 0};
    char serial[160], vendor[160], unit[64], h_serial[200], h_vendor[200], h_rate[100];
    char base[128], title[256];
    sqlite3_stmt *s;
    rp_sql_mark(r);     /* the table's SQL (index.html) starts here */
    if (sqlite3_prepare_v2(r->db, HEAD_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the baseline names");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_finalize(s);
        return rp_db_fail(r, err, "reading the baseline names");
    }
    snprintf(serial, sizeof serial, "%s", (const char *)sqlite3_column_text(s, 0));
    snprintf(vendor, sizeof vendor, "%s", (const char *)sqlite3_column_text(s, 1));
    snprintf(unit, sizeof unit, "%s", (const char *)sqlite3_column_text(s, 2));
    sqlite3_finalize(s);
    snprintf(h_serial, sizeof h_serial, "vs %s [95 %% CI]", serial);
    snprintf(h_vendor, sizeof h_vendor, "vs %s [95 %% CI]", vendor);
    snprintf(h_rate, sizeof h_rate, "%s [95 %% CI]", unit);
    const char *head[] = {"matrix", "size", "nnz", "best kernel", "axes",
                          "median ms [95 % CI]", h_rate, h_serial, h_vendor, "runner-up"};
    rp_sanitize(base, sizeof base, op);
    snprintf(base + strlen(base), sizeof base - strlen(base), "-best-per-matrix");
    snprintf(title, sizeof title, "%s: best kernel and axis values per matrix, by nnz",
             rp_op_title(op));
    rp_table t;
    rp_table_init(&t, base, title, 10, head);
    t.shown = shown;
    t.formats |= RP_TABLE_CSV | RP_TABLE_MD | RP_TABLE_TEX;
    return emit_query(r, BEST_SQL, op, &t, err);
}

/* Ours against the vendor library per matrix (db/views.sql own_vs_vendor):
 * at each device and precision where a vendor ran, our best run and the
 * vendor's best, each with its interval, the ratio (vendor time over ours,
 * > 1: ours faster) with its conservative bound, the verdict, and our
 * run's fraction of its device's memory roof. */
static const char VENDOR_SQL[] =
    "SELECT device, precision, matrix, nnz, own_kernel, " AXES_TEXT("own_axes") ","
    " rp_measure(own_median * 1e3, own_ci_lo * 1e3, own_ci_hi * 1e3, ''),"
    " vendor_kernel, " AXES_TEXT("vendor_axes") ","
    " rp_measure(vendor_median * 1e3, vendor_ci_lo * 1e3, vendor_ci_hi * 1e3, ''),"
    " rp_ratio(ratio, ratio_lo, ratio_hi), coalesce(verdict, 'no interval'),"
    " iif(own_roof_ratio IS NULL, '-', printf('%.0f %%', own_roof_ratio * 100))"
    " FROM own_vs_vendor WHERE sweep_id = ?1 AND operation = ?2 AND ratio IS NOT NULL"
    " ORDER BY device, precision, nnz, matrix";

/* The same summed up: the geomean of the ratios with its bound, per device,
 * precision and scope (all matrices; those of >= 10^6 nonzeros). */
static const char VENDOR_GEOMEAN_SQL[] =
    "SELECT device, precision, scope, matrices, rp_ratio(geomean, geomean_lo, geomean_hi),"
    " faster, same, slower, printf('%.2f', worst), worst_matrix"
    " FROM own_vs_vendor_geomean WHERE sweep_id = ?1 AND operation = ?2"
    " ORDER BY device, precision, scope";

/* OP-own-vs-vendor and OP-own-vs-vendor-geomean, where a vendor library
 * ran for the operation (nothing otherwise). */
static int vendor_tables(rp_report *r, const char *op, sp_err *err)
{
    static const int shown[] = {2, 3, 5, 8, 11, 12, 13, 0};  /* the times: in the files */
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM own_vs_vendor WHERE sweep_id = ?1 AND"
                                  " operation = ?2 AND ratio IS NOT NULL LIMIT 1", -1, &s,
                           NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the vendor lookup");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    int any = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    if (!any)
        return 0;
    const char *head[] = {"device", "precision", "matrix", "nnz", "best own kernel", "axes",
                          "own ms [95 % CI]", "strongest vendor", "vendor axes",
                          "vendor ms [95 % CI]", "vendor / own [bound]", "verdict",
                          "own % of memory roof"};
    const char *ghead[] = {"device", "precision", "scope", "matrices",
                           "geomean vendor / own [bound]", "faster", "same", "slower",
                           "worst", "worst matrix"};
    char base[128], gbase[160], title[256], gtitle[256];
    rp_sanitize(base, sizeof base, op);
    snprintf(gbase, sizeof gbase, "%s-own-vs-vendor-geomean", base);
    snprintf(base + strlen(base), sizeof base - strlen(base), "-own-vs-vendor");
    snprintf(title, sizeof title, "%s: our best kernel against the vendor library's best, "
             "per matrix", rp_op_title(op));
    snprintf(gtitle, sizeof gtitle, "%s: ours against the vendor library, geomean",
             rp_op_title(op));
    rp_table t;
    rp_sql_mark(r);
    rp_table_init(&t, base, title, 13, head);
    t.shown = shown;
    t.formats |= RP_TABLE_CSV | RP_TABLE_MD | RP_TABLE_TEX;
    if (emit_query(r, VENDOR_SQL, op, &t, err))
        return -1;
    rp_sql_mark(r);
    rp_table_init(&t, gbase, gtitle, 10, ghead);
    t.formats |= RP_TABLE_CSV | RP_TABLE_MD | RP_TABLE_TEX;
    return emit_query(r, VENDOR_GEOMEAN_SQL, op, &t, err);
}

int rp_summary_tables(rp_report *r, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, "SELECT DISTINCT operation FROM run_stats WHERE"
                                  " sweep_id = ?1 ORDER BY CASE operation WHEN 'spmv' THEN 0"
                                  " WHEN 'transpose' THEN 1 WHEN 'sort' THEN 2 ELSE 3 END,"
                                  " operation", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the operation list");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    char ops[16][64];
    int n = 0, step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW && n < 16)
        snprintf(ops[n++], sizeof ops[0], "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    if (step != SQLITE_DONE && step != SQLITE_ROW)
        return rp_db_fail(r, err, "listing operations");
    for (int i = 0; i < n; i++)
        if (best_table(r, ops[i], err) || vendor_tables(r, ops[i], err))
            return -1;
    return 0;
}

int rp_failure_table(rp_report *r, sp_err *err)
{
    static const char *const head[] = {"status", "what", "matrix", "kernel", "axes",
                                       "reason"};
    rp_table t;
    rp_table_init(&t, "failures", "Runs and matrices without a measurement (failed, crashed, "
                  "timeout, skipped, error)", 6, head);
    return emit_query(r, FAILURES_SQL, NULL, &t, err);
}
