/*
 * runner.h — the sweep runner: config (libinih), axis values, the plan
 * (matrices x kernels x axis values), the executor and provenance.
 *
 * Config format (configs/default.ini is the worked example):
 *   [sweep]           repetitions (N | auto), warmup, tolerance, database,
 *                     cache (warm | cold), cache_dir, batch (auto | N),
 *                     min_sample_time, rounds, seed, noisy, energy, complex, timeout,
 *                     max_noise, max_time, steps
 *   [matrices]        source = gen:... | file:... | suitesparse:...   (repeatable)
 *                     select = EXPR, limit = N   (SuiteSparse index, fetch/fetch.h)
 *   [fetch]           base_url, jobs
 *   [kernel NAME]     one section per kernel; keys are the kernel's axes,
 *                     values in axis syntax (runner/axis.c); absent axes
 *                     take the kernel's declared defaults
 */
#ifndef SP_RUNNER_H
#define SP_RUNNER_H

#include <stdio.h>
#include "../db/store.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- axis values (runner/axis.c) ------------------------------------------
 * A comma-separated list of items; an item is an integer, `nproc`, or a
 * range `A..B` (step 1), `A..B:+S` / `A..B:S` (additive) or `A..B:*F`
 * (geometric), where A and B may be `nproc`. Values come out sorted
 * ascending without duplicates, each within the axis's bounds. */
typedef struct sp_axis_values {
    int n;
    long *v;
} sp_axis_values;

int sp_axis_parse(const char *axis, const char *text, long nproc, sp_axis_values *out,
                  sp_err *err);
void sp_axis_values_free(sp_axis_values *a);
/* A word axis (`precision = double,single`) takes its words instead of
 * integers; the word of value v on axis, or NULL when the axis takes none. */
const char *sp_axis_word(const char *axis, long value);
/* The harness axes a kernel section may sweep (kernel.h: SP_AXIS_CACHE,
 * SP_AXIS_BATCH): `cache = warm,cold` gives 0, 1; `batch = auto,1,8..64:*2`
 * gives 0 for auto and the launch counts (1..SP_BATCH_MAX). */
int sp_harness_axis_parse(const char *axis, const char *text, sp_axis_values *out,
                          sp_err *err);
int sp_is_harness_axis(const char *name);

/* ---- config (runner/config.c) ------------------------------------------- */
typedef struct sp_kernel_spec {
    const sp_kernel *kernel;
    int line;                               /* line of its [kernel NAME] header */
    sp_axis_values axes[SP_MAX_AXES];       /* index = kernel->axes index */
    char *axis_text[SP_MAX_AXES];           /* as written; NULL = default */
    /* The harness axes the section sweeps (`cache = warm,cold`: 0 warm,
     * 1 cold; `batch = auto,1`: 0 auto); n = 0: [sweep]'s setting. */
    sp_axis_values cache, batch;
    double max_fill;            /* `max_fill` in the section; -1: [sweep]'s, 0: none */
} sp_kernel_spec;

/* What the dataset manager needs from a config ([fetch], select/limit). */
typedef struct sp_fetch_config {
    char *select;               /* [matrices] select = EXPR, or NULL */
    int limit;                  /* [matrices] limit = N; 0 = all */
    char *base_url;             /* [fetch] base_url, or NULL */
    int jobs;                   /* [fetch] jobs; 0 = default */
} sp_fetch_config;

/* Which process runs a combination (isolate.h): a child of its own, or
 * the matrix's worker that keeps its CUDA context between combinations;
 * auto = the worker for GPU kernels, a child each for CPU kernels. */
typedef enum { SP_ISOLATE_AUTO, SP_ISOLATE_MATRIX, SP_ISOLATE_COMBINATION } sp_isolate_mode;
/* "auto", "matrix", "combination"; parse: 0, or -1 for another word. */
const char *sp_isolate_name(sp_isolate_mode m);
int sp_isolate_parse(const char *text, sp_isolate_mode *m);

