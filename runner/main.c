/*
 * main.c — the spsweep command line: the commands' dispatch, `--help` and
 * `--version`, and the commands parsed here (sweep, plan, info, report,
 * export, help), each by its option table below (runner/cli.h: the same
 * table prints its --help and docs/cli.md). The other commands keep their
 * tables beside their parsers: list (cmd_list.c), fetch (cmd_fetch.c),
 * cache (cmd_cache.c), compare (cmd_compare.c), merge (cmd_merge.c),
 * slurm (cmd_slurm.c); sweep --gpus runs in gpus.c once the sweep table
 * has checked its options.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../db/store.h"
#include "../plots/report.h"
#include "advise.h"
#include "cli.h"
#include "load_guard.h"
#include "runner.h"
#include "shards.h"

#ifndef SP_OPT_FLAGS
#define SP_OPT_FLAGS "unknown"
#endif

/* Option ids of the commands parsed here (sweep, plan, info, report,
 * export, help); each command's table below names the ones it takes. */
enum { OPT_DB = 1, OPT_REPS, OPT_WARMUP, OPT_AXIS, OPT_CACHE, OPT_COMPLEX, OPT_QUIET,
       OPT_OUT, OPT_SWEEP, OPT_BASE, OPT_BASE_SWEEP, OPT_TIMEOUT, OPT_NEW, OPT_SHARD,
       OPT_ONLY, OPT_DRY_RUN, OPT_FORCE, OPT_CSV, OPT_JSON, OPT_WHAT, OPT_ISOLATE,
       OPT_ROUNDS, OPT_GPUS, OPT_MARKDOWN, OPT_GBENCH, OPT_TIME_UNIT, OPT_MAN,
       OPT_COMPLETION, OPT_READ_THREADS };

/* Options sweep and plan share, with the same meaning. */
#define OPT_ROW_DB                                                                         \
    {"db", "PATH", OPT_DB, "results database (default: the config's `database`, else "    \
     "results/results.db)"}
#define OPT_ROW_REPS                                                                       \
    {"repetitions", "N|auto", OPT_REPS, "timed repetitions per combination (default: "     \
     "the config's, 10); auto: until max_noise or max_time is reached, at least 10"}
#define OPT_ROW_WARMUP                                                                     \
    {"warmup", "N", OPT_WARMUP, "untimed runs before the timed ones (default: the "       \
     "config's, 2)"}
#define OPT_ROW_ROUNDS                                                                     \
    {"rounds", "R", OPT_ROUNDS, "run the plan R times, each round in a new shuffled "     \
     "order, so the intervals cover the drift between rounds (default: the config's, 1)"}
#define OPT_ROW_TIMEOUT                                                                    \
    {"timeout", "S", OPT_TIMEOUT, "seconds a combination may take before it is killed "    \
     "and stored as 'timeout' (default: the config's, 600)"}
#define OPT_ROW_ISOLATE                                                                    \
    {"isolate", "auto|matrix|combination", OPT_ISOLATE, "one process per combination, "   \
     "or one per matrix that keeps its CUDA context (default: the config's, auto: matrix " \
     "for GPU kernels, combination for CPU ones)"}
#define OPT_ROW_AXIS                                                                       \
    {"axis", "NAME=VALUES", OPT_AXIS, "override an axis in every kernel that has it, "     \
     "e.g. --axis threads=1,2,4 or --axis blocksize=32..1024:*2; repeatable"}
#define OPT_ROW_ONLY                                                                       \
    {"only", "kernel=GLOB,matrix=GLOB", OPT_ONLY, "only the combinations whose kernel "   \
     "name, and whose matrix source or name, match (either part may be left out)"}
#define OPT_ROW_SHARD                                                                      \
    {"shard", "i/N", OPT_SHARD, "part i of N, balanced by estimated time; the N parts "   \
     "cover the plan once (merge their databases with `spsweep merge`)"}
