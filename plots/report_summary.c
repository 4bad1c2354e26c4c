/*
 * report_summary.c — the summary tables (best kernel and axis values per
 * matrix; geomean speedup of each kernel over the serial and the vendor
 * baseline) and the failure table (every run and matrix the sweep could
 * not measure, with the reason: nothing is dropped silently).
 */
#include "report_impl.h"

/* A ratio as "1.23x", "-" when NULL. */
#define RATIO(col) "CASE WHEN " col " IS NULL THEN '-' ELSE printf('%.2fx', " col ") END"

static const char BEST_SQL[] =
    "SELECT matrix, size_class, nnz, operation, kernel, " AXES_TEXT("axes") ","
    " printf('%.4g ms', median * 1e3), printf('%.3f %s', rate, rate_unit),"
    " " RATIO("speedup") ", coalesce(vendor_kernel, '-'), " RATIO("vendor_speedup")
    " FROM best_runs WHERE sweep_id = ?1 ORDER BY operation, nnz, matrix";

/* Per kernel: its best axis values on each matrix, then the geomean over
 * matrices of the speedup over each baseline (matrices with one). */
static const char GEOMEAN_SQL[] =
    "WITH best AS (SELECT matrix_id, operation, kernel, MAX(speedup) AS s,"
    "  MAX(vendor_speedup) AS v FROM speedup WHERE sweep_id = ?1"
    "  GROUP BY matrix_id, operation, kernel)"
    " SELECT kernel, operation, COUNT(*), " RATIO("exp(avg(ln(s)))") ", COUNT(s),"
    " " RATIO("exp(avg(ln(v)))") ", COUNT(v)"
    " FROM best GROUP BY kernel, operation"
    " ORDER BY operation, exp(avg(ln(s))) DESC, kernel";

static const char FAILURES_SQL[] =
    "SELECT status, what, matrix, coalesce(kernel, '-'), coalesce(" AXES_TEXT("axes") ", '-'),"
    " coalesce(reason, '-') FROM failures WHERE sweep_id = ?1"
    " ORDER BY status, matrix, kernel, axes";

/* Run sql (bound to the sweep) into a table emitted as pages. */
static int emit_query(rp_report *r, const char *sql, const char *base, const char *title,
                      int ncols, const char *const *head, sp_err *err)
{
    sqlite3_stmt *s;
    rp_table t;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, title);
    sqlite3_bind_int64(s, 1, r->sweep_id);
    rp_table_init(&t, base, title, ncols, head);
    int rc = rp_table_query(&t, s, r, err) || rp_table_emit(r, &t, err) ? -1 : 0;
    sqlite3_finalize(s);
    rp_table_free(&t);
    return rc;
}

int rp_summary_tables(rp_report *r, sp_err *err)
{
    static const char *const best_head[] = {
        "matrix", "size", "nnz", "operation", "best kernel", "axes", "median", "rate",
        "vs serial", "vendor baseline", "vs vendor"};
    static const char *const geo_head[] = {
        "kernel", "operation", "matrices", "geomean vs serial", "(matrices)",
        "geomean vs vendor", "(matrices)"};
    return emit_query(r, BEST_SQL, "summary-best", "Best kernel and axis values per matrix",
                      11, best_head, err) ||
                   emit_query(r, GEOMEAN_SQL, "summary-geomean",
                              "Geomean speedup of each kernel (best axis values per matrix)",
                              7, geo_head, err)
               ? -1
               : 0;
}

int rp_failure_table(rp_report *r, sp_err *err)
{
    static const char *const head[] = {"status", "what", "matrix", "kernel", "axes",
                                       "reason"};
    return emit_query(r, FAILURES_SQL, "failures",
                      "Runs and matrices without a measurement (failed, crashed, timeout, "
                      "skipped, error)", 6, head, err);
}
