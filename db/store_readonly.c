/*
 * store_readonly.c — open a results database to read it only (export,
 * report; see sp_store_open_readonly in store.h). sp_store_open sets WAL
 * mode and re-creates the views in the file, so a shared or archived file
 * without write permission could be neither exported nor reported, and
 * reading changed its bytes. Here nothing is written to the file:
 *   current schema  this build's views become TEMP views of the connection
 *                   (the file's own views, perhaps another build's, unused);
 *   older schema    copied into memory and migrated there (SQLite's backup
 *                   API; the file keeps its version);
 *   newer schema    refused.
 * A WAL database's -shm and -wal are created beside it where the directory
 * allows, as for any SQLite reader.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_impl.h"

/* This build's views as TEMP views of a read-only connection: views.sql
 * names no schema, so its CREATE VIEW becomes CREATE TEMP VIEW and its
 * DROP VIEW IF EXISTS drops only temp views (the file's own views, which
 * another build may have written, stay untouched and shadowed). */
static int store_temp_views(sp_store *st, sp_err *err)
{
    static const char CREATE[] = "CREATE VIEW ", DROP[] = "DROP VIEW IF EXISTS ";
    sqlite3_str *q = sqlite3_str_new(NULL);
    for (const char *p = sp_views_sql; *p;) {
        const char *create = strstr(p, CREATE), *drop = strstr(p, DROP);
        const char *next = create && (!drop || create < drop) ? create : drop;
        if (!next) {
            sqlite3_str_appendall(q, p);
            break;
        }
        sqlite3_str_append(q, p, (int)(next - p));
        sqlite3_str_appendall(q, next == create ? "CREATE TEMP VIEW " : DROP);
        if (next == drop)
            sqlite3_str_appendall(q, "temp.");
        p = next + strlen(next == create ? CREATE : DROP);
    }
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return sp_fail(err, "%s: out of memory creating the views", st->path);
    int rc = store_exec(st, sql, "creating db/views.sql as temporary views", err);
    sqlite3_free(sql);
    int64_t n;
    if (rc == 0 && store_query_int(st, "SELECT COUNT(*) FROM temp.sqlite_master WHERE"
                                       " type = 'view' AND name = 'run_stats'", &n, err) == 0 &&
        n != 1)
        rc = sp_fail(err, "%s: db/views.sql made no temporary run_stats view", st->path);
    return rc;
}

/* Replace the read-only connection by an in-memory copy of the database
 * and migrate that: an archived older file is read as this build reads a
 * current one, and the file itself is never written. */
static int store_migrate_in_memory(sp_store *st, sp_err *err)
{
    sqlite3 *mem = NULL;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close(mem);
        return sp_fail(err, "%s: cannot open an in-memory copy to migrate", st->path);
    }
    sqlite3_backup *b = sqlite3_backup_init(mem, "main", st->db, "main");
    int step = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
    sqlite3_backup_finish(b);
    if (step != SQLITE_DONE) {
        sqlite3_close(mem);
        return store_fail(st, err, "copying into memory to migrate");
    }
    sqlite3_close(st->db);
    st->db = mem;
    return store_apply_schema(st, err);
}

/* "file:PATH?immutable=1" with PATH percent-encoded (sqlite3_free it). */
static char *immutable_uri(const char *path)
{
    sqlite3_str *u = sqlite3_str_new(NULL);
    sqlite3_str_appendall(u, *path == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (strchr("/._~-", *p) || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= 'a' && *p <= 'z'))
            sqlite3_str_appendchar(u, 1, (char)*p);
        else
            sqlite3_str_appendf(u, "%%%02X", *p);
    sqlite3_str_appendall(u, "?immutable=1");
    return sqlite3_str_finish(u);
}

/* A read-only connection whose first read (the schema version) worked.
 * A WAL database in a directory where this user can create neither its
 * -shm nor its -wal cannot be read that way (SQLITE_READONLY_DIRECTORY,
 * or _CANTINIT). Without a -wal file no connection has it open, and none can open it
 * here to write: it is reopened immutable (no locks, no -shm), as an
 * archived file is. (A sweep started on it meanwhile by a user who may
 * write there would not be seen.) */
static sp_store *store_connect_readonly(const char *path, int64_t *version, sp_err *err)
{
    sp_store *st = store_connect(path, NULL, SQLITE_OPEN_READONLY, err);
    if (!st || store_query_int(st, "PRAGMA user_version", version, err) == 0)
        return st;
    int code = sqlite3_extended_errcode(st->db);
    int cantinit = code == SQLITE_READONLY_DIRECTORY || code == SQLITE_READONLY_CANTINIT;
    sp_store_close(st);
    char *wal = sqlite3_mprintf("%s-wal", path), *uri = immutable_uri(path);
    st = NULL;
    if (!wal || !uri)
        sp_fail(err, "%s: out of memory opening the database", path);
    else if (cantinit && access(wal, F_OK) != 0 &&
             (st = store_connect(path, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err)) &&
             store_query_int(st, "PRAGMA user_version", version, err)) {
        sp_store_close(st);
        st = NULL;
    }
    sqlite3_free(wal);
    sqlite3_free(uri);
    return st;
}

/* Open path to read it only (see the top of this file and store.h). */
int sp_store_open_readonly(const char *path, sp_store **out, sp_err *err)
{
    struct stat sb;
    if (!out)
        return sp_fail(err, "sp_store_open_readonly: no output handle");
    *out = NULL;
    if (!path || !*path)
        return sp_fail(err, "sp_store_open_readonly: empty database path");
    if (stat(path, &sb) != 0)
        return sp_fail(err, "%s: no such database file (run a sweep first)", path);
    int64_t version, tables;
    sp_store *st = store_connect_readonly(path, &version, err);
    if (!st)
        return -1;
    int rc = store_query_int(st, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"
                                 " AND name IN ('sweeps', 'matrices', 'runs', 'samples')",
                             &tables, err);
    if (rc == 0 && tables != 4)
        rc = sp_fail(err, "%s: not an spsweep results database (no runs, samples,"
                          " matrices and sweeps tables)", path);
    else if (rc == 0 && version > SP_SCHEMA_VERSION)
        rc = sp_fail(err, "%s: schema version %lld is newer than this spsweep's (%d)", path,
                     (long long)version, SP_SCHEMA_VERSION);
    else if (rc == 0)
        rc = version < SP_SCHEMA_VERSION ? store_migrate_in_memory(st, err)
                                         : store_temp_views(st, err);
    if (rc) {
        sp_store_close(st);
        return -1;
    }
    *out = st;
    return 0;
}

/* An export's database, read-only, and its sweep (store_impl.h): both
 * exporters (export.c, export_gbench.c) start here, so neither calls the
 * other for it. */
int store_export_open(const char *path, int64_t *sweep, sp_store **out, sp_err *err)
{
    sp_store *st;
    if (sp_store_open_readonly(path, &st, err))
        return -1;
    int64_t latest = 0;
    int rc = *sweep ? 0 : store_query_int(st, "SELECT coalesce(MAX(id), 0) FROM sweeps",
                                          &latest, err);
    if (rc == 0 && !*sweep && !(*sweep = latest))
        rc = sp_fail(err, "%s: no sweep to export", path);
    else if (rc == 0)
        rc = sp_store_check_sweep(st->db, "main", path, "--sweep", *sweep, err);
    if (rc) {
        sp_store_close(st);
        return -1;
    }
    *out = st;
    return 0;
}
