/*
 * report_summary.c — the summary tables (best kernel and axis values per
 * matrix, its time, rate and speedups each with its 95 % interval, and
 * whether it beats or ties the runner-up; geomean speedup of each kernel
 * over the serial and the vendor baseline, with a bound) and the failure
 * table (every run and matrix the sweep could not measure, with the
 * reason: nothing is dropped silently).
 */
#include "report_impl.h"

/* The winner against the runner-up (the best run of any other kernel):
 * a difference inside the two intervals is a tie, not a win; without an
 * interval on either side nothing can be said. */
#define RUNNER_UP                                                                     \
    "CASE WHEN runner_up_kernel IS NULL THEN '-'"                                     \
    " WHEN tie = 1 THEN 'tie with ' || runner_up_kernel"                              \
    " WHEN tie = 0 THEN 'beats ' || runner_up_kernel"                                 \
    " ELSE runner_up_kernel || ' (no interval)' END"

/* Every number with its 95 % interval (rp_measure, rp_ratio: report_format.c). */
static const char BEST_SQL[] =
    "SELECT matrix, size_class, nnz, operation, kernel, " AXES_TEXT("axes") ","
    " rp_measure(median * 1e3, ci_lo * 1e3, ci_hi * 1e3, 'ms'),"
    " rp_measure(rate, rate_lo, rate_hi, rate_unit),"
    " rp_ratio(speedup, speedup_lo, speedup_hi), coalesce(vendor_kernel, '-'),"
    " rp_ratio(vendor_speedup, vendor_speedup_lo, vendor_speedup_hi), " RUNNER_UP
    " FROM best_runs WHERE sweep_id = ?1 ORDER BY operation, nnz, matrix";

/* The geomean of a speedup column x over the matrices, between the
 * geomeans of its lower and its upper ends. That is a conservative bound,
 * not a confidence interval of the geomean: it is where the geomean lies
 * when every matrix's speedup lies in its own interval; it claims no
 * coverage of its own, and is usually wider than an interval of the
 * geomean would be (the matrices' errors do not all fall the same way).
 * Only when every one of those matrices has an interval: the ends of a
 * subset bound nothing ("(no interval)" then). */
#define GEOMEAN(x, lo, hi)                                                            \
    "rp_ratio(exp(avg(ln(" x "))),"                                                   \
    " CASE WHEN COUNT(" lo ") = COUNT(" x ") AND COUNT(" hi ") = COUNT(" x ")"       \
    "  THEN exp(avg(ln(" lo "))) END,"                                                \
    " CASE WHEN COUNT(" lo ") = COUNT(" x ") AND COUNT(" hi ") = COUNT(" x ")"       \
    "  THEN exp(avg(ln(" hi "))) END)"

/* Per kernel: its best axis values on each matrix (the smallest median,
 * which is the largest speedup over either baseline, with that run's
 * interval), then the geomean over matrices of the speedup over each
 * baseline (matrices with one). */
static const char GEOMEAN_SQL[] =
    "WITH placed AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix_id, operation, kernel"
    "   ORDER BY median, run_id) AS place FROM speedup WHERE sweep_id = ?1),"
    " best AS (SELECT kernel, operation, speedup AS s, speedup_lo AS s_lo,"
    "   speedup_hi AS s_hi, vendor_speedup AS v, vendor_speedup_lo AS v_lo,"
    "   vendor_speedup_hi AS v_hi FROM placed WHERE place = 1)"
    " SELECT kernel, operation, COUNT(*), " GEOMEAN("s", "s_lo", "s_hi") ", COUNT(s),"
    " " GEOMEAN("v", "v_lo", "v_hi") ", COUNT(v)"
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
        "matrix", "size", "nnz", "operation", "best kernel", "axes", "median [95 % interval]",
        "rate [95 % interval]", "vs serial", "vendor baseline", "vs vendor", "runner-up"};
    static const char *const geo_head[] = {
        "kernel", "operation", "matrices", "geomean vs serial [bound]", "(matrices)",
        "geomean vs vendor [bound]", "(matrices)"};
    return emit_query(r, BEST_SQL, "summary-best", "Best kernel and axis values per matrix",
                      12, best_head, err) ||
                   emit_query(r, GEOMEAN_SQL, "summary-geomean",
                              "Geomean speedup of each kernel (best axis values per matrix; "
                              "bounds: geomeans of the intervals' ends)",
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