#define OPT_ROW_CACHE                                                                      \
    {"cache-dir", "DIR", OPT_CACHE, "matrix cache (default: the config's cache_dir, "     \
     "$SPSWEEP_CACHE, $XDG_CACHE_HOME/spsweep or ~/.cache/spsweep)"}
#define OPT_ROW_COMPLEX                                                                    \
    {"complex", "real|refuse", OPT_COMPLEX, "complex Matrix Market files: keep the real " \
     "part, with a warning (default), or refuse them"}

#define OPT_ROW_READ_THREADS                                                               \
    {"read-threads", "N", OPT_READ_THREADS, "threads that parse a Matrix Market file's "  \
     "body, 1..4096; 0: the default, $SPSWEEP_THREADS, else every CPU"}

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

static const sp_cli_cmd cli_sweep = {
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

static const sp_cli_cmd cli_plan = {
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

static const sp_cli_opt info_opts[] = {
    {"cache-dir", "DIR", OPT_CACHE, "matrix cache for suitesparse: sources (default "
     "$SPSWEEP_CACHE, $XDG_CACHE_HOME/spsweep or ~/.cache/spsweep)"},
    OPT_ROW_COMPLEX, OPT_ROW_READ_THREADS,
    {NULL, NULL, 0, NULL},
};

static const sp_cli_cmd cli_info = {
    .name = "info",
    .synopsis = "SOURCE [options]",
    .summary = "load one matrix or key array and print its features",
    .about = "Loads SOURCE as a sweep would (gen:KIND?key=value..., file:PATH, PATH, "
             "suitesparse:GROUP/NAME from the cache, keys:DIST?n=...) and prints its "
             "features: shape, nonzeros per row, bandwidth, symmetry, size class, "
             "checksum (for keys: the distribution's statistics).",
    .opts = info_opts,
    .exits = "0 printed; "
             "1 the source cannot be parsed or loaded, or would not fit in memory; "
             "2 a command line that cannot be parsed",
    .examples = "'gen:laplace2d?n=100'\n"
                "suitesparse:HB/bcsstk13",
};

static const sp_cli_opt report_opts[] = {
    {"db", "PATH", OPT_DB, "results database (default results/results.db)"},
    {"out", "DIR", OPT_OUT, "where the charts and report.pdf go (default "
     "results/report)"},
    {"sweep", "ID", OPT_SWEEP, "the sweep to report (default: the latest)"},
    {"base", "OLD.db", OPT_BASE, "add a change table: each combination faster, slower, "
     "same or noisy against the same one in OLD.db, as `spsweep compare` judges it"},
    {"base-sweep", "ID", OPT_BASE_SWEEP, "the sweep of OLD.db to compare with (default: "
     "its latest)"},
    {NULL, NULL, 0, NULL},
};

static const sp_cli_cmd cli_report = {
    .name = "report",
    .synopsis = "[options]",
    .summary = "charts (PNG, report.pdf, index.html) and tables from a results database",
    .about = "Draws the charts and tables of one sweep of the database with gnuplot: one "
             "PNG per chart, report.pdf with all of them, and index.html, the same as one "
             "self-contained web page with sortable tables (docs/report.md).",
    .opts = report_opts,
    .exits = "0 the report was written; "
             "1 the database or sweep cannot be read, or a chart cannot be drawn; "
             "2 a command line that cannot be parsed",
    .examples = "--db results/results.db --out results/report\n"
                "--db new.db --base old.db",
};

static const sp_cli_opt export_opts[] = {
    {"csv", NULL, OPT_CSV, "CSV (RFC 4180) with a header line, as the sqlite3 shell's "
     "`.mode csv` writes it"},
    {"json", NULL, OPT_JSON, "a JSON array of objects, one per row; the JSON-valued "
     "columns (axes, kernel_info) as JSON objects"},
    {"markdown", NULL, OPT_MARKDOWN, "a Markdown table: a header row, then one row per "
     "row of the table or view (reals with 6 significant digits, '|' escaped)"},
    {"gbench", NULL, OPT_GBENCH, "Google Benchmark's JSON format, for its "
     "tools/compare.py and CI dashboards: one entry per ok run named "
     "kernel/matrix/axis=value..., the median as its time, the rate and the interval "
     "as counters, and the mean, median, stddev and cv aggregates (run_stats only)"},
    {"time-unit", "ns|us|ms|s|auto", OPT_TIME_UNIT, "--gbench's time unit (default auto: "
     "the largest in which the fastest run reads at least 100); give two exports the "
     "same unit to compare them with compare.py"},
    {"db", "PATH", OPT_DB, "results database (default results/results.db)"},
    {"sweep", "ID", OPT_SWEEP, "the sweep to export (default: the latest)"},
    {"what", "NAME", OPT_WHAT, "the table or view: run_stats (default), runs, samples, "
     "speedup, best_runs, run_modes, failures, matrices, sweeps, advise_rates or "
     "advice_outcome"},
    {NULL, NULL, 0, NULL},
};

static const sp_cli_cmd cli_export = {
    .name = "export",
    .synopsis = "--csv|--json|--markdown [options]\n--gbench [--time-unit UNIT] [options]",
    .summary = "a sweep's statistics (or another table) as CSV, JSON, Markdown or Google "
               "Benchmark JSON on stdout",
    .about = "Writes one table or view of a sweep to stdout, rendered by SQLite; the "
             "database is opened read-only (docs/database.md describes every view and "
             "each format). python/spsweep_results.py loads a database into Python "
             "records or a pandas DataFrame with one column per axis.",
    .opts = export_opts,
    .exits = "0 exported; "
             "1 not exactly one of --csv, --json, --markdown and --gbench, or the "
             "database, sweep or table cannot be read; "
             "2 a command line that cannot be parsed",
    .examples = "--csv > stats.csv\n"
                "--json --what failures --sweep 3\n"
                "--markdown --what best_runs\n"
                "--gbench --time-unit us > new.json",
};

static const sp_cli_opt help_opts[] = {
    {"markdown", NULL, OPT_MARKDOWN, "every command's help as one Markdown page, "
     "docs/cli.md (`make docs` writes it)"},
    {"man", NULL, OPT_MAN, "every command's help as a man page, spsweep(1) in roff "
     "(`make install` installs it)"},
    {"completion", NULL, OPT_COMPLETION, "a bash completion script for the commands, "
     "their options and kernel names (`make install` installs it; zsh loads it through "
     "bashcompinit)"},
    {NULL, NULL, 0, NULL},
};

static const sp_cli_cmd cli_help = {
    .name = "help",
    .synopsis = "[COMMAND]\n--markdown | --man | --completion",
    .summary = "the list of commands, or one command's help",
    .about = "Without COMMAND, the list of commands (as spsweep --help); with one, its "
             "help (as spsweep COMMAND --help).",
    .opts = help_opts,
    .exits = "0 printed; "
             "2 an unknown command, or a command line that cannot be parsed",
    .examples = "sweep\n"
                "--markdown > docs/cli.md\n"
                "--man > spsweep.1 && man ./spsweep.1\n"
                "--completion > ~/.local/share/bash-completion/completions/spsweep",
};

typedef struct cli {
    const char *db, *cache_dir, *out, *complex, *reps, *warmup, *rounds;
    const char *timeout, *shard, *only, *isolate, *read_threads;
    int fresh, dry_run, force, csv, json, gpus, markdown, gbench, man, completion;
    const char *what, *time_unit;
    const char *axes[16];
    int naxes, quiet;
    long sweep, base_sweep;
    const char *base;
    int nargs;
    char **args;
} cli;

static int die(const char *msg)
{
    fprintf(stderr, "spsweep: %s\n", msg);
    return 1;
}

/* A sweep id (--sweep, --base-sweep): digits only, at least 1. strtol
 * alone read "1e3" as 1, "2x" as 2 and "abc" as 0 (the latest sweep);
 * whether the sweep exists is checked against the database later. */
static int parse_sweep_id(const char *opt, const char *v, long *out)
{
    errno = 0;
    long x = *v && v[strspn(v, "0123456789")] == '\0' ? strtol(v, NULL, 10) : 0;
    if (x < 1 || errno) {
        fprintf(stderr, "spsweep: --%s '%s': expected a positive integer (a sweep id)\n", opt,
                v);
        return 1;
    }
    *out = x;
    return 0;
}

/* Parse argv (argv[0] the command) by cmd's table into c: 0, or -1 when
 * --help was printed (exit 0), or the exit status of a bad command line. */
static int parse_cli(const sp_cli_cmd *cmd, int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    sp_cli_parser p;
    int opt;
    sp_cli_begin(&p, cmd);
    while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        switch (opt) {
        case SP_CLI_HELP: return -1;
        case SP_CLI_BAD: return SP_EXIT_USAGE;
        case OPT_DB: c->db = optarg; break;
        case OPT_REPS: c->reps = optarg; break;
        case OPT_WARMUP: c->warmup = optarg; break;
        case OPT_CACHE: c->cache_dir = optarg; break;
        case OPT_COMPLEX: c->complex = optarg; break;
        case OPT_READ_THREADS: c->read_threads = optarg; break;
        case OPT_QUIET: c->quiet = 1; break;
        case OPT_OUT: c->out = optarg; break;
        case OPT_SWEEP:
            if (parse_sweep_id("sweep", optarg, &c->sweep))
                return 1;
            break;
        case OPT_BASE: c->base = optarg; break;
        case OPT_BASE_SWEEP:
            if (parse_sweep_id("base-sweep", optarg, &c->base_sweep))
                return 1;
            break;
        case OPT_TIMEOUT: c->timeout = optarg; break;
        case OPT_ISOLATE: c->isolate = optarg; break;
        case OPT_ROUNDS: c->rounds = optarg; break;
        case OPT_NEW: c->fresh = 1; break;
        case OPT_SHARD: c->shard = optarg; break;
        case OPT_ONLY: c->only = optarg; break;
        case OPT_DRY_RUN: c->dry_run = 1; break;
        case OPT_FORCE: c->force = 1; break;
        case OPT_CSV: c->csv = 1; break;
        case OPT_JSON: c->json = 1; break;
        case OPT_WHAT: c->what = optarg; break;
        case OPT_GPUS: c->gpus = 1; break;
        case OPT_MARKDOWN: c->markdown = 1; break;
        case OPT_MAN: c->man = 1; break;
        case OPT_COMPLETION: c->completion = 1; break;
        case OPT_GBENCH: c->gbench = 1; break;
        case OPT_TIME_UNIT: c->time_unit = optarg; break;
        case OPT_AXIS:
            if (c->naxes == 16)
                return die("too many --axis options");
            c->axes[c->naxes++] = optarg;
            break;
        }
    }
    c->nargs = argc - optind;
    c->args = argv + optind;
    return 0;
}

/* A [sweep]-style key given on the command line, checked like the config's. */
static int cli_int(const char *opt, const char *v, long lo, long hi, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        fprintf(stderr, "spsweep: --%s: expected an integer in %ld..%ld, not '%s'\n", opt,
                lo, hi, v);
        return 1;
    }
    *out = (int)x;
    return 0;
}

