/*
 * store_sweep.c — sweeps: begin (with provenance), end, find and reopen
 * for resume, the keys of the runs a sweep holds, matrices a sweep could
 * not load, and its runs counted by status. See store.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "store_impl.h"

/* A meta with every version-2 field unknown. */
void sp_sweep_meta_init(sp_sweep_meta *m)
{
    memset(m, 0, sizeof *m);
    m->git_dirty = -1;
}

#define SWEEP_INSERT                                                                     \
    "INSERT INTO sweeps (config_path, config_text, config_hash, git_commit, started_at,"  \
    " status, host, cpu, cpu_count, gpu, gpu_driver, cuda_runtime, compiler, cflags,"    \
    " omp_binding, repetitions, warmup, plan_hash, binary_hash, shard_index,"            \
    " shard_count, timeout_s, repetitions_auto, max_noise, max_time_s, git_dirty, os,"   \
    " kernel_release, cpu_sockets, cpu_cores, cpu_threads, mem_total_gib, gpu_sm_count," \
    " gpu_mem_gib, gpu_clock_mhz, gpu_mem_clock_mhz, host_triad_gbs,"                    \
    " host_triad_threads, device_copy_gbs, isolate, rounds, seed, cache, batch,"         \
    " min_sample_s, noisy_threshold, libraries, device_l2_gbs, device_l2_bytes,"         \
    " host_cache_gbs, host_cache_bytes) VALUES (?1, ?2, ?3, ?4, " SQL_NOW ","            \
    " 'running', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,"  \
    " ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35,"   \
    " ?36, ?37, ?38, ?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49)"

/* Bind the version-1 columns (?1..?15). */
static int bind_sweep_v1(sqlite3_stmt *s, const sp_sweep_meta *m, const char *hash)
{
    return bind_text(s, 1, m->config_path) | bind_text(s, 2, m->config_text) |
           bind_text(s, 3, hash) | bind_text(s, 4, m->git_commit) |
           bind_text(s, 5, m->host) | bind_text(s, 6, m->cpu) |
           sqlite3_bind_int(s, 7, m->cpu_count) | bind_text(s, 8, m->gpu) |
           bind_text(s, 9, m->gpu_driver) | bind_text(s, 10, m->cuda_runtime) |
           bind_text(s, 11, m->compiler) | bind_text(s, 12, m->cflags) |
           bind_text(s, 13, m->omp_binding) | sqlite3_bind_int(s, 14, m->repetitions) |
           sqlite3_bind_int(s, 15, m->warmup);
}

/* A measured quantity: 0, negative or NaN means unknown (NULL). */
static int bind_measure(sqlite3_stmt *s, int i, double v)
{
    return bind_real(s, i, v > 0 ? v : NAN);
}

/* Bind the version-2 and -3 columns (?16..?38). */
static int bind_sweep_v2(sqlite3_stmt *s, const sp_sweep_meta *m)
{
    return bind_text(s, 16, m->plan_hash) | bind_text(s, 17, m->binary_hash) |
           bind_int_or_null(s, 18, m->shard_index, 0) |
           bind_int_or_null(s, 19, m->shard_count, 0) | bind_measure(s, 20, m->timeout_s) |
           sqlite3_bind_int(s, 21, m->repetitions_auto != 0) |
           bind_measure(s, 22, m->max_noise) | bind_measure(s, 23, m->max_time_s) |
           bind_int_or_null(s, 24, m->git_dirty, -1) | bind_text(s, 25, m->os) |
           bind_text(s, 26, m->kernel_release) |
           bind_int_or_null(s, 27, m->cpu_sockets, 0) |
           bind_int_or_null(s, 28, m->cpu_cores, 0) |
           bind_int_or_null(s, 29, m->cpu_threads, 0) |
           bind_measure(s, 30, m->mem_total_gib) |
           bind_int_or_null(s, 31, m->gpu_sm_count, 0) | bind_measure(s, 32, m->gpu_mem_gib) |
           bind_int_or_null(s, 33, m->gpu_clock_mhz, 0) |
           bind_int_or_null(s, 34, m->gpu_mem_clock_mhz, 0) |
           bind_measure(s, 35, m->host_triad_gbs) |
           bind_int_or_null(s, 36, m->host_triad_threads, 0) |
           bind_measure(s, 37, m->device_copy_gbs) | bind_text(s, 38, m->isolate);
}

