/*
 * datasets.c — the `datasets` table (datasets.h): created on first use
 * (it predates the schema's versions and a database without a fetch has
 * none), one upsert a row.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "datasets.h"
#include "store.h"

static const char DATASETS_SQL[] =
    "CREATE TABLE IF NOT EXISTS datasets ("
    " id INTEGER PRIMARY KEY,"
    " source TEXT NOT NULL,"            /* suitesparse:Group/Name */
    " url TEXT,"
    " archive_bytes INTEGER,"
    " archive_sha256 TEXT,"
    " mtx_path TEXT,"
    " mtx_bytes INTEGER,"
    " mtx_sha256 TEXT NOT NULL CHECK (length(mtx_sha256) = 64),"
    " fetched_at TEXT,"
    " verified_at TEXT,"                /* last time the bytes were re-hashed */
    " UNIQUE (source, mtx_sha256));";

static const char UPSERT_SQL[] =
    "INSERT INTO datasets (source, url, archive_bytes, archive_sha256, mtx_path, mtx_bytes,"
    " mtx_sha256, fetched_at, verified_at) VALUES (?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT (source, mtx_sha256) DO UPDATE SET mtx_path = excluded.mtx_path,"
    " verified_at = coalesce(excluded.verified_at, datasets.verified_at)";

/* Bind text, NULL when empty. */
static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v && *v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* One upsert a row. */
static int upsert_rows(sqlite3 *db, const sp_dataset_row *rows, int n, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, UPSERT_SQL, -1, &s, NULL) != SQLITE_OK)
        return sp_fail(err, "datasets: %s", sqlite3_errmsg(db));
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const sp_dataset_row *r = &rows[i];
        sqlite3_reset(s);
        bind_text(s, 1, r->source);
        bind_text(s, 2, r->url);
        sqlite3_bind_int64(s, 3, r->archive_bytes);
        bind_text(s, 4, r->archive_sha256);
        bind_text(s, 5, r->mtx_path);
        sqlite3_bind_int64(s, 6, r->mtx_bytes);
        bind_text(s, 7, r->mtx_sha256);
        bind_text(s, 8, r->fetched_at);
        bind_text(s, 9, r->verified_at);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = sp_fail(err, "datasets: %s: %s", r->source ? r->source : "(no source)",
                         sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
    return rc;
}

int sp_store_datasets(const char *db_path, const sp_dataset_row *rows, int n, sp_err *err)
{
    sp_store *st;
    if (sp_store_open(db_path, &st, err))
        return -1;
    sqlite3 *db = sp_store_db(st);
    int rc = 0;
    if (sqlite3_exec(db, DATASETS_SQL, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        rc = sp_fail(err, "%s: datasets: %s", db_path, sqlite3_errmsg(db));
    if (!rc && upsert_rows(db, rows, n, err))
        rc = -1;
    if (!rc && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = sp_fail(err, "%s: datasets: %s", db_path, sqlite3_errmsg(db));
    if (rc)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sp_store_close(st);
    return rc;
}
