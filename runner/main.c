/*
 * main.c — the spsweep command line.
 *
 *   spsweep sweep CONFIG [--db PATH] [--repetitions N] [--warmup N]
 *                        [--axis NAME=VALUES]... [--cache-dir DIR] [--complex real|refuse]
 *   spsweep plan CONFIG [--axis ...] [--only ...] [--shard i/N]   = sweep --dry-run
 *   spsweep fetch NAME... | --select EXPR ...      SuiteSparse matrices into the cache
 *   spsweep cache list|verify|clean
 *   spsweep list                                  every registered kernel
 *   spsweep info SOURCE [--cache-dir DIR] [--complex real|refuse]
 *   spsweep report [--db PATH] [--out DIR] [--sweep ID]
 *   spsweep merge OUT.db IN.db... [--force]
 *   spsweep merge --shards DIR [--expect N] [--job JOBID] [OUT.db]
 *   spsweep slurm CONFIG --shards N [...]        (runner/cmd_slurm.c)
 *   spsweep sweep CONFIG --gpus all|LIST [...]   (runner/gpus.c)
 *   spsweep export --csv|--json [--db PATH] [--sweep ID] [--what NAME]
 *   spsweep compare A.db B.db [--sweep-a ID] [--sweep-b ID] [...]  (runner/cmd_compare.c)
 *   spsweep --version                            the commit it was built from
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
#include "load_guard.h"
#include "runner.h"
#include "shards.h"

static const char usage[] =
    "usage: spsweep COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  sweep CONFIG   run every matrix x kernel x axis combination of CONFIG\n"
    "                 --db PATH          results database (default: the config's, or\n"
    "                                    results/results.db)\n"
    "                 --repetitions N|auto  timed repetitions per combination (default 10;\n"
    "                                    auto: until max_noise or max_time, at least 10)\n"
    "                 --timeout S        seconds per combination before it is killed\n"
    "                                    and stored as 'timeout' (default 600)\n"
    "                 --warmup N         untimed runs first (default 2)\n"
    "                 --rounds R         run the plan R times, each in a new shuffled order\n"
    "                                    (default: the config's rounds); intervals then\n"
    "                                    cover the drift between rounds\n"
    "                 --isolate auto|matrix|combination   one process per combination, or\n"
    "                                    per matrix keeping its CUDA context (default auto:\n"
    "                                    matrix for GPU kernels, combination for CPU ones)\n"
    "                 --axis NAME=VALUES override an axis in every kernel that has it,\n"
    "                                    e.g. --axis threads=1,2,4 or --axis blocksize=32..1024:*2\n"
    "                 --cache-dir DIR    matrix cache (default $SPSWEEP_CACHE, $XDG_CACHE_HOME/spsweep\n"
    "                                    or ~/.cache/spsweep); SuiteSparse matrices the\n"
    "                                    config names are fetched into it first\n"
    "                 --complex real|refuse   complex Matrix Market files: real part or error\n"
    "                 --quiet            no progress lines\n"
    "                 --new              a new sweep; by default a sweep of the same plan\n"
    "                                    and binary in the database is resumed, skipping\n"
    "                                    every combination it already holds\n"
    "                 --shard i/N        run part i of N, balanced by nnz x repetitions;\n"
    "                                    the N parts cover the plan once (see merge)\n"
    "                 --only kernel=GLOB,matrix=GLOB   run a subset\n"
    "                 --dry-run          print what would run and its size, run nothing\n"
    "  plan CONFIG    the combinations a sweep would run (its options, e.g. --only,\n"
    "                 --shard), with estimated seconds; runs nothing (= sweep --dry-run)\n"
    "  fetch NAME...  bring SuiteSparse matrices into the cache (`spsweep fetch --help`):\n"
    "                 HB/bcsstk13, --select EXPR --limit N, --config FILE, --list\n"
    "  cache list|verify|clean   what the cache holds; re-hash it; remove leftovers\n"
    "  list           list every registered kernel: operation, format, backend, axes\n"
    "  info SOURCE    load a matrix (gen:..., file:..., path) and print its features\n"
    "  report         charts from a results database\n"
    "                 --db PATH (default results/results.db)  --out DIR (default\n"
    "                 results/report)  --sweep ID (default: the latest sweep)\n"
    "                 --base OLD.db [--base-sweep ID]  add a change table: each\n"
    "                 combination faster, slower, same or noisy, as `compare` judges it\n"
    "  export --csv|--json    a sweep's per-run statistics on stdout, rendered by SQLite\n"
    "                 --db PATH (default results/results.db)  --sweep ID (default: the\n"
    "                 latest)  --what run_stats|runs|samples|speedup|best_runs|run_modes|\n"
    "                 failures|matrices|sweeps (default run_stats)\n"
    "  compare A.db B.db   each combination of B against the same one in A: noisy (an\n"
    "                 interval too wide), else slower or faster by a Mann-Whitney rank\n"
    "                 test on the samples, a minimum effect and both runs' noise, else\n"
    "                 same (`spsweep compare --help`);\n"
    "                 --sweep-a ID --sweep-b ID (default: the latest of each)\n"
    "                 --min-effect PCT (2) --alpha P (0.05) --max-noise PCT (the sweep's\n"
    "                 noisy setting, 5) --csv;\n"
    "                 exit status 3 when a combination is slower, 1 on an error\n"
    "  merge OUT.db IN.db...   merge shard databases of one sweep (--shard) into\n"
    "                 OUT.db; refuses sweeps of different configs or plans unless --force;\n"
    "                 matrices deduplicated, runs already in OUT.db skipped\n"
    "  merge --shards DIR [--expect N] [--job JOBID] [OUT.db]   check the shard\n"
    "                 databases of `spsweep slurm`, merge the complete ones (default\n"
    "                 results/results.db), print the sbatch command resubmitting the rest\n"
    "  slurm CONFIG --shards N   write and submit a Slurm job array, one shard per task\n"
    "                 (`spsweep slurm --help`)\n"
    "  sweep CONFIG --gpus all|0,1,...   one shard per GPU in parallel, merged at the end\n"
    "  help           this text\n"
    "  --version      the commit spsweep was built from (-dirty: with changes)\n";

enum { OPT_DB = 1, OPT_REPS, OPT_WARMUP, OPT_AXIS, OPT_CACHE, OPT_COMPLEX, OPT_QUIET,
       OPT_OUT, OPT_SWEEP, OPT_BASE, OPT_BASE_SWEEP, OPT_TIMEOUT, OPT_NEW, OPT_SHARD,
       OPT_ONLY, OPT_DRY_RUN, OPT_FORCE, OPT_CSV, OPT_JSON, OPT_WHAT, OPT_ISOLATE,
       OPT_ROUNDS };

static const struct option long_opts[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"repetitions", required_argument, NULL, OPT_REPS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"rounds", required_argument, NULL, OPT_ROUNDS},
    {"axis", required_argument, NULL, OPT_AXIS},
    {"cache-dir", required_argument, NULL, OPT_CACHE},
    {"complex", required_argument, NULL, OPT_COMPLEX},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"out", required_argument, NULL, OPT_OUT},
    {"sweep", required_argument, NULL, OPT_SWEEP},
    {"base", required_argument, NULL, OPT_BASE},
    {"base-sweep", required_argument, NULL, OPT_BASE_SWEEP},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"isolate", required_argument, NULL, OPT_ISOLATE},
    {"new", no_argument, NULL, OPT_NEW},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"only", required_argument, NULL, OPT_ONLY},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"force", no_argument, NULL, OPT_FORCE},
    {"csv", no_argument, NULL, OPT_CSV},
    {"json", no_argument, NULL, OPT_JSON},
    {"what", required_argument, NULL, OPT_WHAT},
    {NULL, 0, NULL, 0},
};

typedef struct cli {
    const char *db, *cache_dir, *out, *complex, *reps, *warmup, *rounds;
    const char *timeout, *shard, *only, *isolate;
    int fresh, dry_run, force, csv, json;
    const char *what;
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

static int parse_cli(int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
        switch (opt) {
        case OPT_DB: c->db = optarg; break;
        case OPT_REPS: c->reps = optarg; break;
        case OPT_WARMUP: c->warmup = optarg; break;
        case OPT_CACHE: c->cache_dir = optarg; break;
        case OPT_COMPLEX: c->complex = optarg; break;
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
        case OPT_AXIS:
            if (c->naxes == 16)
                return die("too many --axis options");
            c->axes[c->naxes++] = optarg;
            break;
        default:
            fputs(usage, stderr);
            return 1;
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

static int cmd_list(void)
{
    printf("%-24s %-10s %-7s %-9s %s\n", "kernel", "operation", "format", "backend", "axes");
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        char axes[256] = "-";
        for (int a = 0, n = 0; a < k->naxes; a++)
            n += snprintf(axes + n, sizeof axes - (size_t)n, "%s%s=%s", a ? " " : "",
                          k->axes[a].name, k->axes[a].defaults);
        printf("%-24s %-10s %-7s %-9s %s%s\n", k->name, k->operation, k->format, k->backend,
               axes, k->prepare     ? ""
                     : k->needs_gpu ? "  (not built: no CUDA)"
                                    : "  (not built: no MKL; make deps-mkl)");
    }
    return 0;
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
    if (parse_complex(c->complex, &lo.mm.complex))
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
    printf("report written to %s/ (report.pdf and one PNG per chart)\n", out);
    return 0;
}

static int cmd_export(const cli *c)
{
    sp_err err;
    if (c->csv == c->json)
        return die("export expects exactly one of --csv and --json");
    if (c->nargs)
        return die("export takes no arguments besides --db, --sweep, --what, --csv/--json");
    if (sp_store_export(c->db ? c->db : "results/results.db", c->what, c->sweep, c->json,
                        stdout, &err))
        return die(err.msg);
    return 0;
}

static int cmd_merge(const cli *c)
{
    sp_merge_result res;
    sp_err err;
    if (c->nargs < 2)
        return die("merge expects OUT.db and at least one IN.db");
    if (sp_store_merge(c->args[0], (const char *const *)c->args + 1, c->nargs - 1, c->force,
                       &res, &err))
        return die(err.msg);
    printf("merged %d input%s into %s: %d runs, %d new matrices, %d new sweeps, %d matrix "
           "failures; %d duplicate runs skipped\n", c->nargs - 1, c->nargs == 2 ? "" : "s",
           c->args[0], res.runs, res.matrices, res.sweeps, res.matrix_failures,
           res.duplicates);
    return 0;
}

/* Is option opt (or opt=VALUE) on the command line? Commands with their
 * own parsers (slurm, merge --shards, sweep --gpus) are told apart by it. */
