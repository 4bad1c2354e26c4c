/*
 * store_sql.c — the statement helpers every db/store_*.c file shares
 * (store_impl.h): failures reported with the file and the purpose (and the
 * OS cause SQLite hides), one-shot SQL, prepare, step-to-done, binds that
 * map unknown values to NULL, one-integer queries. The ground floor of
 * db/: it calls no other file of the folder, so the store's files
 * (open, runs, statistics) call down into it and not into each other.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>

#include "store_impl.h"

/* Why a write failed, in parentheses, where SQLite's message ("disk I/O
 * error") hides it: the OS error when SQLite kept it, else — it rarely
 * does for a failed write — the file-size limit when there is one (ulimit
 * -f: past it a write fails with EFBIG); "" otherwise. */
static void os_cause(const sp_store *st, char *buf, size_t len)
{
    int code = sqlite3_errcode(st->db), sys = sqlite3_system_errno(st->db);
    struct rlimit rl;
    buf[0] = 0;
    if ((code & 0xff) != SQLITE_IOERR && (code & 0xff) != SQLITE_FULL)
        return;
    if (sys)
        snprintf(buf, len, " (%s)", strerror(sys));
    else if (code == SQLITE_IOERR_WRITE || code == SQLITE_FULL)
        if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            snprintf(buf, len, " (a write failed: a full disk, or a file past the "
                     "file-size limit of %llu bytes, ulimit -f)",
                     (unsigned long long)rl.rlim_cur);
}

/* Report an SQLite failure as "PATH: what: sqlite message (cause)". */
int store_fail(const sp_store *st, sp_err *err, const char *what)
{
    char cause[160];
    if (sqlite3_errcode(st->db) == SQLITE_NOTADB)
        return sp_fail(err, "%s: not an SQLite database (%s)", st->path,
                       sqlite3_errmsg(st->db));
    os_cause(st, cause, sizeof cause);
    return sp_fail(err, "%s: %s: %s%s", st->path, what, sqlite3_errmsg(st->db), cause);
}

/* Run SQL text with no parameters (pragmas, the embedded files). */
int store_exec(sp_store *st, const char *sql, const char *what, sp_err *err)
{
    char *msg = NULL, cause[160];
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    int rc;
    os_cause(st, cause, sizeof cause);
    if (sqlite3_errcode(st->db) == SQLITE_NOTADB)
        rc = store_fail(st, err, what);
    else
        rc = sp_fail(err, "%s: %s: %s%s", st->path, what,
                     msg ? msg : sqlite3_errmsg(st->db), cause);
    sqlite3_free(msg);
    return rc;
}

/* Prepare one statement, reporting failure with its purpose. */
int store_prepare(sp_store *st, const char *sql, sqlite3_stmt **s,
                         const char *what, sp_err *err)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
        *s = NULL;
        return store_fail(st, err, what);
    }
    return 0;
}

/* Step a statement that returns no rows to completion, then finalize it. */
int store_step_done(sp_store *st, sqlite3_stmt *s, const char *what, sp_err *err)
{
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : store_fail(st, err, what);
    sqlite3_finalize(s);
    return rc;
}

/* Bind text, or NULL when s is NULL. */
int bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
    return s ? sqlite3_bind_text(stmt, i, s, -1, SQLITE_STATIC) : sqlite3_bind_null(stmt, i);
}

/* Bind a double; NaN (unknown) becomes NULL. */
int bind_real(sqlite3_stmt *stmt, int i, double v)
{
    return isnan(v) ? sqlite3_bind_null(stmt, i) : sqlite3_bind_double(stmt, i, v);
}

/* Bind an integer; the value null_if becomes NULL. */
int bind_int_or_null(sqlite3_stmt *stmt, int i, int64_t v, int64_t null_if)
{
    return v == null_if ? sqlite3_bind_null(stmt, i) : sqlite3_bind_int64(stmt, i, v);
}

/* The single integer a one-row query returns (PRAGMA user_version). */
int store_query_int(sp_store *st, const char *sql, int64_t *v, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, sql, &s, sql, err))
        return -1;
    int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : store_fail(st, err, sql);
    if (rc == 0)
        *v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc;
}
