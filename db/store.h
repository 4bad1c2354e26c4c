/*
 * store.h — the SQLite results store. Schema and views live in
 * db/schema.sql and db/views.sql (embedded into the binary at build time,
 * readable by anyone with sqlite3). WAL mode, a busy timeout, every
 * statement parameterized. A run and its samples are written in one
 * transaction, so an interrupted sweep never leaves half a run.
 */
#ifndef SP_STORE_H
#define SP_STORE_H

#include <stdint.h>
#include <stdio.h>
#include "../core/records.h"
#include "../core/sparse.h"
#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_store sp_store;

/* Open (creating when absent) the database at path, creating missing
 * directories, applying schema.sql and views.sql. */
int sp_store_open(const char *path, sp_store **st, sp_err *err);
/* Open an existing database to read it only (SQLITE_OPEN_READONLY):
 * nothing is written to the file, so a file without write permission or in
 * a read-only directory can be read. This build's views (db/views.sql) are
 * created as TEMP views of the connection, shadowing the file's own; a
 * database of an older schema version is copied into memory and migrated
 * there (the file keeps its version); a newer one is refused, and so is a
 * file without the spsweep tables. */
int sp_store_open_readonly(const char *path, sp_store **st, sp_err *err);
void sp_store_close(sp_store *st);
/* The raw handle, for tests and the report. */
struct sqlite3 *sp_store_db(sp_store *st);
/* The schema version this build writes into PRAGMA user_version (and
 * reads, migrating older ones): `spsweep --version` says it. */
int sp_store_schema_version(void);

/* Provenance of one sweep. NULL strings are stored as NULL, and so are the
 * version-2 numbers at 0 (doubles also when negative or NaN): unknown.
 * git_dirty is 0 or 1, -1 when unknown. */
typedef struct sp_sweep_meta {
    const char *config_path;
    const char *config_text;
    const char *git_commit;
    const char *host;           /* hostname */
    const char *cpu;            /* model name from /proc/cpuinfo */
    int cpu_count;
    const char *gpu;            /* device name, or NULL */
    const char *gpu_driver;     /* e.g. "13.0" */
    const char *cuda_runtime;
    const char *compiler;       /* __VERSION__ */
    const char *cflags;
    const char *omp_binding;    /* "OMP_PROC_BIND=close OMP_PLACES=cores" */
    int repetitions, warmup;
    /* schema version 2 */
    const char *plan_hash;      /* identity of the plan and its settings */
    const char *binary_hash;    /* identity of the executable */
    int shard_index, shard_count;   /* 0, 0: not sharded */
    double timeout_s;
    int repetitions_auto;
    double max_noise, max_time_s;
    int git_dirty;
    const char *os, *kernel_release;
    int cpu_sockets, cpu_cores, cpu_threads;
    double mem_total_gib;
    int gpu_sm_count;
    double gpu_mem_gib;
    int gpu_clock_mhz, gpu_mem_clock_mhz;
    double host_triad_gbs;
    int host_triad_threads;
    double device_copy_gbs;
    /* schema version 3 */
    const char *isolate;        /* "auto", "matrix", "combination" */
    /* schema version 4: the harness */
    int rounds;                 /* 0 = unknown */
    long seed;
    const char *cache;          /* "warm" | "cold" */
    int batch;                  /* 0 = auto */
    double min_sample_s;        /* 0 = the defaults */
    double noisy_threshold;     /* 0 = unknown */
    /* schema version 6 */
    const char *libraries;      /* outside libraries and versions; NULL or "": none */
    /* version 7: the cache roofs (0: not measured) */
    double device_l2_gbs, host_cache_gbs;
    int64_t device_l2_bytes, host_cache_bytes;
} sp_sweep_meta;

/* A zeroed meta with git_dirty = -1: every version-2 field unknown. */
void sp_sweep_meta_init(sp_sweep_meta *m);

/* Insert a sweep row (config_hash = XXH3 hex of config_text, started_at =
 * now, status 'running'). */
int sp_store_begin_sweep(sp_store *st, const sp_sweep_meta *m, int64_t *sweep_id,
                         sp_err *err);
/* Set finished_at = now and the final status ('done', 'failed', 'interrupted'). */
int sp_store_end_sweep(sp_store *st, int64_t sweep_id, const char *status, sp_err *err);

