/*
 * sweep_ids.c — is a sweep id one of the database's sweeps? export and
 * report take --sweep ID (and --base-sweep ID) from the user; an id the
 * database lacks used to export nothing with exit status 0. It is refused
 * instead, with the ids the database holds:
 *   --sweep 99: no such sweep in results.db (sweeps 1-3)
 */
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "store.h"

/* Append "a" or "a-b" to buf (", " between); 0 when it no longer fits. */
static int append_range(char *buf, size_t len, int64_t a, int64_t b)
{
    size_t used = strlen(buf);
    int n = a == b ? snprintf(buf + used, len - used, "%s%lld", used ? ", " : "", (long long)a)
                   : snprintf(buf + used, len - used, "%s%lld-%lld", used ? ", " : "",
                              (long long)a, (long long)b);
    if (n < 0 || (size_t)n >= len - used) {
        buf[used] = '\0';
        return 0;
    }
    return 1;
}

/* The sweep ids of schema as ranges, "sweeps 1-3, 7" ("sweep 4", "no
 * sweeps"), cut with ", ..." when longer than len allows. */
static void sweep_ranges(sqlite3 *db, const char *schema, char *out, size_t len)
{
    char list[200] = "";
    int64_t first = 0, last = 0, count = 0;
    int fits = 1;
    sqlite3_stmt *s = NULL;
    char *sql = sqlite3_mprintf("SELECT id FROM \"%w\".sweeps ORDER BY id", schema);
    if (sql && sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK)
        while (fits && sqlite3_step(s) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(s, 0);
            if (count++ && id == last + 1) {
                last = id;
                continue;
            }
            if (count > 1)
                fits = append_range(list, sizeof list - 5, first, last);
            first = last = id;
        }
    if (fits && count)
        fits = append_range(list, sizeof list - 5, first, last);
    if (!fits)
        strcat(list, ", ...");
    sqlite3_finalize(s);
    sqlite3_free(sql);
    if (!count)
        snprintf(out, len, "no sweeps");
    else
        snprintf(out, len, "%s %s", count == 1 ? "sweep" : "sweeps", list);
}

int sp_store_check_sweep(struct sqlite3 *db, const char *schema, const char *path,
                         const char *option, int64_t id, sp_err *err)
{
    sqlite3_stmt *s;
    char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sweeps WHERE id = ?1", schema);
    if (!sql)
        return sp_fail(err, "%s: out of memory", path);
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    sqlite3_free(sql);
    if (rc != SQLITE_OK)
        return sp_fail(err, "%s: reading its sweeps: %s", path, sqlite3_errmsg(db));
    sqlite3_bind_int64(s, 1, id);
    int step = sqlite3_step(s);
    sqlite3_finalize(s);
    if (step == SQLITE_ROW)
        return 0;
    if (step != SQLITE_DONE)
        return sp_fail(err, "%s: reading its sweeps: %s", path, sqlite3_errmsg(db));
    char held[256];
    sweep_ranges(db, schema, held, sizeof held);
    return sp_fail(err, "%s %lld: no such sweep in %s (%s)", option, (long long)id, path,
                   held);
}
