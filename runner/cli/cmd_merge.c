/*
 * cmd_merge.c — `spsweep merge`, both forms:
 *   merge OUT.db IN.db... [--force]: the shard databases of one sweep
 *   (--shard) merged into OUT.db (db/merge.c);
 *   merge --shards DIR [--expect N] [--job JOBID] [--script PATH]
 *   [--cache-dir DIR] [--force] [OUT.db]: check every shard database
 *   DIR/shard-i.db of an N-shard sweep (runner/scale/shards.c), merge the
 *   complete ones into OUT.db (default results/results.db; db/merge.c, so
 *   merging again changes nothing), and print the `sbatch --array=...`
 *   command that resubmits exactly the array tasks (shard i = task i-1)
 *   still missing or incomplete. With --job, the tasks Slurm still has
 *   queued or running are reported as such and left out of that command.
 *   Exit 0 when all N are complete, 2 when not.
 */
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/store.h"
#include "cli.h"
#include "../scale/shards.h"

typedef struct merge_cli {
    const char *dir, *job, *script, *cache_dir, *out;
    int expect, force;
    int nargs;          /* without --shards: OUT.db IN.db... */
    char **args;
} merge_cli;

static int fail(const char *msg)
{
    fprintf(stderr, "spsweep merge: %s\n", msg);
    return 1;
}

enum { M_SHARDS = 1, M_EXPECT, M_JOB, M_SCRIPT, M_CACHE, M_FORCE };

