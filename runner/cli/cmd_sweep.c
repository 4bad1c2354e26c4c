/*
 * cmd_sweep.c — `spsweep sweep CONFIG [options]` and `spsweep plan CONFIG
 * [options]`: the config read, the command line's overrides applied (the
 * same options, args.h), then the sweep run (runner/exec/sweep.c), or,
 * for plan, what it would run printed and nothing run. `sweep --gpus`
 * goes to runner/scale/gpus.c once this table has checked its options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../exec/sweep.h"
#include "../scale/shards.h"
#include "args.h"
#include "commands.h"

static const sp_cli_opt sweep_opts[] = {
    OPT_ROW_DB, OPT_ROW_REPS, OPT_ROW_WARMUP, OPT_ROW_ROUNDS, OPT_ROW_TIMEOUT,
    OPT_ROW_ISOLATE, OPT_ROW_AXIS, OPT_ROW_ONLY, OPT_ROW_SHARD,
    {"gpus", "all|LIST", OPT_GPUS, "one shard per GPU (all, or device numbers 0,1,...), "
     "run in parallel with CUDA_VISIBLE_DEVICES set, merged into --db at the end; not "
     "with --shard"},
    {"cache-dir", "DIR", OPT_CACHE, "matrix cache (default: the config's cache_dir, "
     "$SPSWEEP_CACHE, $XDG_CACHE_HOME/spsweep or ~/.cache/spsweep); the SuiteSparse "
     "matrices the config names are fetched into it first"},
    OPT_ROW_COMPLEX, OPT_ROW_READ_THREADS,
    {"new", NULL, OPT_NEW, "start a new sweep; by default a sweep of the same plan and "
     "binary in the database is resumed, skipping every combination it already holds"},
    {"dry-run", NULL, OPT_DRY_RUN, "print the plan, as `spsweep plan` does, and run "
     "nothing"},
    {"quiet", NULL, OPT_QUIET, "no progress lines (failures are still said)"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_sweep = {
    .name = "sweep",
    .synopsis = "CONFIG [options]\nCONFIG --gpus all|LIST [options]",
    .summary = "run every matrix x kernel x axis combination of a config into a database",
    .about = "Runs every combination of CONFIG's matrices, kernels and axis values: each "
             "one prepared, warmed up, timed for its repetitions and checked against a "
             "serial double-precision reference, every sample stored in the SQLite "
             "database, and a summary table printed at the end. An interrupted sweep is "
             "resumed by the same command.",
    .opts = sweep_opts,
    .exits = "0 every run of the sweep succeeded; "
             "1 the sweep could not run or was interrupted: a bad config or option value, "
             "a database that cannot be written, a signal (what was stored is kept); "
             "2 the sweep holds runs that failed their check, ended in an error, crashed "
             "or timed out, or matrices that could not be loaded (counted over the whole "
             "sweep, so resuming it exits the same); or a command line that cannot be "
             "parsed",
    .examples = "configs/default.ini\n"
                "configs/spmv.ini --axis threads=1,2 --only kernel=spmv_csr_omp\n"
                "configs/spmv.ini --gpus all --db results/gpu.db",
};

static const sp_cli_opt plan_opts[] = {
    OPT_ROW_REPS, OPT_ROW_WARMUP, OPT_ROW_ROUNDS, OPT_ROW_TIMEOUT, OPT_ROW_ISOLATE,
    OPT_ROW_AXIS, OPT_ROW_ONLY, OPT_ROW_SHARD, OPT_ROW_CACHE,
    {"db", "PATH", OPT_DB, "accepted as sweep takes it; the plan reads and writes no "
     "database"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_plan = {
    .name = "plan",
    .synopsis = "CONFIG [options]",
    .summary = "what a sweep of a config would run, with its estimated time; runs nothing",
    .about = "Prints the runs a sweep of CONFIG would make with the same options (its "
             "selection: --only, --shard, workloads an operation cannot take left out), "
             "one per line under a header: matrix, kernel, axis values, the entries the "
             "kernel's format stores and the run's estimated seconds. The closing lines "
             "give the count and the estimated time, split into loading the matrices "
             "(generating or reading them, features, reference), converting them to each "
             "kernel's format, host<->device transfers, the timed repetitions, and each "
             "run's process and storing; padded formats (ELL, HLL, SELL, DIA) cost by the "
             "entries they store, so DIA on a matrix with many diagonals counts as what "
             "it is. Nothing is loaded, run or written; `sweep --dry-run` prints the "
             "same.",
    .opts = plan_opts,
    .exits = "0 the plan was printed; "
             "1 a bad config or option value; "
             "2 a command line that cannot be parsed",
    .examples = "configs/default.ini\n"
                "configs/spmv.ini --only kernel=spmv_dia_* --shard 1/4",
};

/* Apply command-line overrides to a loaded config. */
static int apply_cli(const cli *c, sp_config *cfg)
{
    sp_err err;
    if (c->reps && !strcmp(c->reps, "auto"))
        cfg->auto_reps = 1, cfg->repetitions = 10;
    else if (c->reps && !(cfg->auto_reps = 0) &&
             sp_args_int("repetitions", c->reps, 1, 1000000, &cfg->repetitions))
        return 1;
    if (c->timeout) {
        char *end;
        double t = strtod(c->timeout, &end);
        if (!*c->timeout || *end || !(t > 0) || t > 1e9)
            return sp_args_die("--timeout: expected a positive number of seconds");
        cfg->timeout_s = t;
    }
    if (c->isolate && sp_isolate_parse(c->isolate, &cfg->isolate))
        return sp_args_die("--isolate: expected 'auto', 'matrix' or 'combination'");
    if ((c->warmup && sp_args_int("warmup", c->warmup, 0, 1000000, &cfg->warmup)) ||
        (c->rounds && sp_args_int("rounds", c->rounds, 1, 1000, &cfg->rounds)) ||
        (c->read_threads &&
         sp_args_int("read-threads", c->read_threads, 0, SP_READ_THREADS_MAX, &cfg->read_threads)) ||
        sp_args_complex(c->complex, &cfg->complex))
        return 1;
    for (int i = 0; i < c->naxes; i++) {
        char name[64];
        const char *eq = strchr(c->axes[i], '=');
        if (!eq || eq == c->axes[i] || eq - c->axes[i] >= (long)sizeof name)
            return sp_args_die("--axis expects NAME=VALUES, e.g. --axis threads=1,2,4");
        snprintf(name, sizeof name, "%.*s", (int)(eq - c->axes[i]), c->axes[i]);
        if (sp_config_override_axis(cfg, name, eq + 1, &err))
            return sp_args_die(err.msg);
    }
    char *s;
    if (c->db && (!(s = strdup(c->db)) || (free(cfg->database), cfg->database = s, 0)))
        return sp_args_die("out of memory");
    if (c->cache_dir && (!(s = strdup(c->cache_dir)) ||
                         (free(cfg->cache_dir), cfg->cache_dir = s, 0)))
        return sp_args_die("out of memory");
    return 0;
}