static int parse_complex(const char *v, sp_complex_policy *p)
{
    if (!v)
        return 0;
    if (strcmp(v, "real") && strcmp(v, "refuse")) {
        fprintf(stderr, "spsweep: --complex: expected 'real' or 'refuse', not '%s'\n", v);
        return 1;
    }
    *p = strcmp(v, "refuse") ? SP_COMPLEX_REAL_PART : SP_COMPLEX_REFUSE;
    return 0;
}

/* Apply command-line overrides to a loaded config. */
static int apply_cli(const cli *c, sp_config *cfg)
{
    sp_err err;
    if (c->reps && !strcmp(c->reps, "auto"))
        cfg->auto_reps = 1, cfg->repetitions = 10;
    else if (c->reps && !(cfg->auto_reps = 0) &&
             cli_int("repetitions", c->reps, 1, 1000000, &cfg->repetitions))
        return 1;
    if (c->timeout) {
        char *end;
        double t = strtod(c->timeout, &end);
        if (!*c->timeout || *end || !(t > 0) || t > 1e9)
            return die("--timeout: expected a positive number of seconds");
        cfg->timeout_s = t;
    }
    if (c->isolate && sp_isolate_parse(c->isolate, &cfg->isolate))
        return die("--isolate: expected 'auto', 'matrix' or 'combination'");
    if ((c->warmup && cli_int("warmup", c->warmup, 0, 1000000, &cfg->warmup)) ||
        (c->rounds && cli_int("rounds", c->rounds, 1, 1000, &cfg->rounds)) ||
        (c->read_threads &&
         cli_int("read-threads", c->read_threads, 0, SP_READ_THREADS_MAX, &cfg->read_threads)) ||
        parse_complex(c->complex, &cfg->complex))
        return 1;
    for (int i = 0; i < c->naxes; i++) {
        char name[64];
        const char *eq = strchr(c->axes[i], '=');
        if (!eq || eq == c->axes[i] || eq - c->axes[i] >= (long)sizeof name)
            return die("--axis expects NAME=VALUES, e.g. --axis threads=1,2,4");
        snprintf(name, sizeof name, "%.*s", (int)(eq - c->axes[i]), c->axes[i]);
        if (sp_config_override_axis(cfg, name, eq + 1, &err))
            return die(err.msg);
    }
    char *s;
    if (c->db && (!(s = strdup(c->db)) || (free(cfg->database), cfg->database = s, 0)))
        return die("out of memory");
    if (c->cache_dir && (!(s = strdup(c->cache_dir)) ||
                         (free(cfg->cache_dir), cfg->cache_dir = s, 0)))
        return die("out of memory");
    return 0;
}

