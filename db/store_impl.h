/*
 * store_impl.h — what the db/store_*.c files share and nobody else sees:
 * the handle and the small SQLite helpers (every failure reported as
 * "PATH: what: sqlite message").
 */
#ifndef SP_STORE_IMPL_H
#define SP_STORE_IMPL_H

#include <sqlite3.h>
#include "store.h"

/* Current time as ISO-8601 UTC text, evaluated by SQLite. */
#define SQL_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

struct sp_store {
    sqlite3 *db;
    char *path;
    long kill_in_commit;    /* test hook: SIGKILL before this run's COMMIT */
};

/* The schema version schema.sql writes into PRAGMA user_version. */
#define SP_SCHEMA_VERSION 10
#define SP_SCHEMA_VERSION_TEXT "10"
/* db/views.sql, embedded by store.c (NUL-terminated). */
extern const char sp_views_sql[];

/* A handle whose connection sqlite3_open_v2 opened with flags, on uri
 * instead of path when given (store.c). */
sp_store *store_connect(const char *path, const char *uri, int flags, sp_err *err);
/* Migrate an older schema, apply schema.sql and views.sql, in one
 * transaction (store.c). */
int store_apply_schema(sp_store *st, sp_err *err);

int store_fail(const sp_store *st, sp_err *err, const char *what);
/* Open path read-only for an export (store_readonly.c; export.c and
 * export_gbench.c call it) and
 * resolve *sweep: 0 becomes the latest sweep, another id must be one of
 * the database's; -1 (closed again) when it cannot. */
int store_export_open(const char *path, int64_t *sweep, sp_store **st, sp_err *err);
/* Run SQL text with no parameters (pragmas, the embedded files). */
int store_exec(sp_store *st, const char *sql, const char *what, sp_err *err);
/* Prepare one statement, reporting failure with its purpose. */
int store_prepare(sp_store *st, const char *sql, sqlite3_stmt **s, const char *what,
                  sp_err *err);
/* Step a statement that returns no rows to completion, then finalize it. */
int store_step_done(sp_store *st, sqlite3_stmt *s, const char *what, sp_err *err);
/* Bind text, or NULL when s is NULL. */
int bind_text(sqlite3_stmt *stmt, int i, const char *s);
/* Bind a double; NaN (unknown) becomes NULL. */
int bind_real(sqlite3_stmt *stmt, int i, double v);
/* Bind an integer; the value `null_if` becomes NULL. */
int bind_int_or_null(sqlite3_stmt *stmt, int i, int64_t v, int64_t null_if);
/* The single integer a one-row query returns. */
int store_query_int(sp_store *st, const char *sql, int64_t *v, sp_err *err);

/* The statistics columns of run run_id, computed from all its samples by
 * db/stats.c (store_stats.c). */
int store_restat_run(sp_store *st, int64_t run_id, sp_err *err);
/* store_restat_run for every ok run whose statistics are missing (runs of
 * a database migrated from version 3 or older). */
int store_restat_missing(sp_store *st, sp_err *err);
/* The run's columns folded from its rounds (store_run.c): machine flags,
 * flagged samples, the phases (the median round's), the energy per launch
 * and its interval (over the energy windows). */
int store_fold_rounds(sp_store *st, int64_t run_id, sp_err *err);
/* store_fold_rounds for every run (a database migrated from version 4). */
int store_refold_all(sp_store *st, sp_err *err);

#endif
