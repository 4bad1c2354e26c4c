/*
 * merge.c — `spsweep merge OUT.db IN.db...`: shard databases of one sweep
 * into one database, in one transaction per input.
 *
 * Each input is attached (never modified; it must have this build's
 * schema version).
 * Its sweeps map onto one output sweep per (config_hash, plan_hash): the
 * one OUT already holds, else a copy of the input's row with the shard
 * columns cleared. Inputs whose sweeps differ in config or plan are
 * refused unless `force` (then each keeps its own output sweep). Matrices
 * are deduplicated by (source, checksum); a run already in its output
 * sweep (same matrix, kernel, axes) is skipped and counted as a duplicate,
 * so merging the same shard twice changes nothing. An output sweep is
 * 'done' only when every sweep merged into it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_impl.h"

#define SWEEP_COLS                                                                       \
    "config_path, config_text, config_hash, git_commit, started_at, finished_at,"       \
    " status, host, cpu, cpu_count, gpu, gpu_driver, cuda_runtime, compiler, cflags,"   \
    " omp_binding, repetitions, warmup, plan_hash, binary_hash, timeout_s,"             \
    " repetitions_auto, max_noise, max_time_s, git_dirty, os, kernel_release,"          \
    " cpu_sockets, cpu_cores, cpu_threads, mem_total_gib, gpu_sm_count, gpu_mem_gib,"   \
    " gpu_clock_mhz, gpu_mem_clock_mhz, host_triad_gbs, host_triad_threads,"            \
    " device_copy_gbs, isolate, rounds, seed, cache, batch, min_sample_s,"              \
    " noisy_threshold, libraries, device_l2_gbs, device_l2_bytes, host_cache_gbs,"      \
    " host_cache_bytes"

#define RUN_COLS                                                                         \
    "kernel, operation, format, backend, device, axes, status, error, rel_error, flops," \
    " bytes, convert_s, h2d_s, d2h_s, warmup, repetitions, created_at, stop_reason,"    \
    " rate_unit, need_host_bytes, need_device_bytes, batch, cache, rounds, median, mean,"     \
    " min_s, max_s, stddev, ci_lo, ci_hi, ci_level, ci_method, mad, outliers, flags,"       \
    " flagged_samples, joules_per_launch, free_s, joules_lo, joules_hi, kernel_info,"     \
    " blocking"

#define MATRIX_COLS                                                                      \
    "source, name, rows, cols, nnz, row_min, row_max, row_mean, row_std, empty_rows,"   \
    " bandwidth, pattern_symmetry, size_class, checksum, ndiags, ell_fill, sell_fill_8,"  \
    " sell_fill_32, top1_share, col_gap, x_line_new"

/* Run SQL with one int64 and one optional text parameter to completion. */
static int exec_bound(sp_store *st, const char *sql, int64_t a, const char *b,
                      const char *what, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, sql, &s, what, err))
        return -1;
    if (sqlite3_bind_parameter_count(s) >= 1)
        sqlite3_bind_int64(s, 1, a);
    if (sqlite3_bind_parameter_count(s) >= 2)
        bind_text(s, 2, b);
    return store_step_done(st, s, what, err);
}

/* Refuse inputs whose sweeps hold more than one (config, plan), and an
 * input of another schema version than this build's. */
static int check_input(sp_store *st, const char *path, int force, sp_err *err)
{
    int64_t version, kinds;
    if (store_query_int(st, "PRAGMA src.user_version", &version, err))
        return -1;
    if (version != SP_SCHEMA_VERSION)
        return sp_fail(err, "%s: schema version %lld, not " SP_SCHEMA_VERSION_TEXT " (open it once with this "
                       "spsweep, e.g. `spsweep report --db`, to migrate it)", path,
                       (long long)version);
    if (store_query_int(st, "SELECT COUNT(*) FROM (SELECT DISTINCT config_hash, plan_hash"
                            " FROM src.sweeps UNION SELECT config_hash, plan_hash FROM"
                            " temp.merge_keys)", &kinds, err))
        return -1;
    if (kinds > 1 && !force)
        return sp_fail(err, "%s: its sweeps and the other inputs' come from different "
                       "configs or plans (config/plan hash differ); use --force to "
                       "merge them anyway (each keeps its own sweep)", path);
    return store_exec(st, "INSERT INTO temp.merge_keys SELECT DISTINCT config_hash,"
                          " plan_hash FROM src.sweeps", "noting the input's sweeps", err);
}