#define SP_MAX_FILL_DEFAULT 10.0
/* `max_fill = F` (>= 1) or `none` (0), for [sweep] and kernel sections. */
int sp_parse_max_fill(const char *v, double *out, sp_err *err);

/* read_threads / --read-threads: 0 (the default) or 1..this. */
#define SP_READ_THREADS_MAX 4096

typedef struct sp_config {
    char *path;                 /* as given */
    char *text;                 /* the whole file, stored with the sweep */
    int repetitions;            /* default 10 */
    int warmup;                 /* default 2 */
    double tolerance;           /* default 1e-12 */
    double timeout_s;           /* per combination, default 600 (isolation) */
    int auto_reps;              /* repetitions = auto: stop on max_noise/max_time */
    double max_noise;           /* auto: CI half-width / median, default 0.01 */
    double max_time_s;          /* auto: seconds of repetitions, default 2 */
    char *database;             /* default results/results.db */
    char *cache_dir;            /* default NULL (fetch/ decides) */
    sp_complex_policy complex;
    int read_threads;           /* [sweep] read_threads: Matrix Market body parse threads;
                                 * 0 = $SPSWEEP_THREADS, else every CPU (fetch/mm_par.c) */
    sp_isolate_mode isolate;    /* [sweep] isolate, default auto */
    /* the harness (runner/harness.h) */
    int cold;                   /* [sweep] cache = cold: flush caches before each sample */
    int batch;                  /* [sweep] batch = N launches per sample; 0 = auto */
    double min_sample_s;        /* [sweep] min_sample_time; 0 = the defaults below */
    int rounds;                 /* [sweep] rounds: plan executions, each shuffled (default 1) */
    long seed;                  /* [sweep] seed of the shuffles (default 1) */
    double noisy_threshold;     /* [sweep] noisy: half-width / median marking a run noisy */
    double energy_s;            /* [sweep] energy: GPU energy window after the samples; 0 off */
    int energy_windows;         /* [sweep] energy_windows: windows a round (default 3) */
    int steps;                  /* [sweep] steps = 1: time the steps kernels mark
                                 * (sp_exec_mark), one launch a sample; default 0 */
    double max_fill;            /* [sweep] max_fill: a padded layout may store at most this
                                 * many times the CSR's entries; 0 = none (default 10) */
    int nmatrices;
    sp_source *matrices;
    int *source_line;           /* config line of matrices[m], m < nsource_lines */
    int nsource_lines;          /* the config's own sources (the fetch step adds more) */
    int nkernels;
    sp_kernel_spec *kernels;
    int advised_k;              /* [sweep] kernels = advised:K: K configurations per matrix
                                 * (runner/advise_plan.c); 0 = the whole plan */
    char *advise_db;            /* [sweep] advise_db: what advice learns from (default:
                                 * database) */
    sp_fetch_config fetch;
    int ncharts;                /* [chart NAME] sections: what the report draws (charts.h) */
    struct sp_chart_spec *charts;
} sp_config;

/* The shortest sample an automatic batch makes (min_sample_time's
 * defaults): 0.5 ms on the GPU (CUDA events resolve 0.5 us), 1 ms on the
 * CPU (a timer interrupt or a migration is tens of us). */
#define SP_MIN_SAMPLE_GPU_S 0.5e-3
#define SP_MIN_SAMPLE_CPU_S 1e-3
/* The min_sample_time a kernel's runs get under cfg. */
double sp_config_min_sample(const sp_config *cfg, const sp_kernel *k);
/* How the sweep loads cfg's matrices: its cache directory, complex policy
 * and Matrix Market read threads (lo is overwritten). */
void sp_config_load_opts(const sp_config *cfg, sp_load_opts *lo);

/* Kernels to look up beside the registry (tests inject deliberately wrong
 * kernels this way); NULL-terminated, may be NULL. */
