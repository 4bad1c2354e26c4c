/*
 * store.c — the SQLite results store: open (schema + views), sweeps,
 * matrices, runs with their samples. See store.h.
 *
 * The SQL lives in db/schema.sql and db/views.sql and is embedded here at
 * build time with .incbin, so the binary and the sqlite3 CLI read the same
 * definitions. Every statement takes its data through bound parameters.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "store.h"

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
        ".previous\n");
extern const char sp_schema_sql[];
extern const char sp_views_sql[];

/* The schema version schema.sql writes into PRAGMA user_version. */
#define SP_SCHEMA_VERSION 1

/* Current time as ISO-8601 UTC text, evaluated by SQLite. */
#define SQL_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

struct sp_store {
    sqlite3 *db;
    char *path;
};

/* Report an SQLite failure as "PATH: what: sqlite message". */
static int store_fail(const sp_store *st, sp_err *err, const char *what)
{
    if (sqlite3_errcode(st->db) == SQLITE_NOTADB)
        return sp_fail(err, "%s: not an SQLite database (%s)", st->path,
                       sqlite3_errmsg(st->db));
    return sp_fail(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

/* Create every missing directory above the file at path (mkdir -p of its
 * parent). Paths without a directory part need nothing. */
static int make_parent_dirs(const char *path, sp_err *err)
{
    char *dir = strdup(path);
    if (!dir)
        return sp_fail(err, "%s: out of memory", path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = '\0';
        for (char *p = dir + 1; rc == 0; p++) {
            if (*p != '/' && *p != '\0')
                continue;
            char saved = *p;
            *p = '\0';
            struct stat sb;
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                rc = sp_fail(err, "%s: cannot create directory %s: %s", path, dir,
                             strerror(errno));
            else if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
                rc = sp_fail(err, "%s: %s is not a directory", path, dir);
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    free(dir);
    return rc;
}

/* Run SQL text with no parameters (pragmas, the embedded files). */
static int store_exec(sp_store *st, const char *sql, const char *what, sp_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    int rc;
    if (sqlite3_errcode(st->db) == SQLITE_NOTADB)
        rc = store_fail(st, err, what);
    else
        rc = sp_fail(err, "%s: %s: %s", st->path, what,
                     msg ? msg : sqlite3_errmsg(st->db));
    sqlite3_free(msg);
    return rc;
}

/* Prepare one statement, reporting failure with its purpose. */
static int store_prepare(sp_store *st, const char *sql, sqlite3_stmt **s,
                         const char *what, sp_err *err)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
        *s = NULL;
        return store_fail(st, err, what);
    }
    return 0;
}

/* Step a statement that returns no rows to completion, then finalize it. */
static int store_step_done(sp_store *st, sqlite3_stmt *s, const char *what, sp_err *err)
{
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : store_fail(st, err, what);
    sqlite3_finalize(s);
    return rc;
}

/* Bind text, or NULL when s is NULL. */
static int bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
    return s ? sqlite3_bind_text(stmt, i, s, -1, SQLITE_STATIC) : sqlite3_bind_null(stmt, i);
}

/* Bind a double; NaN (unknown) becomes NULL. */
static int bind_real(sqlite3_stmt *stmt, int i, double v)
{
    return isnan(v) ? sqlite3_bind_null(stmt, i) : sqlite3_bind_double(stmt, i, v);
}

/* The single integer a one-row query returns (PRAGMA user_version). */
static int store_query_int(sp_store *st, const char *sql, int64_t *v, sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, sql, &s, sql, err))
        return -1;
    int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : store_fail(st, err, sql);
    if (rc == 0)
        *v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc;
}

/* Connection settings: busy timeout, foreign keys, WAL journal. The first
 * read of the file happens here, so a non-database is reported here. */
static int store_configure(sp_store *st, sp_err *err)
{
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, 10000);
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

/* Apply schema.sql and views.sql in one transaction, refusing a database
 * written by a newer schema. */