/* Resume (runner/exec/resume.c): the latest sweep with this plan hash, binary
 * hash and shard (0/0 = none); *sweep_id = 0 when there is none. */
int sp_store_find_sweep(sp_store *st, const char *plan_hash, const char *binary_hash,
                        int shard_index, int shard_count, int64_t *sweep_id, sp_err *err);
/* Mark a sweep running again (finished_at NULL) before it continues. */
int sp_store_reopen_sweep(sp_store *st, int64_t sweep_id, sp_err *err);
/* Call fn(source, kernel, axes_json, round) for every round of every run
 * stored in sweep_id. */
typedef int (*sp_run_key_fn)(void *user, const char *source, const char *kernel,
                             const char *axes, int round, sp_err *err);
int sp_store_each_run_key(sp_store *st, int64_t sweep_id, sp_run_key_fn fn, void *user,
                          sp_err *err);

/* Record a matrix the sweep could not load or fetch: status SP_RUN_SKIPPED
 * or SP_RUN_ERROR, with the reason. */
int sp_store_matrix_failure(sp_store *st, int64_t sweep_id, const char *source,
                            sp_run_status status, const char *reason, sp_err *err);

/* A sweep's runs by status, and the matrices it could not load or fetch:
 * every run it holds, those of earlier invocations it resumed included. */
typedef struct sp_sweep_tally {
    int runs, ok, failed, skipped, errors, crashed, timeouts;
    int matrix_failures;
} sp_sweep_tally;
int sp_store_sweep_tally(sp_store *st, int64_t sweep_id, sp_sweep_tally *t, sp_err *err);

/* Insert the matrix (source, name, features, checksum) or return the id of
 * the identical row already there (same source and checksum). fetch/matrix.h
 * sp_matrix_identity(&M) makes the record of a loaded matrix. */
int sp_store_matrix(sp_store *st, sp_matrix_record m, int64_t *matrix_id, sp_err *err);

typedef struct sp_run_record {
    int64_t sweep_id, matrix_id;
    sp_kernel_ident kernel;     /* kernels/kernel.h sp_kernel_identity */
    const char *axes_json;      /* {"threads":4} — canonical, keys in axis order */
    sp_run_status status;       /* any but SP_RUN_ABORTED (core/status.h) */
    const char *error;          /* NULL when ok */
    double rel_error;           /* NAN when not checked */
    double flops, bytes;        /* op->flops / op->bytes for this matrix */
    sp_phases phases;
    int warmup;
    int nsamples;               /* 0 unless status is SP_RUN_OK */
    const double *samples;      /* seconds per timed repetition */
    const char *stop_reason;    /* ok runs: "count" | "noise" | "time"; NULL = "count" */
    const char *rate_unit;      /* NULL: the kernel's operation's (kernel.rate_unit) */
    sp_need need;               /* what kernel->need stated; 0 = not stated */
    /* version 4: the harness and the machine (one round of the run) */
    int round;                  /* 0-based round of `rounds = R` */
    int batch;                  /* launches per sample; 0 = not known */
    const char *cache;          /* "warm" | "cold"; NULL = not known */
    /* version 10: "off" | "on" | "timeout" (runner/exec/harness.h
     * sp_blocking); NULL = not known (a run that did not end ok) */
    const char *blocking;
    const int32_t *sample_flags;    /* per sample SP_MACHINE_* bits; NULL = none */
    unsigned flags;             /* SP_MACHINE_* bits of the round */
    /* version 5: the GPU energy windows of the round (none: 0 windows) */
    int energy_windows;
    const double *energy_j;             /* energy_windows of them */
    const int64_t *energy_launches;     /* launches in each window */
    const char *state_before, *state_after;     /* machine state JSON; NULL = none */
    const char *kernel_info;    /* version 5: the kernel's JSON facts (sp_kernel.info) */
    const char *steps;          /* version 8: the round's step medians, a JSON object
                                 * ({"histogram":1.2e-05,...}); NULL = not timed */
} sp_run_record;