static int load_config(const cli *c, sp_config *cfg)
{
    sp_err err;
    if (c->nargs != 1)
        return die("expected one CONFIG file (e.g. configs/default.ini)");
    if (sp_config_load(c->args[0], NULL, cfg, &err))
        return die(err.msg);
    if (apply_cli(c, cfg)) {
        sp_config_free(cfg);
        return 1;
    }
    return 0;
}

/* Pin OpenMP threads the same way for every run of a sweep. libgomp reads
 * its environment when it loads, so set it and re-execute once. */
static void pin_threads(char **argv)
{
    if (getenv("OMP_PROC_BIND") || getenv("SPSWEEP_NO_PIN"))
        return;
    setenv("OMP_PROC_BIND", "close", 1);
    /* the CPUs this process may use, for the provenance: once bound,
     * libgomp narrows this thread's own affinity to its first place */
    cpu_set_t cpus;
    char text[256];
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) {
        sp_cpuset_text(&cpus, text, sizeof text);
        setenv("SPSWEEP_CPUS", text, 1);
    }
    if (!getenv("OMP_PLACES"))
        setenv("OMP_PLACES", "cores", 1);
    execv("/proc/self/exe", argv);      /* on failure: go on unpinned */
    unsetenv("OMP_PROC_BIND");
}

