/*
 * store_run.c — matrices and runs: a run and its samples go in one
 * transaction, all of it or nothing, and never twice. See store.h.
 */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "store_impl.h"

/* Bind the matrix's identity and features to the matrix insert. */
static int bind_matrix(sqlite3_stmt *s, const sp_matrix_record *M, const char *checksum)
{
    const sp_features *f = M->feat;
    return bind_text(s, 1, M->source) | bind_text(s, 2, M->name) |
           sqlite3_bind_int(s, 3, f->rows) | sqlite3_bind_int(s, 4, f->cols) |
           sqlite3_bind_int(s, 5, f->nnz) | sqlite3_bind_int(s, 6, f->row_min) |
           sqlite3_bind_int(s, 7, f->row_max) | bind_real(s, 8, f->row_mean) |
           bind_real(s, 9, f->row_std) | sqlite3_bind_int(s, 10, f->empty_rows) |
           sqlite3_bind_int(s, 11, f->bandwidth) | bind_real(s, 12, f->pattern_symmetry) |
           bind_text(s, 13, f->size_class) | bind_text(s, 14, checksum) |
           sqlite3_bind_int(s, 15, f->ndiags) | bind_real(s, 16, f->ell_fill) |
           bind_real(s, 17, f->sell_fill_8) | bind_real(s, 18, f->sell_fill_32) |
           bind_real(s, 19, f->top1_share) | bind_real(s, 20, f->col_gap) |
           bind_real(s, 21, f->x_line_new);
}

/* Look up the id of the matrix with this source and checksum. */
static int find_matrix(sp_store *st, const char *source, const char *checksum,
                       int64_t *id, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT id FROM matrices WHERE source = ?1 AND checksum = ?2",
                      &s, "preparing the matrix lookup", err))
        return -1;
    int rc = bind_text(s, 1, source) | bind_text(s, 2, checksum);
    if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        rc = 0;
    } else {
        rc = store_fail(st, err, "looking up the matrix just stored");
    }
    sqlite3_finalize(s);
    return rc;
}

/* Insert the matrix, or find the identical one (same source and checksum). */
int sp_store_matrix(sp_store *st, sp_matrix_record m, int64_t *matrix_id, sp_err *err)
{
    const sp_matrix_record *M = &m;
    if (!st || !M->feat || !matrix_id)
        return sp_fail(err, "sp_store_matrix: NULL argument");
    if (!M->source || !M->source[0])
        return sp_fail(err, "sp_store_matrix: matrix '%s' has no source text",
                       M->name ? M->name : "?");
    char checksum[17];
    snprintf(checksum, sizeof checksum, "%016llx", (unsigned long long)M->checksum);
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO matrices (source, name, rows, cols, nnz, row_min, row_max,"
                      " row_mean, row_std, empty_rows, bandwidth, pattern_symmetry,"
                      " size_class, checksum, ndiags, ell_fill, sell_fill_8, sell_fill_32,"
                      " top1_share, col_gap, x_line_new) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
                      " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)"
                      /* a matrix stored before schema 9 gains its new features */
                      " ON CONFLICT (source, checksum) DO UPDATE SET ndiags = excluded.ndiags,"
                      " ell_fill = excluded.ell_fill, sell_fill_8 = excluded.sell_fill_8,"
                      " sell_fill_32 = excluded.sell_fill_32, top1_share = excluded.top1_share,"
                      " col_gap = excluded.col_gap, x_line_new = excluded.x_line_new"
                      " WHERE matrices.ndiags IS NULL",
                      &s, "preparing the matrix insert", err))
        return -1;
    if (bind_matrix(s, M, checksum) != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the matrix");
    }
    if (store_step_done(st, s, "inserting the matrix", err))
        return sp_fail_prefix(err, "matrix %s", M->source);
    return find_matrix(st, M->source, checksum, matrix_id, err);
}


/* Check a run record before anything is written. */
static int check_run(const sp_run_record *r, sp_err *err)
{
    if (!r->kernel.name || !r->kernel.operation)
        return sp_fail(err, "sp_store_run: run without a kernel name and operation");
    const char *k = r->kernel.name;
    int ok = r->status == SP_RUN_OK;
    if ((int)r->status < 0 || (int)r->status >= SP_RUN_STORED)
        return sp_fail(err, "sp_store_run: kernel %s: status %d (%s) is not one a run is "
                       "stored with: ok, failed, error, skipped, crashed or timeout", k,
                       (int)r->status, sp_run_status_name(r->status));
    if (ok && (r->nsamples < 1 || !r->samples))
        return sp_fail(err, "sp_store_run: kernel %s: status ok without samples", k);
    if (r->nsamples < 0)
        return sp_fail(err, "sp_store_run: kernel %s: negative sample count %d", k,
                       r->nsamples);
    if (r->round < 0)
        return sp_fail(err, "sp_store_run: kernel %s: negative round %d", k, r->round);
    return 0;
}

