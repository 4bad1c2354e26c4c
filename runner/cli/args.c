/*
 * args.c — the command line of sweep, plan, info, report, export and help
 * (args.h) parsed into one cli by the command's table, and the checks of
 * the values they share. Moved out of runner/cli/main.c, which now only
 * dispatches, when each command got its own file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

int sp_args_die(const char *msg)
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
int sp_args_parse(const sp_cli_cmd *cmd, int argc, char **argv, cli *c)
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
                return sp_args_die("too many --axis options");
            c->axes[c->naxes++] = optarg;
            break;
        }
    }
    c->nargs = argc - optind;
    c->args = argv + optind;
    return 0;
}

/* A [sweep]-style key given on the command line, checked like the config's. */
int sp_args_int(const char *opt, const char *v, long lo, long hi, int *out)
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

int sp_args_complex(const char *v, sp_complex_policy *p)
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

/* sweep, plan, info, report, export, help: parsed by their tables. */
int sp_args_run(const sp_cli_cmd *cmd, int (*fn)(const cli *c), int argc, char **argv)
{
    cli c;
    int rc = sp_args_parse(cmd, argc, argv, &c);
    return rc ? (rc < 0 ? 0 : rc) : fn(&c);
}