/* --shard i/N and --only kernel=GLOB,matrix=GLOB into the sweep options;
 * globs point into buf. */
static int sweep_selection(const cli *c, sp_sweep_opts *o, char *buf, size_t len)
{
    char tail;
    if (c->shard && (sscanf(c->shard, "%d/%d%c", &o->shard_index, &o->shard_count, &tail) != 2 ||
                     o->shard_count < 1 || o->shard_count > 100000 || o->shard_index < 1 ||
                     o->shard_index > o->shard_count))
        return die("--shard expects i/N with 1 <= i <= N, e.g. --shard 2/4");
    if (!c->only)
        return 0;
    if (strlen(c->only) >= len)
        return die("--only: too long");
    strcpy(buf, c->only);
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        if (!strncmp(item, "kernel=", 7))
            o->only_kernel = item + 7;
        else if (!strncmp(item, "matrix=", 7))
            o->only_matrix = item + 7;
        else
            return die("--only expects kernel=GLOB and/or matrix=GLOB, comma-separated");
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
        return die(err.msg);
    return sweep_exit_status(&res.sweep);
}

/* The memory guard before info loads src (runner/load_guard.c): refuse,
 * naming both numbers, what would get this process OOM-killed. A key
 * workload's statistics sort a copy (2 x 4n bytes of scratch). */
