/*
 * args.h — the options that sweep, plan, info, report, export and help
 * share (private to runner/cli/): their ids, the table rows sweep and plan
 * both print, what a parsed command line holds (cli) and the helpers that
 * check its values (args.c). Each command's table and handler are in its
 * own cmd_*.c.
 */
#ifndef SP_ARGS_H
#define SP_ARGS_H

#include "../plan/plan.h"
#include "cli.h"

/* Option ids of the commands parsed by sp_args_parse (sweep, plan, info,
 * report, export, help); each command's table names the ones it takes. */
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

/* "spsweep: MSG" on stderr; 1. */
int sp_args_die(const char *msg);
/* Parse argv (argv[0] the command) by cmd's table into c: 0, or -1 when
 * --help was printed (exit 0), or the exit status of a bad command line. */
int sp_args_parse(const sp_cli_cmd *cmd, int argc, char **argv, cli *c);
/* A [sweep]-style key given on the command line, checked like the config's. */
int sp_args_int(const char *opt, const char *v, long lo, long hi, int *out);
/* --complex real|refuse into *p (v NULL: *p as it was); 1 after saying why. */
int sp_args_complex(const char *v, sp_complex_policy *p);
/* Parse by cmd's table, then fn: the exit status (0 after --help). */
int sp_args_run(const sp_cli_cmd *cmd, int (*fn)(const cli *c), int argc, char **argv);

#endif