/* The rate unit to store: the record's, else its kernel's operation's. */
static const char *run_rate_unit(const sp_run_record *r)
{
    return r->rate_unit ? r->rate_unit : r->kernel.rate_unit;
}

/* The id of the run already stored for this sweep, matrix, kernel and
 * axes, or 0. */
static int find_run(sp_store *st, const sp_run_record *r, int64_t *id, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT id FROM runs WHERE sweep_id = ?1 AND matrix_id = ?2"
                          " AND kernel = ?3 AND axes = ?4", &s,
                      "preparing the run lookup", err))
        return -1;
    int rc = sqlite3_bind_int64(s, 1, r->sweep_id) | sqlite3_bind_int64(s, 2, r->matrix_id) |
             bind_text(s, 3, r->kernel.name) |
             bind_text(s, 4, r->axes_json ? r->axes_json : "{}");
    int step = rc == SQLITE_OK ? sqlite3_step(s) : SQLITE_ERROR;
    *id = step == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0
           : store_fail(st, err, "looking up the run");
}

/* A kernel's JSON as stored: kept when valid, NULL otherwise (a kernel's
 * malformed facts must not lose its run). */
#define VALID_JSON(p) "CASE WHEN json_valid(" p ") THEN " p " END"

/* Insert the runs row; *run_id receives its id. */
static int insert_run_row(sp_store *st, const sp_run_record *r, int64_t *run_id, sp_err *err)
{
    const sp_kernel_ident *k = &r->kernel;
    int ok = r->status == SP_RUN_OK;
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO runs (sweep_id, matrix_id, kernel, operation, format,"
                      " backend, device, axes, status, error, rel_error, flops, bytes,"
                      " convert_s, h2d_s, d2h_s, warmup, repetitions, created_at,"
                      " stop_reason, rate_unit, need_host_bytes, need_device_bytes, batch,"
                      " cache, free_s, kernel_info, blocking) VALUES"
                      " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
                      " ?16, ?17, ?18, " SQL_NOW ", ?19, ?20, ?21, ?22, ?23, ?24, ?25,"
                      " " VALID_JSON("?26") ", ?27)",
                      &s, "preparing the run insert", err))
        return -1;
    int rc = sqlite3_bind_int64(s, 1, r->sweep_id) | sqlite3_bind_int64(s, 2, r->matrix_id) |
             bind_text(s, 3, k->name) | bind_text(s, 4, k->operation) |
             bind_text(s, 5, k->format) | bind_text(s, 6, k->backend) |
             bind_text(s, 7, k->device ? k->device : "cpu") |
             bind_text(s, 8, r->axes_json ? r->axes_json : "{}") |
             bind_text(s, 9, sp_run_status_name(r->status)) | bind_text(s, 10, r->error) |
             bind_real(s, 11, r->rel_error) | bind_real(s, 12, r->flops) |
             bind_real(s, 13, r->bytes) | bind_real(s, 14, r->phases.convert_s) |
             bind_real(s, 15, r->phases.h2d_s) | bind_real(s, 16, r->phases.d2h_s) |
             sqlite3_bind_int(s, 17, r->warmup) | sqlite3_bind_int(s, 18, ok ? r->nsamples : 0) |
             bind_text(s, 19, ok ? (r->stop_reason ? r->stop_reason : "count") : NULL) |
             bind_text(s, 20, run_rate_unit(r)) |
             bind_int_or_null(s, 21, (int64_t)r->need.host_bytes, 0) |
             bind_int_or_null(s, 22, (int64_t)r->need.device_bytes, 0) |
             bind_int_or_null(s, 23, ok ? r->batch : 0, 0) | bind_text(s, 24, r->cache) |
             bind_real(s, 25, r->phases.free_s) | bind_text(s, 26, r->kernel_info) |
             bind_text(s, 27, ok ? r->blocking : NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the run");
    }
    if (store_step_done(st, s, "inserting the run", err))
        return -1;
    *run_id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

/* Append the round's samples to run_id's, rep counting on from its last
 * (a primary-key lookup per sample). */
