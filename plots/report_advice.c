/*
 * report_advice.c — for a sweep run with `kernels = advised:K` (issue 25),
 * the advice against what was measured, one row per matrix (the view
 * advice_outcome): the configuration advised first, its expected rate and
 * range, its measured rate, the best measured, and whether the advice was
 * right (within 10 % of the best or its interval). Nothing for a sweep
 * without advice.
 */
#include <string.h>

#include "report_impl.h"

static const char ADVICE_SQL[] =
    "SELECT matrix, kernel, " AXES_TEXT("axes") ","
    " printf('%.4g [%.4g, %.4g]', expected_rate, rate_lo, rate_hi),"
    " coalesce(printf('%.4g', measured_rate), 'did not run'),"
    " best_kernel || ' ' || " AXES_TEXT("best_axes") ", printf('%.4g', best_rate),"
    " CASE right WHEN 1 THEN 'yes' ELSE 'no' END,"
    " coalesce(CASE in_interval WHEN 1 THEN 'yes' ELSE 'no' END, '-')"
    " FROM advice_outcome WHERE sweep_id = ?1 ORDER BY matrix";

int rp_advice_table(rp_report *r, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, "SELECT COUNT(*) FROM advice_outcome WHERE sweep_id = ?1",
                           -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "counting the advice");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    int n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    sqlite3_finalize(s);
    if (!n)
        return 0;
    rp_sql_mark(r);
    static const char *const head[] = {"matrix", "advised first", "axes",
                                       "expected [neighbours' range]", "measured",
                                       "best measured", "its rate", "right", "in range"};
    rp_table t;
    rp_table_init(&t, "advice", "advice (kernels = advised:K) against what was measured",
                  9, head);
    t.formats |= RP_TABLE_CSV | RP_TABLE_MD;
    if (sqlite3_prepare_v2(r->db, ADVICE_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, t.title);
    sqlite3_bind_int64(s, 1, r->sweep_id);
    int rc = rp_table_query(&t, s, r, err) || rp_table_emit(r, &t, err) ? -1 : 0;
    sqlite3_finalize(s);
    rp_table_free(&t);
    return rc;
}