static int info_too_big(const sp_source *src, const sp_load_opts *lo, sp_err *err)
{
    sp_keys_spec ks;
    uint64_t scratch = src->kind == SP_SRC_KEYS && !sp_keys_spec_parse(src->path, &ks, NULL)
                           ? 8 * (uint64_t)ks.n : 0;
    char why[900];
    if (!sp_load_mem_short(src, lo, scratch, NULL, 0, "the statistics' scratch", why,
                           sizeof why))
        return 0;
    return sp_fail(err, "%s: %s", src->text, why);
}

static int cmd_info(const cli *c)
{
    sp_source src;
    sp_matrix M;
    sp_err err;
    sp_load_opts lo = {.cache_dir = c->cache_dir};
    if (c->nargs != 1)
        return die("expected one SOURCE (gen:..., file:..., keys:..., or a path)");
    if (parse_complex(c->complex, &lo.mm.complex) ||
        (c->read_threads &&
         cli_int("read-threads", c->read_threads, 0, SP_READ_THREADS_MAX, &lo.mm.threads)))
        return 1;
    if (sp_source_parse(c->args[0], &src, &err) || info_too_big(&src, &lo, &err) ||
        sp_matrix_load(&src, &lo, &M, &err))
        return die(err.msg);
    printf("source: %s\nname: %s\n", M.src.text, M.src.name);
    if (M.src.kind == SP_SRC_KEYS) {
        sp_keys_spec ks;
        sp_keys_stats st;
        if (sp_keys_spec_parse(M.src.path, &ks, &err) || sp_keys_stats_compute(&M.keys, &st, &err)) {
            sp_matrix_free(&M);
            return die(err.msg);
        }
        printf("workload: keys (32-bit unsigned)\ndistribution: %s\nseed: %llu\n",
               sp_keys_dist_name(ks.dist), (unsigned long long)ks.seed);
        if (ks.dist == SP_KEYS_ZIPF)
            printf("zipf_exponent: %g\n", ks.s);
        sp_keys_stats_print(&st, stdout);
        printf("size_class: %s\n", M.feat.size_class);
    } else {
        sp_features_print(&M.feat, stdout);
    }
    printf("checksum: %016llx\nfrom_cache: %s\n", (unsigned long long)M.checksum,
           M.from_cache ? "yes" : "no");
    sp_matrix_free(&M);
    return 0;
}

static int cmd_report(const cli *c)
{
    sp_err err;
    const char *db = c->db ? c->db : "results/results.db";
    const char *out = c->out ? c->out : "results/report";
    if (c->nargs)
        return die("report takes no arguments besides --db, --out, --sweep, --base and "
                   "--base-sweep");
    sp_report_opts ro = {.sweep_id = c->sweep, .base_db = c->base, .base_sweep_id = c->base_sweep,
                         .log = stderr};
    if (sp_report_run(db, out, &ro, &err))
        return die(err.msg);
    printf("report written to %s/ (report.pdf, index.html and one PNG per chart)\n", out);
    return 0;
}