static int insert_samples(sp_store *st, int64_t run_id, const sp_run_record *r, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, "INSERT INTO samples (run_id, rep, seconds, round, flags)"
                          " VALUES (?1, (SELECT coalesce(MAX(rep) + 1, 0) FROM samples"
                          " WHERE run_id = ?1), ?2, ?3, ?4)",
                      &s, "preparing the sample insert", err))
        return -1;
    int rc = 0;
    for (int i = 0; i < r->nsamples && rc == 0; i++) {
        sqlite3_reset(s);
        if ((sqlite3_bind_int64(s, 1, run_id) | bind_real(s, 2, r->samples[i]) |
             sqlite3_bind_int(s, 3, r->round) |
             sqlite3_bind_int(s, 4, r->sample_flags ? r->sample_flags[i] : 0)) != SQLITE_OK ||
            sqlite3_step(s) != SQLITE_DONE) {
            store_fail(st, err, "inserting a sample");
            rc = sp_fail_prefix(err, "sample %d (%g s)", i, r->samples[i]);
        }
    }
    sqlite3_finalize(s);
    return rc;
}

/* The energy of the round's windows, summed (NaN without one). */
static void round_energy(const sp_run_record *r, double *joules, int64_t *launches)
{
    *joules = r->energy_windows > 0 ? 0 : NAN, *launches = 0;
    for (int i = 0; i < r->energy_windows; i++)
        *joules += r->energy_j[i], *launches += r->energy_launches[i];
}

/* The round's own row: status, batch, launches, machine, phases. */
static int insert_round(sp_store *st, int64_t run_id, const sp_run_record *r, sp_err *err)
{
    int ok = r->status == SP_RUN_OK;
    double joules;
    int64_t elaunches;
    round_energy(r, &joules, &elaunches);
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO run_rounds (run_id, round, status, error, batch, launches,"
                      " flags, energy_j, state_before, state_after, energy_launches,"
                      " convert_s, h2d_s, d2h_s, free_s, kernel_info, steps, blocking,"
                      " created_at)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                      " ?15, " VALID_JSON("?16") ", " VALID_JSON("?17") ", ?18, " SQL_NOW ")",
                      &s, "preparing the round insert", err))
        return -1;
    int rc = sqlite3_bind_int64(s, 1, run_id) | sqlite3_bind_int(s, 2, r->round) |
             bind_text(s, 3, sp_run_status_name(r->status)) | bind_text(s, 4, r->error) |
             bind_int_or_null(s, 5, ok ? r->batch : 0, 0) |
             bind_int_or_null(s, 6, ok ? (int64_t)r->nsamples * (r->batch > 0 ? r->batch : 1)
                                       : 0, 0) |
             sqlite3_bind_int64(s, 7, (int64_t)r->flags) | bind_real(s, 8, joules) |
             bind_text(s, 9, r->state_before) | bind_text(s, 10, r->state_after) |
             bind_int_or_null(s, 11, elaunches, 0) | bind_real(s, 12, r->phases.convert_s) |
             bind_real(s, 13, r->phases.h2d_s) | bind_real(s, 14, r->phases.d2h_s) |
             bind_real(s, 15, r->phases.free_s) | bind_text(s, 16, r->kernel_info) |
             bind_text(s, 17, ok ? r->steps : NULL) | bind_text(s, 18, ok ? r->blocking : NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the round");
    }
    return store_step_done(st, s, "inserting the round", err);
}

/* The round's energy windows, one row each (windows without a launch or
 * an energy are not measurements and are left out). */
static int insert_windows(sp_store *st, int64_t run_id, const sp_run_record *r, sp_err *err)
{
    sqlite3_stmt *s;
    if (r->energy_windows <= 0)
        return 0;
    if (store_prepare(st, "INSERT INTO energy_windows (run_id, round, window_no, energy_j,"
                          " launches) VALUES (?1, ?2, ?3, ?4, ?5)",
                      &s, "preparing the energy window insert", err))
        return -1;
    int rc = 0;
    for (int i = 0; i < r->energy_windows && rc == 0; i++) {
        if (!(r->energy_launches[i] > 0) || !isfinite(r->energy_j[i]))
            continue;
        sqlite3_reset(s);
        if ((sqlite3_bind_int64(s, 1, run_id) | sqlite3_bind_int(s, 2, r->round) |
             sqlite3_bind_int(s, 3, i) | sqlite3_bind_double(s, 4, r->energy_j[i]) |
             sqlite3_bind_int64(s, 5, r->energy_launches[i])) != SQLITE_OK ||
            sqlite3_step(s) != SQLITE_DONE)
            rc = store_fail(st, err, "inserting an energy window");
    }
    sqlite3_finalize(s);
    return rc;
}

