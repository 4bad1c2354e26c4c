/*
 * cmd_merge_shards.c — `spsweep merge --shards DIR [--expect N]
 * [--job JOBID] [--script PATH] [--cache-dir DIR] [--force] [OUT.db]`:
 * check every shard database DIR/shard-i.db of an N-shard sweep
 * (runner/shards.c), merge the complete ones into OUT.db (default
 * results/results.db; db/merge.c, so merging again changes nothing), and
 * print the `sbatch --array=...` command that resubmits exactly the array
 * tasks (shard i = task i-1) still missing or incomplete. With --job, the
 * tasks Slurm still has queued or running are reported as such and left
 * out of that command. Exit 0 when all N are complete, 2 when not.
 */
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/store.h"
#include "shards.h"

typedef struct merge_cli {
    const char *dir, *job, *script, *cache_dir, *out;
    int expect, force;
} merge_cli;

static int fail(const char *msg)
{
    fprintf(stderr, "spsweep merge: %s\n", msg);
    return 1;
}

static int parse(int argc, char **argv, merge_cli *c)
{
    static const struct option opts[] = {
        {"shards", required_argument, NULL, 'd'}, {"expect", required_argument, NULL, 'n'},
        {"job", required_argument, NULL, 'j'}, {"script", required_argument, NULL, 's'},
        {"cache-dir", required_argument, NULL, 'c'}, {"force", no_argument, NULL, 'f'},
        {NULL, 0, NULL, 0}};
    int opt;
    char *end;
    memset(c, 0, sizeof *c);
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'd': c->dir = optarg; break;
        case 'n': c->expect = (int)strtol(optarg, &end, 10);
                  if (*end || c->expect < 1 || c->expect > 100000)
                      return fail("--expect expects N in 1..100000");
                  break;
        case 'j': c->job = optarg; break;
        case 's': c->script = optarg; break;
        case 'c': c->cache_dir = optarg; break;
        case 'f': c->force = 1; break;
        default: return fail("usage: spsweep merge --shards DIR [--expect N] [--job JOBID] "
                             "[--script PATH] [--cache-dir DIR] [--force] [OUT.db]");
        }
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
 * shards are re-planned with the same matrix sizes (runner/cost.c reads
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

int sp_cmd_merge_shards(int argc, char **argv)
{
    merge_cli c;
    if (parse(argc, argv, &c))
        return 1;
    if (!c.dir)
        return fail("expected --shards DIR");
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