/* The output sweep for input sweep src_id: found by (config, plan) or a
 * copy of the input's row. Status and times are folded in. */
static int map_sweep(sp_store *st, int64_t src_id, sp_merge_result *res, sp_err *err)
{
    int64_t dst = 0;
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT d.id FROM main.sweeps d JOIN src.sweeps s ON s.id = ?1"
                          " WHERE d.config_hash IS s.config_hash AND d.plan_hash IS s.plan_hash"
                          " ORDER BY d.id DESC LIMIT 1", &s, "finding the output sweep", err))
        return -1;
    sqlite3_bind_int64(s, 1, src_id);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        dst = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return store_fail(st, err, "finding the output sweep");
    if (!dst) {
        if (exec_bound(st, "INSERT INTO main.sweeps (" SWEEP_COLS ") SELECT " SWEEP_COLS
                           " FROM src.sweeps WHERE id = ?1", src_id, NULL,
                       "copying a sweep", err))
            return -1;
        dst = sqlite3_last_insert_rowid(st->db);
        res->sweeps++;
    }
    char sql[] = "UPDATE main.sweeps SET"
                 " status = CASE WHEN s.status = 'done' THEN main.sweeps.status"
                 " WHEN main.sweeps.status = 'done' THEN 'interrupted'"
                 " ELSE main.sweeps.status END,"
                 " started_at = min(main.sweeps.started_at, s.started_at),"
                 " finished_at = max(main.sweeps.finished_at, s.finished_at)"
                 " FROM src.sweeps s WHERE s.id = ?1 AND main.sweeps.id = ?2";
    if (store_prepare(st, sql, &s, "folding the sweep status", err))
        return -1;
    sqlite3_bind_int64(s, 1, src_id);
    sqlite3_bind_int64(s, 2, dst);
    if (store_step_done(st, s, "folding the sweep status", err))
        return -1;
    if (store_prepare(st, "INSERT INTO temp.sweep_map VALUES (?1, ?2)", &s,
                      "mapping a sweep", err))
        return -1;
    sqlite3_bind_int64(s, 1, src_id);
    sqlite3_bind_int64(s, 2, dst);
    return store_step_done(st, s, "mapping a sweep", err);
}

/* Map every sweep of the input. */
static int map_sweeps(sp_store *st, sp_merge_result *res, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT id FROM src.sweeps ORDER BY id", &s, "listing sweeps", err))
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW)
        rc = map_sweep(st, sqlite3_column_int64(s, 0), res, err);
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(st, err, "listing sweeps");
    sqlite3_finalize(s);
    return rc;
}

/* Matrices by (source, checksum), then the id map. */
static int map_matrices(sp_store *st, sp_merge_result *res, sp_err *err)
{
    int64_t before, after;
    if (store_query_int(st, "SELECT COUNT(*) FROM main.matrices", &before, err) ||
        store_exec(st, "INSERT INTO main.matrices (" MATRIX_COLS ") SELECT " MATRIX_COLS
                       " FROM src.matrices WHERE true ON CONFLICT (source, checksum)"
                       " DO NOTHING", "copying matrices", err) ||
        store_exec(st, "INSERT INTO temp.matrix_map SELECT s.id, d.id FROM src.matrices s"
                       " JOIN main.matrices d ON d.source = s.source AND"
                       " d.checksum = s.checksum", "mapping matrices", err) ||
        store_query_int(st, "SELECT COUNT(*) FROM main.matrices", &after, err))
        return -1;
    res->matrices += (int)(after - before);
    return 0;
}