static int cmd_export(const cli *c)
{
    sp_err err;
    const char *db = c->db ? c->db : "results/results.db";
    if (c->csv + c->json + c->markdown + c->gbench != 1)
        return die("export expects exactly one of --csv, --json, --markdown and --gbench");
    if (c->nargs)
        return die("export takes no arguments besides its options (see spsweep export "
                   "--help)");
    if (c->time_unit && !c->gbench)
        return die("--time-unit goes with --gbench");
    if (c->gbench && c->what && strcmp(c->what, "run_stats"))
        return die("--gbench exports run_stats only (not --what)");
    int rc = c->gbench ? sp_store_export_gbench(db, c->sweep, c->time_unit, stdout, &err)
                       : sp_store_export(db, c->what, c->sweep,
                                         c->json       ? SP_EXPORT_JSON
                                         : c->markdown ? SP_EXPORT_MARKDOWN
                                                       : SP_EXPORT_CSV,
                                         stdout, &err);
    return rc ? die(err.msg) : 0;
}

/* Is option opt (or opt=VALUE) on the command line? sweep is told from
 * sweep --gpus by it before its threads are pinned. */
static int has_option(int argc, char **argv, const char *opt)
{
    size_t n = strlen(opt);
    for (int i = 2; i < argc; i++)
        if (!strncmp(argv[i], opt, n) && (!argv[i][n] || argv[i][n] == '='))
            return 1;
    return 0;
}

/* `spsweep --version`: the build's name (git describe at build time, or
 * SP_VERSION outside a checkout), the commit sweeps record, the schema
 * of the databases it writes, and what it was built with: CUDA, and the
 * optional libraries told by whether their kernels are built. */
static int print_version(void)
{
    char commit[64];
    sp_build_version(commit, sizeof commit);
    int rsb = 0, mkl = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        rsb |= sp_kernels[i]->prepare && !strcmp(sp_kernels[i]->backend, "librsb");
        mkl |= sp_kernels[i]->prepare && strstr(sp_kernels[i]->backend, "mkl") != NULL;
    }
    printf("spsweep %s\n", sp_build_describe[0] ? sp_build_describe : SP_VERSION);
    printf("commit: %s\n", commit);
    printf("database schema: %d\n", sp_store_schema_version());
#ifdef SP_HAVE_CUDA
    const char *cuda = "yes";
#else
    const char *cuda = "no";
#endif
    int omp = _OPENMP;      /* the spec's date: 201511 is OpenMP 4.5 */
    const char *omp_version = omp >= 202111 ? "5.2" : omp >= 202011 ? "5.1"
                              : omp >= 201811 ? "5.0" : omp >= 201511 ? "4.5" : "< 4.5";
    printf("build: CUDA %s, librsb %s, MKL %s, OpenMP %s, gcc %s, %s\n", cuda,
           rsb ? "yes" : "no", mkl ? "yes" : "no", omp_version, __VERSION__, SP_OPT_FLAGS);
    return 0;
}

/* The commands in the order `spsweep --help` lists them. */
typedef struct command {
    const sp_cli_cmd *cli;
    int (*run)(int argc, char **argv);  /* argv[0] = the command's name */
} command;

/* sweep, plan, info, report, export: parsed here by their tables. */
static int run_parsed(const sp_cli_cmd *cmd, int (*fn)(const cli *c), int argc, char **argv)
{
    cli c;
    int rc = parse_cli(cmd, argc, argv, &c);
    return rc ? (rc < 0 ? 0 : rc) : fn(&c);
}