static int store_apply_schema(sp_store *st, sp_err *err)
{
    int64_t version;
    if (store_query_int(st, "PRAGMA user_version", &version, err))
        return -1;
    if (version > SP_SCHEMA_VERSION)
        return sp_fail(err, "%s: schema version %lld is newer than this spsweep's (%d)",
                       st->path, (long long)version, SP_SCHEMA_VERSION);
    if (store_exec(st, "BEGIN IMMEDIATE", "starting the schema transaction", err))
        return -1;
    if (store_exec(st, sp_schema_sql, "applying db/schema.sql", err) ||
        store_exec(st, sp_views_sql, "applying db/views.sql", err) ||
        store_exec(st, "COMMIT", "committing the schema", err)) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

/* Open (creating when absent) the database at path with schema and views. */
int sp_store_open(const char *path, sp_store **out, sp_err *err)
{
    if (!out)
        return sp_fail(err, "sp_store_open: no output handle");
    *out = NULL;
    if (!path || !*path)
        return sp_fail(err, "sp_store_open: empty database path");
    if (make_parent_dirs(path, err))
        return -1;
    sp_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return sp_fail(err, "%s: out of memory opening the database", path);
    }
    if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        sp_fail(err, "%s: cannot open database: %s", path,
                st->db ? sqlite3_errmsg(st->db) : "out of memory");
        sp_store_close(st);
        return -1;
    }
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
    if (store_prepare(st,
                      "INSERT INTO sweeps (config_path, config_text, config_hash, git_commit,"
                      " started_at, status, host, cpu, cpu_count, gpu, gpu_driver,"
                      " cuda_runtime, compiler, cflags, omp_binding, repetitions, warmup)"
                      " VALUES (?1, ?2, ?3, ?4, " SQL_NOW ", 'running', ?5, ?6, ?7, ?8,"
                      " ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                      &s, "preparing the sweep insert", err))
        return -1;
    int rc = bind_text(s, 1, m->config_path) | bind_text(s, 2, m->config_text) |
             bind_text(s, 3, m->config_text ? hash : NULL) | bind_text(s, 4, m->git_commit) |
             bind_text(s, 5, m->host) | bind_text(s, 6, m->cpu) |
             sqlite3_bind_int(s, 7, m->cpu_count) | bind_text(s, 8, m->gpu) |
             bind_text(s, 9, m->gpu_driver) | bind_text(s, 10, m->cuda_runtime) |
             bind_text(s, 11, m->compiler) | bind_text(s, 12, m->cflags) |
             bind_text(s, 13, m->omp_binding) | sqlite3_bind_int(s, 14, m->repetitions) |
             sqlite3_bind_int(s, 15, m->warmup);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the sweep");
    }
    if (store_step_done(st, s, "inserting the sweep", err))
        return -1;
    *sweep_id = sqlite3_last_insert_rowid(st->db);
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
    sqlite3_stmt *s;
    if (store_prepare(st, "UPDATE sweeps SET finished_at = " SQL_NOW ", status = ?1"
                          " WHERE id = ?2", &s, "preparing the sweep update", err))
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

/* Bind the matrix's identity and features to the matrix insert. */
static int bind_matrix(sqlite3_stmt *s, const sp_matrix *M, const char *checksum)
{
    const sp_features *f = &M->feat;
    return bind_text(s, 1, M->src.text) | bind_text(s, 2, M->src.name) |
           sqlite3_bind_int(s, 3, f->rows) | sqlite3_bind_int(s, 4, f->cols) |
           sqlite3_bind_int(s, 5, f->nnz) | sqlite3_bind_int(s, 6, f->row_min) |
           sqlite3_bind_int(s, 7, f->row_max) | bind_real(s, 8, f->row_mean) |
           bind_real(s, 9, f->row_std) | sqlite3_bind_int(s, 10, f->empty_rows) |
           sqlite3_bind_int(s, 11, f->bandwidth) | bind_real(s, 12, f->pattern_symmetry) |
           bind_text(s, 13, f->size_class) | bind_text(s, 14, checksum);
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
int sp_store_matrix(sp_store *st, const sp_matrix *M, int64_t *matrix_id, sp_err *err)
{
    if (!st || !M || !matrix_id)
        return sp_fail(err, "sp_store_matrix: NULL argument");
    if (!M->src.text[0])
        return sp_fail(err, "sp_store_matrix: matrix '%s' has no source text", M->src.name);
    char checksum[17];
    snprintf(checksum, sizeof checksum, "%016llx", (unsigned long long)M->checksum);
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO matrices (source, name, rows, cols, nnz, row_min, row_max,"
                      " row_mean, row_std, empty_rows, bandwidth, pattern_symmetry,"
                      " size_class, checksum) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
                      " ?10, ?11, ?12, ?13, ?14) ON CONFLICT (source, checksum) DO NOTHING",
                      &s, "preparing the matrix insert", err))
        return -1;
    if (bind_matrix(s, M, checksum) != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the matrix");
    }
    if (store_step_done(st, s, "inserting the matrix", err))
        return sp_fail_prefix(err, "matrix %s", M->src.text);
    return find_matrix(st, M->src.text, checksum, matrix_id, err);
}

/* 'gpu' when the kernel runs on the device: it says so, or its backend is
 * a CUDA library. */
static const char *kernel_device(const sp_kernel *k)
{
    static const char *const gpu_backends[] = {"cuda", "cusparse", "cub", "thrust", "gpu"};
    if (k->needs_gpu)
        return "gpu";
    for (size_t i = 0; k->backend && i < sizeof gpu_backends / sizeof *gpu_backends; i++)
        if (strcmp(k->backend, gpu_backends[i]) == 0)
            return "gpu";
    return "cpu";
}

/* Check a run record before anything is written. */
static int check_run(const sp_run_record *r, sp_err *err)
{
    if (!r->kernel || !r->kernel->name || !r->kernel->operation)
        return sp_fail(err, "sp_store_run: run without a kernel name and operation");
    const char *k = r->kernel->name;
    if (!r->status)
        return sp_fail(err, "sp_store_run: kernel %s: no status", k);
    int ok = strcmp(r->status, "ok") == 0;
    if (!ok && strcmp(r->status, "failed") != 0 && strcmp(r->status, "skipped") != 0 &&
        strcmp(r->status, "error") != 0)
        return sp_fail(err, "sp_store_run: kernel %s: status '%s' is not ok, failed, "
                       "skipped or error", k, r->status);
    if (ok && (r->nsamples < 1 || !r->samples))
        return sp_fail(err, "sp_store_run: kernel %s: status ok without samples", k);
    if (r->nsamples < 0)
        return sp_fail(err, "sp_store_run: kernel %s: negative sample count %d", k,
                       r->nsamples);
    return 0;
}

/* Insert the runs row; *run_id receives its id. nstored is the number of
 * samples that will follow. */
static int insert_run_row(sp_store *st, const sp_run_record *r, int nstored,
                          int64_t *run_id, sp_err *err)
{
    const sp_kernel *k = r->kernel;
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO runs (sweep_id, matrix_id, kernel, operation, format,"
                      " backend, device, axes, status, error, rel_error, flops, bytes,"
                      " convert_s, h2d_s, d2h_s, warmup, repetitions, created_at) VALUES"
                      " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
                      " ?16, ?17, ?18, " SQL_NOW ")",
                      &s, "preparing the run insert", err))
        return -1;
    int rc = sqlite3_bind_int64(s, 1, r->sweep_id) | sqlite3_bind_int64(s, 2, r->matrix_id) |
             bind_text(s, 3, k->name) | bind_text(s, 4, k->operation) |
             bind_text(s, 5, k->format) | bind_text(s, 6, k->backend) |
             bind_text(s, 7, kernel_device(k)) |
             bind_text(s, 8, r->axes_json ? r->axes_json : "{}") |
             bind_text(s, 9, r->status) | bind_text(s, 10, r->error) |
             bind_real(s, 11, r->rel_error) | bind_real(s, 12, r->flops) |
             bind_real(s, 13, r->bytes) | bind_real(s, 14, r->phases.convert_s) |
             bind_real(s, 15, r->phases.h2d_s) | bind_real(s, 16, r->phases.d2h_s) |
             sqlite3_bind_int(s, 17, r->warmup) | sqlite3_bind_int(s, 18, nstored);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, err, "binding the run");
    }
    if (store_step_done(st, s, "inserting the run", err))
        return -1;
    *run_id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

