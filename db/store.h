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
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_store sp_store;

/* Open (creating when absent) the database at path, creating missing
 * directories, applying schema.sql and views.sql. */
int sp_store_open(const char *path, sp_store **st, sp_err *err);
void sp_store_close(sp_store *st);
/* The raw handle, for tests and the report. */
struct sqlite3 *sp_store_db(sp_store *st);

/* Provenance of one sweep. NULL strings are stored as NULL. */
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
} sp_sweep_meta;

/* Insert a sweep row (config_hash = XXH3 hex of config_text, started_at =
 * now, status 'running'). */
int sp_store_begin_sweep(sp_store *st, const sp_sweep_meta *m, int64_t *sweep_id,
                         sp_err *err);
/* Set finished_at = now and the final status ('done', 'failed', 'interrupted'). */
int sp_store_end_sweep(sp_store *st, int64_t sweep_id, const char *status, sp_err *err);

/* Insert the matrix (source, name, features, checksum) or return the id of
 * the identical row already there (same source and checksum). */
int sp_store_matrix(sp_store *st, const sp_matrix *M, int64_t *matrix_id, sp_err *err);

typedef struct sp_run_record {
    int64_t sweep_id, matrix_id;
    const sp_kernel *kernel;
    const char *axes_json;      /* {"threads":4} — canonical, keys in axis order */
    const char *status;         /* "ok" | "failed" | "skipped" | "error" */
    const char *error;          /* NULL when ok */
    double rel_error;           /* NAN when not checked */
    double flops, bytes;        /* op->flops / op->bytes for this matrix */
    sp_phases phases;
    int warmup;
    int nsamples;               /* 0 unless status is "ok" */
    const double *samples;      /* seconds per timed repetition */
} sp_run_record;

/* Insert a run and its samples in one transaction. */
int sp_store_run(sp_store *st, const sp_run_record *r, int64_t *run_id, sp_err *err);

/* Print the end-of-sweep table: per matrix, the best kernel and its axes,
 * GFLOPS (from the median) and speedup against spmv_csr_serial; then
 * counts of failed and skipped runs. */
int sp_store_print_summary(sp_store *st, int64_t sweep_id, FILE *out, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
