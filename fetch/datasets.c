/*
 * datasets.c — the `datasets` table of a results database: every matrix a
 * fetch brought in or verified, with its URL, sizes and SHA-256 hashes, so
 * the numbers of a sweep can be traced to the exact bytes they came from.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "../db/store.h"
#include "fetch.h"

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

/* One row per fetched or verified item. */
static int upsert_items(sqlite3 *db, const sp_fetch_item *items, int n, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, UPSERT_SQL, -1, &s, NULL) != SQLITE_OK)
        return sp_fail(err, "datasets: %s", sqlite3_errmsg(db));
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const sp_fetch_item *it = &items[i];
        if (it->state != SP_FETCH_DONE && it->state != SP_FETCH_CACHED)
            continue;
        const sp_manifest *m = &it->manifest;
        sqlite3_reset(s);
        bind_text(s, 1, m->source);
        bind_text(s, 2, m->url);
        sqlite3_bind_int64(s, 3, m->archive_bytes);
        bind_text(s, 4, m->archive_sha256);
        bind_text(s, 5, it->mtx_path);
        sqlite3_bind_int64(s, 6, m->mtx_bytes);
        bind_text(s, 7, m->mtx_sha256);
        bind_text(s, 8, m->fetched_at);
        bind_text(s, 9, it->verified_at);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = sp_fail(err, "datasets: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
    return rc;
}

int sp_datasets_record(const char *db_path, const sp_fetch_item *items, int n, sp_err *err)
{
    sp_store *st;
    if (sp_store_open(db_path, &st, err))
        return -1;
    sqlite3 *db = sp_store_db(st);
    int rc = 0;
    if (sqlite3_exec(db, DATASETS_SQL, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        rc = sp_fail(err, "%s: datasets: %s", db_path, sqlite3_errmsg(db));
    if (!rc && upsert_items(db, items, n, err))
        rc = -1;
    if (!rc && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = sp_fail(err, "%s: datasets: %s", db_path, sqlite3_errmsg(db));
    if (rc)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sp_store_close(st);
    return rc;
}
