/*
 * store.c — the SQLite results store: open (schema, migration, views). See
 * store.h (store_readonly.c for the open that writes nothing, store_sql.c
 * for the statement helpers every db/store_*.c file shares).
 *
 * The SQL lives in db/schema.sql, db/migrate_v*.sql and db/views.sql and is
 * embedded here at build time with .incbin, so the binary and the sqlite3
 * CLI read the same definitions. Every statement takes its data through
 * bound parameters.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "store_impl.h"

/* The embedded SQL files, NUL-terminated. */
__asm__(".section .rodata\n"
        ".global sp_schema_sql\n"
        ".type sp_schema_sql, @object\n"
        "sp_schema_sql:\n"
        ".incbin \"db/schema.sql\"\n"
        ".byte 0\n"
        ".global sp_views_sql\n"
        ".type sp_views_sql, @object\n"
        "sp_views_sql:\n"
        ".incbin \"db/views.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v2_sql\n"
        ".type sp_migrate_v2_sql, @object\n"
        "sp_migrate_v2_sql:\n"
        ".incbin \"db/migrate_v2.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v3_sql\n"
        ".type sp_migrate_v3_sql, @object\n"
        "sp_migrate_v3_sql:\n"
        ".incbin \"db/migrate_v3.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v4_sql\n"
        ".type sp_migrate_v4_sql, @object\n"
        "sp_migrate_v4_sql:\n"
        ".incbin \"db/migrate_v4.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v5_sql\n"
        ".type sp_migrate_v5_sql, @object\n"
        "sp_migrate_v5_sql:\n"
        ".incbin \"db/migrate_v5.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v6_sql\n"
        ".type sp_migrate_v6_sql, @object\n"
        "sp_migrate_v6_sql:\n"
        ".incbin \"db/migrate_v6.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v7_sql\n"
        ".type sp_migrate_v7_sql, @object\n"
        "sp_migrate_v7_sql:\n"
        ".incbin \"db/migrate_v7.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v8_sql\n"
        ".type sp_migrate_v8_sql, @object\n"
        "sp_migrate_v8_sql:\n"
        ".incbin \"db/migrate_v8.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v9_sql\n"
        ".type sp_migrate_v9_sql, @object\n"
        "sp_migrate_v9_sql:\n"
        ".incbin \"db/migrate_v9.sql\"\n"
        ".byte 0\n"
        ".global sp_migrate_v10_sql\n"
        ".type sp_migrate_v10_sql, @object\n"
        "sp_migrate_v10_sql:\n"
        ".incbin \"db/migrate_v10.sql\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char sp_schema_sql[];
extern const char sp_migrate_v2_sql[];
extern const char sp_migrate_v3_sql[];
extern const char sp_migrate_v4_sql[];
extern const char sp_migrate_v5_sql[];
extern const char sp_migrate_v6_sql[];
extern const char sp_migrate_v7_sql[];
extern const char sp_migrate_v8_sql[];
extern const char sp_migrate_v9_sql[];
extern const char sp_migrate_v10_sql[];

/* Connection settings: foreign keys, WAL journal. The first
 * read of the file happens here, so a non-database is reported here. */
static int store_configure(sp_store *st, sp_err *err)
{
    if (store_exec(st, "PRAGMA foreign_keys = ON", "enabling foreign keys", err))
        return -1;
    sqlite3_stmt *s;
    if (store_prepare(st, "PRAGMA journal_mode = WAL", &s, "setting WAL mode", err))
        return -1;
    int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : store_fail(st, err, "setting WAL mode");
    if (rc == 0) {
        const char *mode = (const char *)sqlite3_column_text(s, 0);
        if (!mode || (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0))
            rc = sp_fail(err, "%s: cannot use WAL journal mode (got %s)", st->path,
                         mode ? mode : "nothing");
    }
    sqlite3_finalize(s);
    return rc;
}

/* A handle for path with its connection opened by flags (on uri instead
 * of path when given); NULL (err set) on failure. */
sp_store *store_connect(const char *path, const char *uri, int flags, sp_err *err)
{
    sp_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        sp_fail(err, "%s: out of memory opening the database", path);
        return NULL;
    }
    if (sqlite3_open_v2(uri ? uri : path, &st->db, flags, NULL) != SQLITE_OK) {
        sp_fail(err, "%s: cannot open database: %s", path,
                st->db ? sqlite3_errmsg(st->db) : "out of memory");
        sp_store_close(st);
        return NULL;
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, 10000);
    return st;
}

/* Drop every view: views.sql re-creates them, and a view that names runs
 * would stop the version-2 migration from renaming the rebuilt table.
 * The DROP statements are built first and run after the listing ends. */
static int drop_views(sp_store *st, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT group_concat(printf('DROP VIEW \"%w\";', name), '')"
                          " FROM sqlite_master WHERE type = 'view'", &s,
                      "listing views", err))
        return -1;
    if (sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_finalize(s);
        return store_fail(st, err, "listing views");
    }
    const unsigned char *t = sqlite3_column_text(s, 0);
    char *sql = t ? strdup((const char *)t) : NULL;
    sqlite3_finalize(s);
    if (t && !sql)
        return sp_fail(err, "%s: out of memory dropping views", st->path);
    int rc = sql ? store_exec(st, sql, "dropping the views", err) : 0;
    free(sql);
    return rc;
}