/* Bind the version-4, -6 and -7 columns (?39..?49). */
static int bind_sweep_v4(sqlite3_stmt *s, const sp_sweep_meta *m)
{
    return bind_int_or_null(s, 39, m->rounds, 0) | sqlite3_bind_int64(s, 40, m->seed) |
           bind_text(s, 41, m->cache) | sqlite3_bind_int(s, 42, m->batch) |
           bind_measure(s, 43, m->min_sample_s) | bind_measure(s, 44, m->noisy_threshold) |
           bind_text(s, 45, m->libraries && *m->libraries ? m->libraries : NULL) |
           bind_measure(s, 46, m->device_l2_gbs) |
           bind_int_or_null(s, 47, m->device_l2_bytes, 0) |
           bind_measure(s, 48, m->host_cache_gbs) |
           bind_int_or_null(s, 49, m->host_cache_bytes, 0);
}

/* Insert a sweep row with status 'running'. */
int sp_store_begin_sweep(sp_store *st, const sp_sweep_meta *m, int64_t *sweep_id,
                         sp_err *err)
{
    if (!st || !m || !sweep_id)
        return sp_fail(err, "sp_store_begin_sweep: NULL argument");
    char hash[17];
    if (m->config_text)
        snprintf(hash, sizeof hash, "%016llx",
                 (unsigned long long)XXH3_64bits(m->config_text, strlen(m->config_text)));
    sqlite3_stmt *s;
    if (store_prepare(st, SWEEP_INSERT, &s, "preparing the sweep insert", err))
        return -1;
    if ((bind_sweep_v1(s, m, m->config_text ? hash : NULL) | bind_sweep_v2(s, m) |
         bind_sweep_v4(s, m)) != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the sweep");
    }
    if (store_step_done(st, s, "inserting the sweep", err))
        return -1;
    *sweep_id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

/* Run "UPDATE sweeps SET ... WHERE id = ?2" with ?1 = status (or NULL);
 * the sweep must exist. */
static int update_sweep(sp_store *st, const char *sql, int64_t sweep_id, const char *status,
                        sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, sql, &s, "preparing the sweep update", err))
        return -1;
    if ((bind_text(s, 1, status) | sqlite3_bind_int64(s, 2, sweep_id)) != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the sweep update");
    }
    if (store_step_done(st, s, "updating the sweep", err))
        return -1;
    if (sqlite3_changes(st->db) != 1)
        return sp_fail(err, "%s: sweep %lld not found", st->path, (long long)sweep_id);
    return 0;
}

/* Close a sweep: finished_at = now and its final status. */
int sp_store_end_sweep(sp_store *st, int64_t sweep_id, const char *status, sp_err *err)
{
    if (!st || !status)
        return sp_fail(err, "sp_store_end_sweep: NULL argument");
    if (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0 &&
        strcmp(status, "interrupted") != 0)
        return sp_fail(err, "sp_store_end_sweep: status '%s' is not done, failed or "
                       "interrupted", status);
    static const char sql[] = "UPDATE sweeps SET finished_at = " SQL_NOW ", status = ?1"
                              " WHERE id = ?2";
    if (update_sweep(st, sql, sweep_id, status, err) == 0)
        return 0;
    /* A write that just failed (a full disk, a file-size limit) can leave
     * the WAL unable to grow by the one page this takes; a checkpoint moves
     * its pages into the database and empties it, which usually frees the
     * room, so the sweep is not left 'running'. */
    sp_err again;
    if (sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) ==
            SQLITE_OK &&
        update_sweep(st, sql, sweep_id, status, &again) == 0)
        return 0;
    return -1;
}

/* Mark a sweep running again before it continues. Its matrix failures
 * are forgotten: those matrices are tried again (and recorded again if
 * they still fail). */
int sp_store_reopen_sweep(sp_store *st, int64_t sweep_id, sp_err *err)
{
    if (!st)
        return sp_fail(err, "sp_store_reopen_sweep: NULL argument");
    if (update_sweep(st, "UPDATE sweeps SET finished_at = NULL,"
                         " status = coalesce(?1, 'running') WHERE id = ?2",
                     sweep_id, NULL, err))
        return -1;
    sqlite3_stmt *s;
    if (store_prepare(st, "DELETE FROM matrix_failures WHERE sweep_id = ?1", &s,
                      "preparing the matrix failure reset", err))
        return -1;
    sqlite3_bind_int64(s, 1, sweep_id);
    return store_step_done(st, s, "forgetting the sweep's matrix failures", err);
}