/* Insert samples[0..n) of run_id, rep = index. */
static int insert_samples(sp_store *st, int64_t run_id, const double *samples, int n,
                          sp_err *err)
{
    sqlite3_stmt *s;
    if (store_prepare(st, "INSERT INTO samples (run_id, rep, seconds) VALUES (?1, ?2, ?3)",
                      &s, "preparing the sample insert", err))
        return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        sqlite3_reset(s);
        if ((sqlite3_bind_int64(s, 1, run_id) | sqlite3_bind_int(s, 2, i) |
             bind_real(s, 3, samples[i])) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE) {
            store_fail(st, err, "inserting a sample");
            rc = sp_fail_prefix(err, "sample %d (%g s)", i, samples[i]);
        }
    }
    sqlite3_finalize(s);
    return rc;
}

/* Insert a run and its samples in one transaction: all of it or nothing.
 * Samples are stored for 'ok' runs only; other statuses carry none. */
int sp_store_run(sp_store *st, const sp_run_record *r, int64_t *run_id, sp_err *err)
{
    if (!st || !r)
        return sp_fail(err, "sp_store_run: NULL argument");
    if (check_run(r, err))
        return -1;
    int nstored = strcmp(r->status, "ok") == 0 ? r->nsamples : 0;
    int64_t id = 0;
    if (store_exec(st, "BEGIN IMMEDIATE", "starting the run transaction", err))
        return sp_fail_prefix(err, "kernel %s", r->kernel->name);
    if (insert_run_row(st, r, nstored, &id, err) ||
        insert_samples(st, id, r->samples, nstored, err) ||
        store_exec(st, "COMMIT", "committing the run", err)) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return sp_fail_prefix(err, "kernel %s %s", r->kernel->name,
                              r->axes_json ? r->axes_json : "{}");
    }
    if (run_id)
        *run_id = id;
    return 0;
}