static int run_sweep(int argc, char **argv)
{
    cli c;
    int rc = parse_cli(&cli_sweep, argc, argv, &c);
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

static int run_plan(int argc, char **argv) { return run_parsed(&cli_plan, cmd_plan, argc, argv); }
static int run_info(int argc, char **argv) { return run_parsed(&cli_info, cmd_info, argc, argv); }
static int run_report(int argc, char **argv)
{
    return run_parsed(&cli_report, cmd_report, argc, argv);
}
static int run_export(int argc, char **argv)
{
    return run_parsed(&cli_export, cmd_export, argc, argv);
}
static int run_help(int argc, char **argv);

static const command commands[] = {
    {&cli_sweep, run_sweep},     {&cli_plan, run_plan},       {&sp_cli_list, sp_cmd_list},
    {&cli_info, run_info},       {&sp_cli_fetch, sp_cmd_fetch}, {&sp_cli_cache, sp_cmd_cache},
    {&cli_report, run_report},   {&cli_export, run_export},   {&sp_cli_compare, sp_cmd_compare},
    {&sp_cli_merge, sp_cmd_merge}, {&sp_cli_slurm, sp_cmd_slurm}, {&sp_cli_advise, sp_cmd_advise},
    {&cli_help, run_help},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof *commands))

static const command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].cli->name, name))
            return &commands[i];
    return NULL;
}

/* Every command's table, NULL-terminated. */
static void command_tables(const sp_cli_cmd **out)
{
    for (int i = 0; i < NCOMMANDS; i++)
        out[i] = commands[i].cli;
    out[NCOMMANDS] = NULL;
}

/* One line for a command that is none of ours; SP_EXIT_USAGE. */
static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS];
    for (int i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].cli->name;
    const char *near = sp_cli_nearest(name, names, NCOMMANDS);
    fprintf(stderr, "spsweep: unknown %s '%s'%s%s%s; see `spsweep --help`\n",
            name[0] == '-' ? "option" : "command", name, near ? " (did you mean " : "",
            near ? near : "", near ? "?)" : "");
    return SP_EXIT_USAGE;
}

static int run_help(int argc, char **argv)
{
    cli c;
    const sp_cli_cmd *tables[NCOMMANDS + 1];
    command_tables(tables);
    int rc = parse_cli(&cli_help, argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    int formats = c.markdown + c.man + c.completion;
    if (formats == 1 && !c.nargs) {
        if (c.markdown)
            sp_cli_markdown(tables, stdout);
        else if (c.man)
            sp_cli_man(tables, sp_build_describe[0] ? sp_build_describe : SP_VERSION, stdout);
        else
            sp_cli_completion(tables, sp_kernels, stdout);
        return 0;
    }
    if (c.nargs > 1 || formats) {
        fprintf(stderr, "spsweep help: expected at most one COMMAND, or one of --markdown, "
                        "--man and --completion alone; see `spsweep help --help`\n");
        return SP_EXIT_USAGE;
    }
    if (!c.nargs) {
        sp_cli_overview(tables, stdout);
        return 0;
    }
    const command *cmd = find_command(c.args[0]);
    if (!cmd)
        return unknown_command(c.args[0]);
    sp_cli_help(cmd->cli, stdout);
    return 0;
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) would kill spsweep with SIGXFSZ in the
     * middle of a database or cache write, its sweep left 'running'.
     * Ignored (children inherit it), the write fails with EFBIG and takes
     * the path of a full disk: the error said, the sweep marked failed,
     * what was stored kept. */
    signal(SIGXFSZ, SIG_IGN);
    const sp_cli_cmd *tables[NCOMMANDS + 1];
    command_tables(tables);
    if (argc < 2) {
        sp_cli_overview(tables, stderr);
        return SP_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        sp_cli_overview(tables, stdout);
        return 0;
    }
    if (!strcmp(name, "--version"))
        return print_version();
    const command *cmd = find_command(name);
    if (!cmd)
        return unknown_command(name);
    /* not --gpus: libgomp would bind this process to one CPU, and the
     * shards' CPU shares are cut from what it may use (runner/gpus.c) */
    if (cmd->run == run_sweep && !has_option(argc, argv, "--gpus"))
        pin_threads(argv);
    return cmd->run(argc - 1, argv + 1);
}