static int has_option(int argc, char **argv, const char *opt)
{
    size_t n = strlen(opt);
    for (int i = 2; i < argc; i++)
        if (!strncmp(argv[i], opt, n) && (!argv[i][n] || argv[i][n] == '='))
            return 1;
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
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version")) {
        char version[64];
        sp_build_version(version, sizeof version);
        printf("spsweep %s\n", version);
        return 0;
    }
    /* not --gpus: libgomp would bind this process to one CPU, and the
     * shards' CPU shares are cut from what it may use (runner/gpus.c) */
    if (!strcmp(cmd, "sweep") && !has_option(argc, argv, "--gpus"))
        pin_threads(argv);
    cli c;
    if (!strcmp(cmd, "fetch"))
        return sp_cmd_fetch(argc - 1, argv + 1);
    if (!strcmp(cmd, "cache"))
        return sp_cmd_cache(argc - 1, argv + 1);
    if (!strcmp(cmd, "slurm"))
        return sp_cmd_slurm(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return sp_cmd_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge") && has_option(argc, argv, "--shards"))
        return sp_cmd_merge_shards(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep") && has_option(argc, argv, "--gpus"))
        return sp_cmd_sweep_gpus(argc - 1, argv + 1);
    if (parse_cli(argc - 1, argv + 1, &c))
        return 1;
    if (!strcmp(cmd, "sweep"))
        return cmd_sweep(&c);
    if (!strcmp(cmd, "plan")) {
        /* the same selection as the sweep would make (--only, --shard,
         * workloads an operation cannot take), printed, nothing run */
        c.dry_run = 1;
        return cmd_sweep(&c);
    }
    if (!strcmp(cmd, "list"))
        return cmd_list();
    if (!strcmp(cmd, "info"))
        return cmd_info(&c);
    if (!strcmp(cmd, "report"))
        return cmd_report(&c);
    if (!strcmp(cmd, "merge"))
        return cmd_merge(&c);
    if (!strcmp(cmd, "export"))
        return cmd_export(&c);
    fprintf(stderr, "spsweep: unknown command '%s'\n\n%s", cmd, usage);
    return 1;
}