/* Copy one run, its samples and its rounds unless its output sweep holds it. */
static int copy_run(sp_store *st, sqlite3_stmt *row, sqlite3_stmt *exists,
                    sqlite3_stmt *ins, sqlite3_stmt *const samples[3], sp_merge_result *res,
                    sp_err *err)
{
    sqlite3_reset(exists);
    for (int i = 1; i <= 4; i++)
        sqlite3_bind_value(exists, i, sqlite3_column_value(row, i));
    int step = sqlite3_step(exists);
    if (step == SQLITE_ROW)
        return res->duplicates++, 0;
    if (step != SQLITE_DONE)
        return store_fail(st, err, "looking for a duplicate run");
    sqlite3_reset(ins);
    for (int i = 1; i <= 3; i++)
        sqlite3_bind_value(ins, i, sqlite3_column_value(row, i - 1));
    if (sqlite3_step(ins) != SQLITE_DONE)
        return store_fail(st, err, "copying a run");
    int64_t id = sqlite3_last_insert_rowid(st->db);
    static const char *const what[3] = {"copying samples", "copying rounds",
                                        "copying energy windows"};
    for (int k = 0; k < 3; k++) {       /* its samples, rounds and energy windows */
        sqlite3_reset(samples[k]);
        sqlite3_bind_value(samples[k], 1, sqlite3_column_value(row, 0));
        sqlite3_bind_int64(samples[k], 2, id);
        if (sqlite3_step(samples[k]) != SQLITE_DONE)
            return store_fail(st, err, what[k]);
    }
    res->runs++;
    return 0;
}