static int load_config(const cli *c, sp_config *cfg)
{
    sp_err err;
    if (c->nargs != 1)
        return sp_args_die("expected one CONFIG file (e.g. configs/default.ini)");
    if (sp_config_load(c->args[0], NULL, cfg, &err))
        return sp_args_die(err.msg);
    if (apply_cli(c, cfg)) {
        sp_config_free(cfg);
        return 1;
    }
    return 0;
}

/* --shard i/N and --only kernel=GLOB,matrix=GLOB into the sweep options;
 * globs point into buf. */
static int sweep_selection(const cli *c, sp_sweep_opts *o, char *buf, size_t len)
{
    char tail;
    if (c->shard && (sscanf(c->shard, "%d/%d%c", &o->shard_index, &o->shard_count, &tail) != 2 ||
                     o->shard_count < 1 || o->shard_count > 100000 || o->shard_index < 1 ||
                     o->shard_index > o->shard_count))
        return sp_args_die("--shard expects i/N with 1 <= i <= N, e.g. --shard 2/4");
    if (!c->only)
        return 0;
    if (strlen(c->only) >= len)
        return sp_args_die("--only: too long");
    strcpy(buf, c->only);
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        if (!strncmp(item, "kernel=", 7))
            o->only_kernel = item + 7;
        else if (!strncmp(item, "matrix=", 7))
            o->only_matrix = item + 7;
        else
            return sp_args_die("--only expects kernel=GLOB and/or matrix=GLOB, comma-separated");
    }
    return 0;
}

/* The exit status of a sweep that ran to its end (docs/sweeps.md, "Exit status"):
 * 2 when it holds runs that failed their check, ended in an error, crashed
 * or timed out, or matrices it could not load; 0 otherwise. Counted over
 * every run the sweep holds, so resuming it never changes the answer. */
static int sweep_exit_status(const sp_sweep_tally *t)
{
    if (!t->failed && !t->errors && !t->crashed && !t->timeouts && !t->matrix_failures)
        return 0;
    fprintf(stderr, "spsweep: of the sweep's %d runs, %d failed their check, %d ended in an "
            "error, %d crashed, %d timed out; %d matrices could not be loaded (details above "
            "and in the database)\n", t->runs, t->failed, t->errors, t->crashed, t->timeouts,
            t->matrix_failures);
    return 2;
}

static int cmd_sweep(const cli *c)
{
    sp_config cfg;
    char only[1024];
    sp_sweep_opts o = {.log = c->quiet ? NULL : stdout, .fresh = c->fresh,
                       .dry_run = c->dry_run, .live = !c->quiet && isatty(STDOUT_FILENO)};
    if (sweep_selection(c, &o, only, sizeof only) || load_config(c, &cfg))
        return 1;
    if (c->dry_run && !o.log)
        o.log = stdout;
    sp_sweep_result res;
    sp_err err;
    sp_prefetch_opts po = {.quiet = c->quiet, .resolve_only = c->dry_run};
    int rc = sp_sweep_prefetch(&cfg, &po, &err) || sp_sweep_run(&cfg, &o, &res, &err);
    sp_config_free(&cfg);
    if (rc)
        return sp_args_die(err.msg);
    return sweep_exit_status(&res.sweep);
}

int sp_cmd_sweep(int argc, char **argv)
{
    cli c;
    int rc = sp_args_parse(&sp_cli_sweep, argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    /* every option checked by the table above; gpus.c splits them anew */
    if (c.gpus)
        return sp_cmd_sweep_gpus(argc, argv);
    return cmd_sweep(&c);
}

/* the same selection as the sweep would make (--only, --shard, workloads
 * an operation cannot take), printed, nothing run */
static int cmd_plan(const cli *c)
{
    cli p = *c;
    p.dry_run = 1;
    return cmd_sweep(&p);
}

int sp_cmd_plan(int argc, char **argv)
{
    return sp_args_run(&sp_cli_plan, cmd_plan, argc, argv);
}
