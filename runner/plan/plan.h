/*
 * plan.h — runner/plan/'s header: axis values, the sweep config
 * (libinih) and the plan (matrices x kernels x axis values). The wing at
 * the bottom of runner/: it includes db/, fetch/ and kernels/ only.
 *
 * Config format (configs/default.ini is the worked example):
 *   [sweep]           repetitions (N | auto), warmup, tolerance, database,
 *                     cache (warm | cold), cache_dir, batch (auto | N),
 *                     blocking (off | on),
 *                     min_sample_time, rounds, seed, noisy, energy, complex, timeout,
 *                     max_noise, max_time, steps
 *   [matrices]        source = gen:... | file:... | suitesparse:...   (repeatable)
 *                     select = EXPR, limit = N   (SuiteSparse index, fetch/fetch.h)
 *   [fetch]           base_url, jobs
 *   [kernel NAME]     one section per kernel; keys are the kernel's axes,
 *                     values in axis syntax (runner/plan/axis.c); absent axes
 *                     take the kernel's declared defaults
 */
#ifndef SP_PLAN_H
#define SP_PLAN_H

#include <stdio.h>
#include "../../db/store.h"
#include "../../kernels/kernel.h"
#include "../../fetch/matrix.h"
#include "limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- axis values (runner/plan/axis.c) ---------------------------------------
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
/* Every value of v is one the kernel takes on its axis a (sp_axis.valid);
 * -1 naming the kernel, the axis, the value and what it takes. */
int sp_axis_check_valid(const sp_kernel *k, int a, const sp_axis_values *v, long nproc,
                        sp_err *err);
void sp_axis_values_free(sp_axis_values *a);
/* A word axis (`precision = double,single`) takes its words instead of
 * integers; the word of value v on axis, or NULL when the axis takes none. */
const char *sp_axis_word(const char *axis, long value);
/* The harness axes a kernel section may sweep (kernel.h: SP_AXIS_CACHE,
 * SP_AXIS_BATCH, SP_AXIS_BLOCKING): `cache = warm,cold` gives 0, 1;
 * `batch = auto,1,8..64:*2` gives 0 for auto and the launch counts
 * (1..SP_BATCH_MAX); `blocking = off,on` gives 0, 1. */
int sp_harness_axis_parse(const char *axis, const char *text, sp_axis_values *out,
                          sp_err *err);
int sp_is_harness_axis(const char *name);

/* ---- config (runner/plan/config.c) --------------------------------------- */
typedef struct sp_kernel_spec {
    const sp_kernel *kernel;
    int line;                               /* line of its [kernel NAME] header */
    sp_axis_values axes[SP_MAX_AXES];       /* index = kernel->axes index */
    char *axis_text[SP_MAX_AXES];           /* as written; NULL = default */
    /* The harness axes the section sweeps (`cache = warm,cold`: 0 warm,
     * 1 cold; `batch = auto,1`: 0 auto; `blocking = off,on`); n = 0:
     * [sweep]'s setting. */
    sp_axis_values cache, batch, blocking;
    double max_fill;            /* `max_fill` in the section; -1: [sweep]'s, 0: none */
} sp_kernel_spec;

/* What the dataset manager needs from a config ([fetch], select/limit). */
typedef struct sp_fetch_config {
    char *select;               /* [matrices] select = EXPR, or NULL */
    int limit;                  /* [matrices] limit = N; 0 = all */
    char *base_url;             /* [fetch] base_url, or NULL */
    int jobs;                   /* [fetch] jobs; 0 = default */
} sp_fetch_config;

/* Which process runs a combination (runner/isolate/isolate.h): a child of its own, or
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
    /* the harness (runner/exec/harness.h) */
    int cold;                   /* [sweep] cache = cold: flush caches before each sample */
    int batch;                  /* [sweep] batch = N launches per sample; 0 = auto */
    int blocking;               /* [sweep] blocking = on (the default): GPU samples behind a
                                 * blocking kernel (runner/exec/harness.h) */
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
                                 * (runner/plan/advise_plan.c); 0 = the whole plan */
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
/* `kernels = advised:K` -> K (1..1000); anything else is refused, naming
 * the key (config.c; runner/plan/advise_plan.c keeps the advised runs). */
int sp_parse_advised(const char *v, int *k, sp_err *err);

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

/* ---- plan (runner/plan/plan.c) ------------------------------------------- */
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

/* ---- a sweep's options (runner/exec/sweep.h runs it) ----------------------
 * Here, with the plan, because the selection (select.h: --only, --shard)
 * and the dry run read them before anything runs. */
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

#ifdef __cplusplus
}
#endif
#endif