/* Has run_id a row for this round already? */
static int round_stored(sp_store *st, int64_t run_id, int round, int *yes, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT 1 FROM run_rounds WHERE run_id = ?1 AND round = ?2", &s,
                      "looking up the round", err))
        return -1;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int(s, 2, round);
    int step = sqlite3_step(s);
    *yes = step == SQLITE_ROW;
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : store_fail(st, err, "the round");
}

/* A later round of a stored run: its samples follow the earlier ones (an
 * ok run, an ok round), or its failure becomes the run's (the first
 * failure is kept). The run's machine columns fold every round in. */
static int extend_run(sp_store *st, int64_t id, const sp_run_record *r, sp_err *err)
{
    int ok = r->status == SP_RUN_OK;
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "UPDATE runs SET status = CASE WHEN status = 'ok' THEN ?2 ELSE status END,"
                      " error = CASE WHEN status = 'ok' AND ?2 <> 'ok'"
                      " THEN printf('round %d: %s', ?3, ?4) ELSE error END,"
                      " stop_reason = CASE WHEN ?2 = 'ok' THEN stop_reason END,"
                      " batch = CASE WHEN ?2 = 'ok' THEN coalesce(?5, batch) ELSE batch END,"
                      /* a round that gave up on the blocking kernel marks the run */
                      " blocking = CASE WHEN ?2 = 'ok' AND coalesce(blocking, '') <> 'timeout'"
                      " THEN coalesce(?6, blocking) ELSE blocking END"
                      " WHERE id = ?1",
                      &s, "preparing the run update", err))
        return -1;
    int rc = sqlite3_bind_int64(s, 1, id) | bind_text(s, 2, sp_run_status_name(r->status)) |
             sqlite3_bind_int(s, 3, r->round) | bind_text(s, 4, r->error ? r->error : "") |
             bind_int_or_null(s, 5, r->batch, 0) | bind_text(s, 6, r->blocking);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the run update");
    }
    if (store_step_done(st, s, "updating the run", err))
        return -1;
    return ok ? insert_samples(st, id, r, err) : 0;
}

/* The OR of the flags column over rows (SQLite has no bitwise aggregate):
 * the eight SP_MACHINE_* bits one by one. */
#define OR_FLAGS                                                                         \
    "(coalesce(MAX(flags & 1), 0) | coalesce(MAX(flags & 2), 0) | coalesce(MAX(flags & 4), 0)" \
    " | coalesce(MAX(flags & 8), 0) | coalesce(MAX(flags & 16), 0)"                      \
    " | coalesce(MAX(flags & 32), 0) | coalesce(MAX(flags & 64), 0)"                     \
    " | coalesce(MAX(flags & 128), 0))"

/* The median round's value of a phase column (the lower one of an even
 * count), over the ok rounds that have it; NULL when none has. */
#define ROUND_MEDIAN(col)                                                                \
    "(SELECT " col " FROM run_rounds WHERE run_id = ?1 AND status = 'ok' AND " col      \
    " IS NOT NULL ORDER BY " col " LIMIT 1 OFFSET (SELECT (COUNT(" col ") - 1) / 2"      \
    " FROM run_rounds WHERE run_id = ?1 AND status = 'ok'))"

/* The run's machine columns and phases from its rounds: flags OR'd,
 * flagged samples counted, energy per launch over the windows that
 * measured it, each phase the median round's (a failed run keeps the
 * phases its first round stored). */
static int fold_machine(sp_store *st, int64_t id, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "UPDATE runs SET"
                      " flags = (SELECT " OR_FLAGS " FROM run_rounds WHERE run_id = ?1),"
                      " flagged_samples = (SELECT COUNT(*) FROM samples"
                      "   WHERE run_id = ?1 AND flags <> 0),"
                      " joules_per_launch = (SELECT SUM(energy_j) / SUM(launches) FROM"
                      "   energy_windows WHERE run_id = ?1),"
                      " convert_s = coalesce(" ROUND_MEDIAN("convert_s") ", convert_s),"
                      " h2d_s = coalesce(" ROUND_MEDIAN("h2d_s") ", h2d_s),"
                      " d2h_s = coalesce(" ROUND_MEDIAN("d2h_s") ", d2h_s),"
                      " free_s = coalesce(" ROUND_MEDIAN("free_s") ", free_s)"
                      " WHERE id = ?1",
                      &s, "preparing the machine update", err))
        return -1;
    sqlite3_bind_int64(s, 1, id);
    return store_step_done(st, s, "folding the rounds' machine state", err);
}