typedef const sp_kernel *const *sp_kernel_list;

/* Parse a config file / text. Errors read "PATH:LINE: problem". */
int sp_config_load(const char *path, sp_kernel_list extra, sp_config *cfg, sp_err *err);
int sp_config_parse(const char *path, const char *text, sp_kernel_list extra,
                    sp_config *cfg, sp_err *err);
void sp_config_free(sp_config *cfg);
/* The config line source matrices[m] was written on; 0 when it came from
 * elsewhere (a select expanded by the fetch step). */
int sp_config_source_line(const sp_config *cfg, int m);

/* Replace the values of axis `name` in every kernel that declares it
 * (command-line --axis NAME=VALUES). Error if no kernel has that axis. */
int sp_config_override_axis(sp_config *cfg, const char *name, const char *values,
                            sp_err *err);

/* ---- plan (runner/plan.c) ------------------------------------------------ */
typedef struct sp_combo {
    const sp_kernel *kernel;
    sp_params params;
    double max_fill;            /* its kernel section's, else [sweep]'s; 0 = none */
} sp_combo;

typedef struct sp_plan {
    int ncombos;                /* per matrix */
    sp_combo *combos;
} sp_plan;

/* Expand every kernel's axes as a Cartesian product, in config order. */
int sp_plan_expand(const sp_config *cfg, sp_plan *plan, sp_err *err);
void sp_plan_free(sp_plan *plan);
/* {"threads":4,"blocksize":128} in axis order; "{}" without axes. */
void sp_params_json(const sp_params *p, char *buf, size_t len);
/* "threads=4 blocksize=128"; "-" without axes. */
void sp_params_text(const sp_params *p, char *buf, size_t len);

/* ---- executor (runner/sweep.c) ------------------------------------------ */
typedef struct sp_sweep_opts {
    FILE *log;                  /* progress lines; NULL = silent */
    int no_summary;             /* skip the closing table */
    int fresh;                  /* a new sweep even when one could be resumed */
    int shard_index, shard_count;   /* --shard i/N (1-based); 0/0 = the whole plan */
    const char *only_kernel;    /* --only kernel=GLOB (fnmatch); NULL = all */
    const char *only_matrix;    /* --only matrix=GLOB, on source text or name */
    int dry_run;                /* print what would run and its size; run nothing */
    int live;                   /* one self-rewriting progress line (a terminal) */
} sp_sweep_opts;

typedef struct sp_sweep_result {
    int64_t sweep_id;
    /* what this invocation ran */
    int runs, ok, failed, skipped, errors, matrix_errors;
    int crashed, timeouts;
    int workers;                /* worker processes started (isolate.h) */
    /* the whole sweep as stored when it completed, runs of the earlier
     * invocations it resumed included: what its exit status is decided on */
    sp_sweep_tally sweep;
} sp_sweep_result;

/* The line a sweep ends its log with (runner/sweep.c say_timing), read
 * back by `sweep --gpus` (runner/gpus.c): seconds of machine record,
 * sweep record, runs, closing. */
#define SP_SWEEP_TIMING_FMT                                                              \
    "timing: machine record %.3f s, sweep record %.3f s, runs %.3f s, closing %.3f s"
#define SP_SWEEP_TIMING_SCAN                                                             \
    "timing: machine record %lf s, sweep record %lf s, runs %lf s, closing %lf s"

/* Run the whole sweep into cfg->database. Returns 0 when the sweep
 * completed (individual runs may have failed: see res->sweep), -1 when it
 * could not run at all, could not write its database or was interrupted. */
int sp_sweep_run(const sp_config *cfg, const sp_sweep_opts *o, sp_sweep_result *res,
                 sp_err *err);

/* ---- fetch step (runner/prefetch.c) ------------------------------------- */
typedef struct sp_prefetch_opts {
    int resolve_only;           /* expand select and resolve names, fetch nothing */
    int quiet;
    FILE *log;                  /* NULL: stderr */
} sp_prefetch_opts;