/* Inside the schema transaction: migrate an older version, then apply
 * schema.sql and views.sql; foreign keys must hold afterwards. */
static int apply_in_transaction(sp_store *st, sp_err *err)
{
    int64_t version, broken;
    if (store_query_int(st, "PRAGMA user_version", &version, err))
        return -1;
    if (version > SP_SCHEMA_VERSION)
        return sp_fail(err, "%s: schema version %lld is newer than this spsweep's (%d)",
                       st->path, (long long)version, SP_SCHEMA_VERSION);
    if (drop_views(st, err))
        return -1;
    if (version == 1 && store_exec(st, sp_migrate_v2_sql,
                                   "migrating schema version 1 to 2 (db/migrate_v2.sql)", err))
        return -1;
    if ((version == 1 || version == 2) &&
        store_exec(st, sp_migrate_v3_sql,
                   "migrating schema version 2 to 3 (db/migrate_v3.sql)", err))
        return -1;
    if (version >= 1 && version <= 3 &&
        store_exec(st, sp_migrate_v4_sql,
                   "migrating schema version 3 to 4 (db/migrate_v4.sql)", err))
        return -1;
    if (version >= 1 && version <= 4 &&
        store_exec(st, sp_migrate_v5_sql,
                   "migrating schema version 4 to 5 (db/migrate_v5.sql)", err))
        return -1;
    if (version >= 1 && version <= 5 &&
        store_exec(st, sp_migrate_v6_sql,
                   "migrating schema version 5 to 6 (db/migrate_v6.sql)", err))
        return -1;
    if (version >= 1 && version <= 6 &&
        store_exec(st, sp_migrate_v7_sql,
                   "migrating schema version 6 to 7 (db/migrate_v7.sql)", err))
        return -1;
    if (version >= 1 && version <= 7 &&
        store_exec(st, sp_migrate_v8_sql,
                   "migrating schema version 7 to 8 (db/migrate_v8.sql)", err))
        return -1;
    if (version >= 1 && version <= 8 &&
        store_exec(st, sp_migrate_v9_sql,
                   "migrating schema version 8 to 9 (db/migrate_v9.sql)", err))
        return -1;
    if (version >= 1 && version <= 9 &&
        store_exec(st, sp_migrate_v10_sql,
                   "migrating schema version 9 to 10 (db/migrate_v10.sql)", err))
        return -1;
    if (store_exec(st, sp_schema_sql, "applying db/schema.sql", err) ||
        (version >= 1 && version <= 3 && store_restat_missing(st, err)) ||
        (version >= 1 && version <= 4 && store_refold_all(st, err)) ||
        store_exec(st, sp_views_sql, "applying db/views.sql", err) ||
        store_query_int(st, "SELECT COUNT(*) FROM pragma_foreign_key_check", &broken, err))
        return -1;
    if (broken)
        return sp_fail(err, "%s: %lld rows break a foreign key after the schema update",
                       st->path, (long long)broken);
    return 0;
}

/* Apply the schema in one transaction, refusing a database written by a
 * newer schema. Foreign keys are off meanwhile (SQLite ignores the pragma
 * inside a transaction), so rebuilding runs does not cascade into samples;
 * the version is read inside the transaction, so two processes opening a
 * version-1 database at once migrate it once. */
int store_apply_schema(sp_store *st, sp_err *err)
{
    if (store_exec(st, "PRAGMA foreign_keys = OFF", "disabling foreign keys", err) ||
        store_exec(st, "BEGIN IMMEDIATE", "starting the schema transaction", err))
        return -1;
    if (apply_in_transaction(st, err) ||
        store_exec(st, "COMMIT", "committing the schema", err)) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return store_exec(st, "PRAGMA foreign_keys = ON", "enabling foreign keys", err);
}

/* Open (creating when absent) the database at path with schema and views. */
int sp_store_open(const char *path, sp_store **out, sp_err *err)
{
    if (!out)
        return sp_fail(err, "sp_store_open: no output handle");
    *out = NULL;
    if (!path || !*path)
        return sp_fail(err, "sp_store_open: empty database path");
    if (sp_mkdir_parent(path, err))
        return sp_fail_prefix(err, "%s", path);
    sp_store *st = store_connect(path, NULL, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err);
    if (!st)
        return -1;
    const char *hook = getenv("SPSWEEP_TEST_KILL_IN_COMMIT");
    st->kill_in_commit = hook ? strtol(hook, NULL, 10) : 0;
    if (store_configure(st, err) || store_apply_schema(st, err)) {
        sp_store_close(st);
        return -1;
    }
    *out = st;
    return 0;
}

/* Close the connection (checkpointing the WAL) and free the handle. */
void sp_store_close(sp_store *st)
{
    if (!st)
        return;
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

/* The raw SQLite handle. */
struct sqlite3 *sp_store_db(sp_store *st)
{
    return st ? st->db : NULL;
}

/* The schema version this build writes (PRAGMA user_version). */
int sp_store_schema_version(void)
{
    return SP_SCHEMA_VERSION;
}