/* joules_lo / joules_hi: the t interval of the windows' joules per launch
 * (db/stats.c) from their count, mean and squared deviations, summed here
 * in SQL; NULL with fewer than two windows. */
static int fold_energy(sp_store *st, int64_t id, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "WITH w AS (SELECT energy_j / launches AS v FROM energy_windows"
                      "   WHERE run_id = ?1), m AS (SELECT COUNT(*) AS n, AVG(v) AS a FROM w)"
                      " SELECT n, a, (SELECT SUM((v - a) * (v - a)) FROM w) FROM m",
                      &s, "summarising the energy windows", err))
        return -1;
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_finalize(s);
        return store_fail(st, err, "summarising the energy windows");
    }
    int n = sqlite3_column_int(s, 0);
    double lo = NAN, hi = NAN;
    sp_t_interval95(n, sqlite3_column_double(s, 1), sqlite3_column_double(s, 2), &lo, &hi);
    sqlite3_finalize(s);
    if (store_prepare(st, "UPDATE runs SET joules_lo = ?2, joules_hi = ?3 WHERE id = ?1", &s,
                      "preparing the energy interval", err))
        return -1;
    sqlite3_bind_int64(s, 1, id);
    bind_real(s, 2, lo > 0 ? lo : n > 1 ? 0 : NAN);    /* energy is never negative */
    bind_real(s, 3, hi);
    return store_step_done(st, s, "storing the energy interval", err);
}

int store_fold_rounds(sp_store *st, int64_t run_id, sp_err *err)
{
    return fold_machine(st, run_id, err) || fold_energy(st, run_id, err) ? -1 : 0;
}

int store_refold_all(sp_store *st, sp_err *err)
{
    sqlite3_stmt *q;
    if (store_prepare(st, "SELECT DISTINCT run_id FROM run_rounds", &q,
                      "listing the runs to fold", err))
        return -1;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        if (store_fold_rounds(st, sqlite3_column_int64(q, 0), err)) {
            sqlite3_finalize(q);
            return -1;
        }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : store_fail(st, err, "listing the runs to fold");
}

/* The writes of one round, inside the transaction. *old: the run existed
 * with this round already (nothing written). */
static int store_round(sp_store *st, const sp_run_record *r, int64_t *id, int *old,
                       sp_err *err)
{
    int64_t found = 0;
    int have = 0;
    *old = 0;
    if (find_run(st, r, &found, err) || (found && round_stored(st, found, r->round, &have, err)))
        return -1;
    if (have)
        return *id = found, *old = 1, 0;
    int ok = r->status == SP_RUN_OK;
    if (found)
        *id = found;
    if (found ? extend_run(st, found, r, err)
              : insert_run_row(st, r, id, err) || (ok && insert_samples(st, *id, r, err)))
        return -1;
    if (insert_round(st, *id, r, err) || insert_windows(st, *id, r, err) ||
        store_fold_rounds(st, *id, err))
        return -1;
    return ok ? store_restat_run(st, *id, err) : 0;
}

/* Store one round of a run (store.h): all of it or nothing. Samples are
 * stored for 'ok' rounds only. The duplicate check runs inside the
 * (IMMEDIATE, so exclusive) transaction. */
int sp_store_run(sp_store *st, const sp_run_record *r, int64_t *run_id, sp_err *err)
{
    if (!st || !r)
        return sp_fail(err, "sp_store_run: NULL argument");
    if (check_run(r, err))
        return -1;
    int64_t id = 0;
    int old = 0;
    if (store_exec(st, "BEGIN IMMEDIATE", "starting the run transaction", err))
        return sp_fail_prefix(err, "kernel %s", r->kernel.name);
    int failed = store_round(st, r, &id, &old, err);
    if (!failed && !old && st->kill_in_commit > 0 && --st->kill_in_commit == 0)
        raise(SIGKILL);     /* tests: die with the run written but not committed */
    if (failed || store_exec(st, "COMMIT", "committing the run", err)) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return sp_fail_prefix(err, "kernel %s %s", r->kernel.name,
                              r->axes_json ? r->axes_json : "{}");
    }
    if (run_id)
        *run_id = id;
    return old ? 1 : 0;
}