/* Every run of the input, in id order. */
static int copy_runs(sp_store *st, sp_merge_result *res, sp_err *err)
{
    sqlite3_stmt *s[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    const char *sql[6] = {
        "SELECT r.id, sm.dst, mm.dst, r.kernel, r.axes FROM src.runs r"
        " JOIN temp.sweep_map sm ON sm.src = r.sweep_id"
        " JOIN temp.matrix_map mm ON mm.src = r.matrix_id ORDER BY r.id",
        "SELECT 1 FROM main.runs WHERE sweep_id = ?1 AND matrix_id = ?2 AND kernel = ?3"
        " AND axes = ?4",
        "INSERT INTO main.runs (sweep_id, matrix_id, " RUN_COLS ") SELECT ?2, ?3, " RUN_COLS
        " FROM src.runs WHERE id = ?1",
        "INSERT INTO main.samples (run_id, rep, seconds, round, flags) SELECT ?2, rep,"
        " seconds, round, flags FROM src.samples WHERE run_id = ?1",
        "INSERT INTO main.run_rounds (run_id, round, status, error, batch, launches, flags,"
        " energy_j, state_before, state_after, created_at, energy_launches, convert_s,"
        " h2d_s, d2h_s, free_s, kernel_info, steps, blocking) SELECT ?2, round, status, error, batch,"
        " launches, flags, energy_j, state_before, state_after, created_at, energy_launches,"
        " convert_s, h2d_s, d2h_s, free_s, kernel_info, steps, blocking FROM src.run_rounds"
        " WHERE run_id = ?1",
        "INSERT INTO main.energy_windows (run_id, round, window_no, energy_j, launches)"
        " SELECT ?2, round, window_no, energy_j, launches FROM src.energy_windows"
        " WHERE run_id = ?1"};
    int rc = 0, step = SQLITE_DONE;
    for (int i = 0; i < 6 && rc == 0; i++)
        rc = store_prepare(st, sql[i], &s[i], "preparing the run copy", err);
    while (rc == 0 && (step = sqlite3_step(s[0])) == SQLITE_ROW)
        rc = copy_run(st, s[0], s[1], s[2], s + 3, res, err);
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(st, err, "reading the input's runs");
    for (int i = 0; i < 6; i++)
        sqlite3_finalize(s[i]);
    return rc;
}

/* Matrix failures, once each per output sweep. */
static int copy_matrix_failures(sp_store *st, sp_merge_result *res, sp_err *err)
{
    int before = sqlite3_total_changes(st->db);
    if (store_exec(st, "INSERT INTO main.matrix_failures (sweep_id, source, status, reason,"
                       " created_at) SELECT sm.dst, f.source, f.status, f.reason, f.created_at"
                       " FROM src.matrix_failures f JOIN temp.sweep_map sm ON sm.src ="
                       " f.sweep_id WHERE NOT EXISTS (SELECT 1 FROM main.matrix_failures d"
                       " WHERE d.sweep_id = sm.dst AND d.source = f.source AND d.status ="
                       " f.status AND d.reason IS f.reason)", "copying matrix failures", err))
        return -1;
    res->matrix_failures += sqlite3_total_changes(st->db) - before;
    return 0;
}

/* The advice of `kernels = advised:K` (schema 9), once per output sweep and
 * matrix: shards advise on their own matrices, and a rerun the same. */
static int copy_advice(sp_store *st, sp_err *err)
{
    return store_exec(st, "INSERT OR IGNORE INTO main.advice (sweep_id, source, rank, kernel,"
                          " axes, expected_rate, rate_lo, rate_hi, neighbours)"
                          " SELECT sm.dst, a.source, a.rank, a.kernel, a.axes, a.expected_rate,"
                          " a.rate_lo, a.rate_hi, a.neighbours FROM src.advice a"
                          " JOIN temp.sweep_map sm ON sm.src = a.sweep_id",
                      "copying the advice", err);
}

/* One input, attached as src, in one transaction. */
static int merge_one(sp_store *st, const char *path, int force, sp_merge_result *res,
                     sp_err *err)
{
    if (access(path, R_OK) != 0)        /* ATTACH would create it */
        return sp_fail(err, "%s: cannot read: %s", path, strerror(errno));
    if (exec_bound(st, "ATTACH ?2 AS src", 0, path, "attaching the input", err))
        return sp_fail_prefix(err, "%s", path);
    int rc = store_exec(st, "BEGIN IMMEDIATE", "starting the merge", err);
    if (rc == 0) {
        rc = store_exec(st, "DELETE FROM temp.sweep_map; DELETE FROM temp.matrix_map",
                        "clearing the id maps", err) ||
                     check_input(st, path, force, err) || map_sweeps(st, res, err) ||
                     map_matrices(st, res, err) || copy_runs(st, res, err) ||
                     copy_matrix_failures(st, res, err) || copy_advice(st, err) ||
                     store_exec(st, "COMMIT", "committing the merge", err)
                 ? -1 : 0;
        if (rc)
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_exec(st->db, "DETACH src", NULL, NULL, NULL);
    return rc;
}

/* Merge in_paths into out_path (created when absent). */
int sp_store_merge(const char *out_path, const char *const *in_paths, int nin, int force,
                   sp_merge_result *res, sp_err *err)
{
    memset(res, 0, sizeof *res);
    if (!out_path || !in_paths || nin < 1)
        return sp_fail(err, "merge: expected OUT.db and at least one IN.db");
    sp_store *st;
    if (sp_store_open(out_path, &st, err))
        return -1;
    int rc = store_exec(st, "CREATE TEMP TABLE sweep_map (src INTEGER PRIMARY KEY, dst);"
                            "CREATE TEMP TABLE matrix_map (src INTEGER PRIMARY KEY, dst);"
                            "CREATE TEMP TABLE merge_keys (config_hash, plan_hash)",
                        "creating the id maps", err);
    for (int i = 0; rc == 0 && i < nin; i++) {
        if (strcmp(in_paths[i], out_path) == 0)
            rc = sp_fail(err, "merge: %s is both input and output", out_path);
        else
            rc = merge_one(st, in_paths[i], force, res, err);
    }
    sp_store_close(st);
    return rc;
}
