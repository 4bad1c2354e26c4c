/*
 * shard_status.c — what one shard database (`spsweep sweep --shard i/N
 * --db shard-i.db`) holds, for `spsweep merge --shards`: the latest
 * sweep's config, shard and status, and how many of a list of (matrix
 * source, kernel, axes) pairs it covers, as a run of any status or as a
 * matrix it recorded it could not load.
 *
 * The database is opened read-only: a shard may still be running, and
 * checking it must never create, migrate or lock it for writing.
 */
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"

/* Open path read-only into st (st->path borrowed, not freed). */
static int open_ro(const char *path, sp_store *st, sp_err *err)
{
    memset(st, 0, sizeof *st);
    st->path = (char *)path;
    if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sp_fail(err, "%s: cannot open: %s", path, st->db ? sqlite3_errmsg(st->db) : "no memory");
        sqlite3_close(st->db);
        return -1;
    }
    sqlite3_busy_timeout(st->db, 10000);    /* a shard committing a run */
    return 0;
}

/* strdup of a column, "" for NULL; -1 when out of memory. */
static int dup_col(sqlite3_stmt *s, int col, char **out)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    *out = strdup(t ? (const char *)t : "");
    return *out ? 0 : -1;
}

void sp_shard_info_free(sp_shard_info *info)
{
    free(info->config_path);
    free(info->config_text);
    free(info->status);
    memset(info, 0, sizeof *info);
}

/* The latest sweep of the shard database at path. */
int sp_store_shard_info(const char *path, sp_shard_info *info, sp_err *err)
{
    sp_store st;
    sqlite3_stmt *s;
    memset(info, 0, sizeof *info);
    if (open_ro(path, &st, err))
        return -1;
    int rc = store_prepare(&st, "SELECT id, config_path, config_text, status, shard_index,"
                                " shard_count FROM sweeps ORDER BY id DESC LIMIT 1", &s,
                           "reading its sweep", err);
    if (rc == 0) {
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW) {
            info->sweep_id = sqlite3_column_int64(s, 0);
            info->shard_index = sqlite3_column_int(s, 4);
            info->shard_count = sqlite3_column_int(s, 5);
            if (dup_col(s, 1, &info->config_path) || dup_col(s, 2, &info->config_text) ||
                dup_col(s, 3, &info->status))
                rc = sp_fail(err, "out of memory reading %s", path);
        } else if (step == SQLITE_DONE) {
            rc = sp_fail(err, "%s: holds no sweep", path);
        } else {
            rc = store_fail(&st, err, "reading its sweep");
        }
        sqlite3_finalize(s);
    }
    if (rc)
        sp_shard_info_free(info);
    sqlite3_close(st.db);
    return rc;
}

/* How many of keys[0..n) sweep sweep_id of path covers: a run with that
 * matrix source, kernel and axes, or a matrix failure of that source. */
int sp_store_count_covered(const char *path, int64_t sweep_id, const sp_pair_key *keys,
                           int n, int *covered, sp_err *err)
{
    static const char sql[] =
        "SELECT EXISTS (SELECT 1 FROM runs r JOIN matrices m ON m.id = r.matrix_id"
        " WHERE r.sweep_id = ?1 AND m.source = ?2 AND r.kernel = ?3 AND r.axes = ?4)"
        " OR EXISTS (SELECT 1 FROM matrix_failures WHERE sweep_id = ?1 AND source = ?2)";
    sp_store st;
    sqlite3_stmt *s = NULL;
    *covered = 0;
    if (open_ro(path, &st, err))
        return -1;
    int rc = store_prepare(&st, sql, &s, "checking its runs", err);
    for (int i = 0; rc == 0 && i < n; i++) {
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, sweep_id);
        bind_text(s, 2, keys[i].source);
        bind_text(s, 3, keys[i].kernel);
        bind_text(s, 4, keys[i].axes);
        if (sqlite3_step(s) != SQLITE_ROW)
            rc = store_fail(&st, err, "checking its runs");
        else
            *covered += sqlite3_column_int(s, 0);
    }
    sqlite3_finalize(s);
    sqlite3_close(st.db);
    return rc;
}