/* Before a sweep: turn the config's select into suitesparse: sources,
 * resolve group-less names against the index, fetch every missing
 * SuiteSparse matrix. A source that cannot be had gets its reason in
 * src->unavailable (the sweep records it as skipped and goes on). -1 only
 * when the step itself cannot run (e.g. out of memory). */
int sp_sweep_prefetch(sp_config *cfg, const sp_prefetch_opts *po, sp_err *err);

/* `spsweep fetch ...`, `spsweep cache ...` and `spsweep list ...`
 * (runner/cmd_fetch.c, cmd_cache.c, cmd_list.c): argv[0] is the command
 * name; return the exit status. */
int sp_cmd_list(int argc, char **argv);
int sp_cmd_fetch(int argc, char **argv);
int sp_cmd_cache(int argc, char **argv);
/* `spsweep slurm ...`, `spsweep merge ...` (both forms), `spsweep sweep
 * --gpus ...` (runner/cmd_slurm.c, cmd_merge.c, gpus.c): same convention. */
int sp_cmd_slurm(int argc, char **argv);
int sp_cmd_merge(int argc, char **argv);
int sp_cmd_sweep_gpus(int argc, char **argv);
/* `spsweep compare A.db B.db ...` (runner/cmd_compare.c): same convention;
 * 3 when a combination is slower in B. */
int sp_cmd_compare(int argc, char **argv);

/* ---- provenance (runner/provenance.c) ----------------------------------- */
typedef struct sp_provenance {
    char git_commit[64];
    char host[256];
    char cpu[256];
    int cpu_count;
    char compiler[128];
    char cflags[256];
    char omp_binding[384];
    int have_gpu;
    char gpu[256];
    char gpu_driver[32];
    char cuda_runtime[32];
    char gpu_reason[512];       /* why no GPU, when have_gpu is 0, in plain words */
    char gpu_detail[256];       /* and CUDA's raw message (stored with skipped runs) */
    int git_dirty;              /* -1 unknown */
    char os[128];               /* PRETTY_NAME of /etc/os-release */
    char kernel_release[128];   /* "Linux 6.1.0-18-amd64" */
    int cpu_sockets, cpu_cores, cpu_threads;
    double mem_total_gib;
    sp_gpu_info gpu_info;       /* when have_gpu */
    char libraries[384];        /* sp_kernel_libraries: librsb, MKL and its threading */
} sp_provenance;

void sp_provenance_collect(sp_provenance *p);
/* The commit spsweep was built from (12 hex digits, or "unknown" outside a
 * git checkout) and whether its source tree differed from it (1, 0; -1
 * unknown): $(BUILD)/version.c, written by the Makefile. */
extern const char sp_build_commit[];
extern const int sp_build_dirty;
/* What `spsweep --version` calls this build: `git describe --always --tags
 * --abbrev=12` of the source tree at build time, "-dirty" as above; ""
 * outside a git checkout, where SP_VERSION names it instead. */
extern const char sp_build_describe[];
#define SP_VERSION "0.1.0"
/* sp_build_commit, "-dirty" appended when sp_build_dirty is 1. */
void sp_build_version(char *buf, size_t len);
/* STREAM triad a = b + s·c with OpenMP on `threads` threads: GB/s (24
 * bytes per element), best of a few passes over arrays far larger than
 * the caches; ~0.2 s (runner/stream.c). */
double sp_stream_triad(int threads);
/* The host's cache roof: the same triad on three arrays in half the
 * last-level cache (*cache_bytes, from sysconf; 0 unknown, and then 0 GB/s),
 * about 64 MiB moved a pass, best of the passes. */
double sp_cache_triad(int threads, uint64_t *cache_bytes);

#ifdef __cplusplus
}
#endif
#endif
