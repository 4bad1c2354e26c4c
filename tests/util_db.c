/* util_db.c — SQLite helpers for the database tests. See util_db.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "util_db.h"

/* Prepare sql, bind ?1 when present, step to the first row. */
static sqlite3_stmt *first_row(sqlite3 *db, const char *sql, int64_t param)
{
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    if (sqlite3_bind_parameter_count(s) > 0)
        sqlite3_bind_int64(s, 1, param);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s (param %lld): no row: %s", sql,
                 (long long)param, sqlite3_errmsg(db));
    return s;
}

int64_t ud_int(sqlite3 *db, const char *sql, int64_t param)
{
    sqlite3_stmt *s = first_row(db, sql, param);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

double ud_real(sqlite3 *db, const char *sql, int64_t param)
{
    sqlite3_stmt *s = first_row(db, sql, param);
    double v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

void ud_text(sqlite3 *db, const char *sql, int64_t param, char *buf, size_t len)
{
    sqlite3_stmt *s = first_row(db, sql, param);
    const unsigned char *t = sqlite3_column_text(s, 0);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
    sqlite3_finalize(s);
}

void ud_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    cr_assert_eq(rc, SQLITE_OK, "%.200s: %s", sql, msg ? msg : "?");
    sqlite3_free(msg);
}

void ud_drop_views(sqlite3 *db)
{
    char *drop = NULL, *msg = NULL;
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT group_concat('DROP VIEW \"' || name || '\"', '; ')"
                                    " FROM sqlite_master WHERE type = 'view'", -1, &s, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        drop = sqlite3_mprintf("%s", sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    if (!drop)
        return;
    int rc = sqlite3_exec(db, drop, NULL, NULL, &msg);
    cr_assert_eq(rc, SQLITE_OK, "dropping the views: %s", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_free(drop);
}

void ud_close(double got, double want, const char *what)
{
    if (isnan(want)) {
        cr_assert(isnan(got), "%s: got %.17g, want NULL", what, got);
        return;
    }
    cr_assert(fabs(got - want) <= 1e-12 * fabs(want) + 1e-300, "%s: got %.17g, want %.17g",
              what, got, want);
}

int64_t ud_file_int(const char *path, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK, "%s", path);
    sqlite3_busy_timeout(h, 5000);
    int64_t n = ud_int(h, sql, 0);
    sqlite3_close(h);
    return n;
}
