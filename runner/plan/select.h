/* select.h — the part of the plan one process runs (runner/plan/select.c) and
 * the cost estimate that balances shards (runner/plan/cost.c). */
#ifndef SP_SELECT_H
#define SP_SELECT_H

#include <stdio.h>
#include "plan.h"

typedef struct sp_work {
    int matrix, combo;          /* indexes into cfg->matrices and plan->combos */
    int order;                  /* matrix * ncombos + combo: plan order */
    double cost;                /* estimated seconds (runner/plan/cost.c) */
    int round;                  /* 0-based round (runner/plan/rounds.c) */
} sp_work;

typedef struct sp_worklist {
    sp_work *w;
    int n;
    double total_cost;
    struct sp_advised *advised; /* `kernels = advised:K`: the advice (advise_plan.h) */
} sp_worklist;

int sp_select(const sp_config *cfg, const sp_plan *plan, const sp_sweep_opts *o,
              sp_worklist *wl, sp_err *err);
void sp_worklist_free(sp_worklist *wl);

/* The selection executed `rounds` times (runner/plan/rounds.c): with one round
 * the list stays in plan order; with more, every round is a fresh shuffle
 * seeded by (seed, round) — the matrices in a random order, and the pairs
 * of each matrix in a random order — so a matrix is still loaded once a
 * round and drift between rounds shows in the samples. Deterministic for a
 * seed; every pair appears once per round. */
int sp_worklist_rounds(sp_worklist *wl, int rounds, long seed, sp_err *err);
/* Pairs of the plan no selection holds because the kernel's operation
 * cannot take the workload (spmv on keys); why (when not NULL) says so in
 * one line. */
int sp_select_unfit(const sp_config *cfg, const sp_plan *plan, char *why, size_t len);
/* Keep the part of shard index (1-based) of count of wl (plan order);
 * load_s[m]: seconds to load matrix m (runner/plan/split.c). */
int sp_shard_keep(sp_worklist *wl, const double *load_s, int index, int count, sp_err *err);

/* Before anything runs: unreadable file: sources (with their config line)
 * and a large plan (its runs and estimated time), on stderr and, when
 * plan_out is given (the dry run), as its first comment lines
 * (plancheck.c). */
void sp_plan_warn(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                  FILE *plan_out);

/* --dry-run: the selection, one line per run, and its size (dryrun.c). */
int sp_sweep_print_plan(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                        FILE *out, sp_err *err);

/* Nonzeros of a source, estimated without loading it (runner/plan/cost.c). */
double sp_estimate_nnz(const sp_source *src);
/* The same for every matrix of cfg, into nnz[cfg->nmatrices]; suitesparse
 * sources from the cached index when there is one. */
void sp_estimate_config_nnz(const sp_config *cfg, double *nnz);

/* What is known of a matrix before it is loaded: its shape and, for the
 * entries a padded format stores, its longest row and its diagonals. */
typedef struct sp_shape {
    double rows, cols, nnz;
    double row_max;             /* entries of the longest row */
    double ndiags;              /* distinct diagonals (col - row offsets) */
    double long_rows;           /* the generator's: rows of row_max among far shorter ones */
    double slice_growth;        /* the generator's: a sliced ELL's growth a slice doubling */
    int known;                  /* 1: from the generator; 0: unknown, taken as scattered */
} sp_shape;
/* The shape of every matrix of cfg, into sh[cfg->nmatrices]. */
void sp_estimate_config_shapes(const sp_config *cfg, sp_shape *sh);

/* One run's estimated seconds, by part (runner/plan/cost.c). */
typedef struct sp_run_cost {
    double stored;              /* entries the kernel's format stores */
    double run;                 /* its process: start, check, store (a CUDA context) */
    double convert;             /* the kernel's format built on the host */
    double transfer;            /* host->device and device->host copies (GPU) */
    double timed;               /* warm-up and timed repetitions */
    double total;               /* their sum, at most the timeout + run */
    int capped;                 /* 1: the sum exceeded the timeout */
    int refused;                /* 1: its layout would be above max_fill (the sweep skips
                                   it before converting): the run costs its process */
} sp_run_cost;
/* The cost of one run of k with p on a matrix of shape sh under cfg's
 * repetitions, warm-up, timeout and isolation, and the combination's
 * max_fill (0: none). A DIA or ELL layout on a generated matrix (its shape
 * known) storing more than max_fill times the nonzeros is counted as
 * refused, as the sweep will refuse it; HLL and SELL, whose padding the
 * estimate only brackets, and matrices of unknown structure are counted
 * as run. */
void sp_estimate_run(const sp_shape *sh, const sp_config *cfg, const sp_kernel *k,
                     const sp_params *p, double max_fill, sp_run_cost *c);
/* Estimated seconds of loading a matrix of nnz nonzeros; and of every
 * load the list makes (a matrix once per process and round, its GPU
 * worker started with its first GPU pair), their count in *nloads. */
double sp_estimate_load_s(double nnz);
double sp_estimate_loads(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                         const sp_shape *sh, int *nloads);

#endif