static const sp_cli_opt merge_opts[] = {
    {"force", NULL, M_FORCE, "merge sweeps of different configs or plans too (refused "
     "by default)"},
    {"shards", "DIR", M_SHARDS, "the shard databases DIR/shard-i.db of `spsweep slurm` "
     "or --shard: merge the complete ones into OUT.db (default results/results.db) and "
     "print the sbatch command that resubmits the rest"},
    {"expect", "N", M_EXPECT, "with --shards: the number of shards, 1..100000 (default: "
     "what the shard databases say)"},
    {"job", "JOBID", M_JOB, "with --shards: the Slurm job array, so tasks still queued or "
     "running are not resubmitted"},
    {"script", "PATH", M_SCRIPT, "with --shards: the array script to resubmit (default "
     "DIR's)"},
    {"cache-dir", "DIR", M_CACHE, "with --shards: the matrix cache the shards were planned "
     "with (default: the one the array script gives its tasks)"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_merge = {
    .name = "merge",
    .synopsis = "OUT.db IN.db... [--force]\n"
                "--shards DIR [--expect N] [--job JOBID] [options] [OUT.db]",
    .summary = "merge the shard databases of one sweep into one database",
    .about = "The first form merges the databases IN.db... (shards of one sweep, made "
             "with --shard or --gpus) into OUT.db: matrices deduplicated, runs already in "
             "OUT.db skipped, so merging again changes nothing; sweeps of different "
             "configs or plans are refused unless --force. The second checks every shard "
             "database of an N-shard sweep in DIR, merges the complete ones, and prints "
             "the sbatch command that resubmits exactly the array tasks still missing or "
             "incomplete.",
    .opts = merge_opts,
    .exits = "0 merged (with --shards: every shard complete); 1 an error: databases that "
             "cannot be read or merged, a bad option value; 2 with --shards: some shards "
             "missing or incomplete (the complete ones are merged); or a command line "
             "that cannot be parsed",
    .examples = "results/results.db shard-1.db shard-2.db\n"
                "--shards results/shards --expect 16 --job 123456",
};

/* 0 parsed, -1 --help printed, else the exit status of a bad command line. */
static int parse(int argc, char **argv, merge_cli *c)
{
    int opt;
    char *end;
    sp_cli_parser p;
    memset(c, 0, sizeof *c);
    sp_cli_begin(&p, &sp_cli_merge);
    while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        switch (opt) {
        case SP_CLI_HELP: return -1;
        case SP_CLI_BAD: return SP_EXIT_USAGE;
        case M_SHARDS: c->dir = optarg; break;
        case M_EXPECT: c->expect = (int)strtol(optarg, &end, 10);
                       if (*end || c->expect < 1 || c->expect > 100000)
                           return fail("--expect expects N in 1..100000");
                       break;
        case M_JOB: c->job = optarg; break;
        case M_SCRIPT: c->script = optarg; break;
        case M_CACHE: c->cache_dir = optarg; break;
        case M_FORCE: c->force = 1; break;
        }
    }
    c->nargs = argc - optind;
    c->args = argv + optind;
    if (!c->dir) {
        if (c->expect || c->job || c->script || c->cache_dir)
            return fail("--expect, --job, --script and --cache-dir go with --shards DIR");
        return 0;
    }
    if (argc - optind > 1)
        return fail("--shards takes at most one OUT.db");
    c->out = argc - optind == 1 ? argv[optind] : "results/results.db";
    if (c->job && (!*c->job || strspn(c->job, "0123456789") != strlen(c->job)))
        return fail("--job expects a numeric Slurm job id");
    return 0;
}

/* N from the first shard database that says it (without --expect). */
static int guess_count(const char *dir)
{
    char pattern[PATH_MAX];
    glob_t g;
    int n = 0;
    snprintf(pattern, sizeof pattern, "%s/shard-*.db", dir);
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    for (size_t i = 0; i < g.gl_pathc && !n; i++) {
        sp_shard_info info;
        sp_err e;
        if (sp_store_shard_info(g.gl_pathv[i], &info, &e) == 0) {
            n = info.shard_count;
            sp_shard_info_free(&info);
        }
    }
    globfree(&g);
    return n;
}

/* Array task ids of job that Slurm still holds (pending or running):
 * busy[k] = 1 for task k. Without squeue, none. */
static void still_queued(const char *job, char *busy, int n)
{
    char cmd[128], line[64];
    snprintf(cmd, sizeof cmd, "squeue -h -r -j %s -o %%K 2>/dev/null", job);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    while (fgets(line, sizeof line, p)) {
        char *end;
        long k = strtol(line, &end, 10);
        if (end != line && k >= 0 && k < n)
            busy[k] = 1;
    }
    pclose(p);
}

/* Check every shard; paths of the complete ones into ok[]. */
static int check_all(const merge_cli *c, char *busy, char (*paths)[PATH_MAX],
                     const char **ok, int *nok, int *nredo)
{
    *nok = *nredo = 0;
    for (int i = 1; i <= c->expect; i++) {
        sp_shard_state s;
        sp_err err;
        snprintf(paths[i - 1], PATH_MAX, SP_SHARD_DB_FMT, c->dir, i);
        if (sp_shard_check(paths[i - 1], i, c->expect, c->cache_dir, &s, &err))
            return fprintf(stderr, "spsweep merge: shard %d/%d: %s\n", i, c->expect,
                           err.msg) > 0;
        if (s.complete) {
            printf("shard %d/%d (array task %d): complete, %d combinations\n", i, c->expect,
                   i - 1, s.expected);
            ok[(*nok)++] = paths[i - 1];
            busy[i - 1] = 0;
        } else {
            printf("shard %d/%d (array task %d): %s: %s%s\n", i, c->expect, i - 1,
                   s.missing ? "missing" : "incomplete", s.why,
                   busy[i - 1] ? " (still queued or running in Slurm)" : "");
            *nredo += !busy[i - 1];
        }
        fflush(stdout);
    }
    return 0;
}

/* The command that resubmits exactly the tasks to redo. */
static void print_resubmit(const merge_cli *c, const char *const *ok, int nok,
                           char (*paths)[PATH_MAX], const char *busy)
{
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/%s", c->dir, SP_SLURM_ARRAY_SCRIPT);
    printf("resubmit: sbatch --array=");
    for (int i = 0, first = 1, k = 0; i < c->expect; i++) {
        int done = k < nok && ok[k] == paths[i];
        k += done;
        if (!done && !busy[i])
            printf("%s%d", first ? "" : ",", i), first = 0;
    }
    printf(" %s\n", c->script ? c->script : script);
}

/* Merge the complete shards into c->out. */
static int merge_complete(const merge_cli *c, const char **ok, int nok)
{
    sp_merge_result res;
    sp_err err;
    if (nok == 0) {
        printf("no complete shard to merge yet\n");
        return 0;
    }
    if (sp_store_merge(c->out, ok, nok, c->force, &res, &err))
        return fail(err.msg);
    printf("merged %d of %d shards into %s: %d runs, %d duplicate runs skipped\n", nok,
           c->expect, c->out, res.runs, res.duplicates);
    return 0;
}

/* Without --cache-dir: the one the array script gives its tasks, so the
 * shards are re-planned with the same matrix sizes (runner/plan/cost.c reads
 * suitesparse sizes from the cache's index). */
static int script_cache_dir(const merge_cli *c, char *out, size_t len)
{
    char path[PATH_MAX], text[16384];
    snprintf(path, sizeof path, "%s/%s", c->dir, SP_SLURM_ARRAY_SCRIPT);
    FILE *f = fopen(c->script ? c->script : path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return sp_slurm_script_cache_dir(text, out, len);
}

/* merge OUT.db IN.db...: one sweep's shard databases into OUT.db. */
static int merge_files(const merge_cli *c)
{
    sp_merge_result res;
    sp_err err;
    if (c->nargs < 2)
        return fail("expected OUT.db and at least one IN.db, or --shards DIR (see "
                    "`spsweep merge --help`)");
    if (sp_store_merge(c->args[0], (const char *const *)c->args + 1, c->nargs - 1, c->force,
                       &res, &err))
        return fail(err.msg);
    printf("merged %d input%s into %s: %d runs, %d new matrices, %d new sweeps, %d matrix "
           "failures; %d duplicate runs skipped\n", c->nargs - 1, c->nargs == 2 ? "" : "s",
           c->args[0], res.runs, res.matrices, res.sweeps, res.matrix_failures,
           res.duplicates);
    return 0;
}

int sp_cmd_merge(int argc, char **argv)
{
    merge_cli c;
    int parsed = parse(argc, argv, &c);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (!c.dir)
        return merge_files(&c);
    char cache[PATH_MAX];
    if (!c.cache_dir && script_cache_dir(&c, cache, sizeof cache))
        c.cache_dir = cache;
    if (!c.expect && !(c.expect = guess_count(c.dir)))
        return fail("no shard database in the directory says how many shards there are; "
                    "give --expect N");
    char *busy = calloc((size_t)c.expect, 1);
    char (*paths)[PATH_MAX] = calloc((size_t)c.expect, sizeof *paths);
    const char **ok = calloc((size_t)c.expect, sizeof *ok);
    int nok = 0, nredo = 0, rc = 1;
    if (!busy || !paths || !ok)
        fail("out of memory");
    else {
        if (c.job)
            still_queued(c.job, busy, c.expect);
        rc = check_all(&c, busy, paths, ok, &nok, &nredo) || merge_complete(&c, ok, nok);
    }
    if (rc == 0 && nok < c.expect) {
        if (nredo)
            print_resubmit(&c, ok, nok, paths, busy);
        else
            printf("the other shards are still queued or running; merge again when they end\n");
        rc = 2;
    }
    free(busy);
    free(paths);
    free(ok);
    return rc;
}