/* Store one round of a run, its samples and their statistics, in one
 * transaction. The first round stored inserts the run; a later round
 * (another r->round) adds its samples to it, recomputes the statistics,
 * and turns an ok run into the round's status when that round failed (a
 * run is ok only when every round was; a failed run's samples are kept
 * but no view shows them). A round already stored for this sweep, matrix,
 * kernel and axes is not stored again: returns 1 with *run_id = the
 * stored run's id (resume and merge rely on this; it makes a duplicate
 * impossible even with two writers). */
int sp_store_run(sp_store *st, const sp_run_record *r, int64_t *run_id, sp_err *err);

/* The divisor of a rate unit (its first letter: "GFLOPS" 1e9, "Mkeys/s"
 * 1e6; NULL counts as GFLOPS), from the views' rate_scales: the progress
 * line divides by what run_stats divides by. 1 for a unit without a known
 * prefix or when the database cannot say. */
double sp_store_rate_scale(sp_store *st, const char *unit);

/* Merge shard databases (db/merge.c): see runner/cli/main.c `spsweep merge`. */
typedef struct sp_merge_result {
    int sweeps, runs, duplicates, matrices, matrix_failures;
} sp_merge_result;
int sp_store_merge(const char *out_path, const char *const *in_paths, int nin, int force,
                   sp_merge_result *res, sp_err *err);

/* A shard database's latest sweep, for `spsweep merge --shards`
 * (db/shard_status.c; opened read-only). */
typedef struct sp_shard_info {
    int64_t sweep_id;
    char *config_path, *config_text, *status;
    int shard_index, shard_count;       /* 0/0: not a shard */
} sp_shard_info;
int sp_store_shard_info(const char *path, sp_shard_info *info, sp_err *err);
void sp_shard_info_free(sp_shard_info *info);
/* One (matrix source, kernel, axes JSON) pair of the plan. */
typedef struct sp_pair_key {
    const char *source, *kernel, *axes;
} sp_pair_key;
/* How many keys sweep_id of path covers: stored as a run of any status,
 * or its matrix recorded as one that could not be loaded. */
int sp_store_count_covered(const char *path, int64_t sweep_id, const sp_pair_key *keys,
                           int n, int *covered, sp_err *err);

/* 0 when id is a sweep of db's schema ("main", or an attached one);
 * otherwise fails with "OPTION ID: no such sweep in PATH (sweeps 1-3)"
 * (db/sweep_ids.c). For --sweep and --base-sweep of export and report. */
int sp_store_check_sweep(struct sqlite3 *db, const char *schema, const char *path,
                         const char *option, int64_t id, sp_err *err);

/* What sp_store_export writes (0 and 1 as the int `json` it once took). */
enum {
    SP_EXPORT_CSV = 0,      /* RFC 4180 with a header row */
    SP_EXPORT_JSON = 1,     /* one array of objects; axes, kernel_info as objects */
    SP_EXPORT_MARKDOWN = 2, /* a GitHub-flavoured Markdown table */
    SP_EXPORT_GBENCH = 3,   /* Google Benchmark's JSON (run_stats only) */
};

/* Write one view or table (`what`: run_stats by default, runs, samples,
 * speedup, best_runs, run_modes, failures, matrices, sweeps) of sweep
 * (0: the latest; another id must be a sweep of the database) to out in
 * format SP_EXPORT_* (db/export.c). SP_EXPORT_GBENCH takes run_stats only
 * and chooses the time unit itself (sp_store_export_gbench). */
int sp_store_export(const char *path, const char *what, int64_t sweep, int format, FILE *out,
                    sp_err *err);

/* The ok runs of sweep (0: the latest) as Google Benchmark's JSON output
 * (db/export_gbench.c): its context, then per run an "iteration" entry
 * named kernel/matrix/axis=value... with the median as real_time and
 * cpu_time, and, with two or more samples, the aggregates mean, median,
 * stddev and cv. time_unit "ns", "us", "ms" or "s"; NULL or "auto": the
 * largest in which the fastest run's median is at least 100. */
int sp_store_export_gbench(const char *path, int64_t sweep, const char *time_unit, FILE *out,
                           sp_err *err);

/* Print the end-of-sweep table: per matrix, the best kernel and its axes,
 * its rate (from the median) and speedup against the serial baseline; then
 * counts of runs by status, failure reasons and unloadable matrices. */
int sp_store_print_summary(sp_store *st, int64_t sweep_id, FILE *out, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