/* The latest sweep of this plan, binary and shard; 0 when none. */
int sp_store_find_sweep(sp_store *st, const char *plan_hash, const char *binary_hash,
                        int shard_index, int shard_count, int64_t *sweep_id, sp_err *err)
{
    if (!st || !plan_hash || !binary_hash || !sweep_id)
        return sp_fail(err, "sp_store_find_sweep: NULL argument");
    *sweep_id = 0;
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT MAX(id) FROM sweeps WHERE plan_hash = ?1 AND"
                          " binary_hash = ?2 AND coalesce(shard_index, 0) = ?3 AND"
                          " coalesce(shard_count, 0) = ?4", &s,
                      "preparing the sweep lookup", err))
        return -1;
    int rc = bind_text(s, 1, plan_hash) | bind_text(s, 2, binary_hash) |
             sqlite3_bind_int(s, 3, shard_index) | sqlite3_bind_int(s, 4, shard_count);
    if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
        *sweep_id = sqlite3_column_int64(s, 0);     /* NULL reads as 0 */
        rc = 0;
    } else {
        rc = store_fail(st, err, "looking up the sweep to resume");
    }
    sqlite3_finalize(s);
    return rc;
}

/* Call fn for the (source, kernel, axes, round) of every round of every
 * run of sweep_id. */
int sp_store_each_run_key(sp_store *st, int64_t sweep_id, sp_run_key_fn fn, void *user,
                          sp_err *err)
{
    if (!st || !fn)
        return sp_fail(err, "sp_store_each_run_key: NULL argument");
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT m.source, r.kernel, r.axes, o.round FROM runs r"
                          " JOIN matrices m ON m.id = r.matrix_id"
                          " JOIN run_rounds o ON o.run_id = r.id WHERE r.sweep_id = ?1",
                      &s, "preparing the run listing", err))
        return -1;
    sqlite3_bind_int64(s, 1, sweep_id);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW)
        rc = fn(user, (const char *)sqlite3_column_text(s, 0),
                (const char *)sqlite3_column_text(s, 1),
                (const char *)sqlite3_column_text(s, 2), sqlite3_column_int(s, 3), err);
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(st, err, "listing the stored runs");
    sqlite3_finalize(s);
    return rc;
}

/* Record a matrix the sweep could not load or fetch. */
int sp_store_matrix_failure(sp_store *st, int64_t sweep_id, const char *source,
                            sp_run_status status, const char *reason, sp_err *err)
{
    if (!st || !source)
        return sp_fail(err, "sp_store_matrix_failure: NULL argument");
    if (status != SP_RUN_SKIPPED && status != SP_RUN_ERROR)
        return sp_fail(err, "sp_store_matrix_failure: status '%s' is not skipped or error",
                       sp_run_status_name(status));
    sqlite3_stmt *s;
    if (store_prepare(st, "INSERT INTO matrix_failures (sweep_id, source, status, reason,"
                          " created_at) VALUES (?1, ?2, ?3, ?4, " SQL_NOW ")", &s,
                      "preparing the matrix failure insert", err))
        return -1;
    if ((sqlite3_bind_int64(s, 1, sweep_id) | bind_text(s, 2, source) |
         bind_text(s, 3, sp_run_status_name(status)) | bind_text(s, 4, reason)) != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the matrix failure");
    }
    return store_step_done(st, s, "recording the matrix failure", err);
}

/* The runs of sweep_id by status, and its matrix failures (reopening a
 * sweep forgets those, so they are the latest attempt's). */
int sp_store_sweep_tally(sp_store *st, int64_t sweep_id, sp_sweep_tally *t, sp_err *err)
{
    if (!st || !t)
        return sp_fail(err, "sp_store_sweep_tally: NULL argument");
    memset(t, 0, sizeof *t);
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT runs, ok, failed, skipped, error, crashed, timeout,"
                          " matrix_failures FROM run_counts WHERE sweep_id = ?1", &s,
                      "preparing the sweep's tally", err))
        return -1;
    sqlite3_bind_int64(s, 1, sweep_id);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        int *const slots[] = {&t->runs, &t->ok, &t->failed, &t->skipped, &t->errors,
                              &t->crashed, &t->timeouts, &t->matrix_failures};
        for (int i = 0; i < 8; i++)
            *slots[i] = sqlite3_column_int(s, i);
    }
    int rc = step == SQLITE_ROW || step == SQLITE_DONE
                 ? 0 : store_fail(st, err, "counting the sweep's runs");
    sqlite3_finalize(s);
    return rc;
}
