/*
 * slurm.c — the sbatch scripts of `spsweep slurm`: a fetch job that brings
 * the config's matrices into the shared cache once, and a job array whose
 * task k runs shard k+1 of N into its own database. The text depends only
 * on the options (no dates, no host names), so it can be tested and diffed.
 *
 * The array asks for what a timed sweep needs: the CPUs of the config's
 * largest `threads` value (--cpus-per-task; most sites give a task one CPU
 * otherwise, and threads = 1..nproc would collapse to 1) and whole nodes
 * (--exclusive) so no other job shares the cores or the memory bandwidth
 * being measured; account, QOS and any extra sbatch options go into both
 * scripts, the node constraint into the array's.
 *
 * A task re-run (requeue, or `sbatch --array=k` after a failure) resumes
 * its shard: same config, binary and shard continue the sweep in the
 * shard's database. Paths on the shell lines are single-quoted; on
 * #SBATCH lines (parsed by sbatch, not the shell) they are double-quoted,
 * so a path with a double quote or a newline is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shards.h"

int sp_shell_quote(const char *s, char *buf, size_t len)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./:=@%+,-";
    if (*s && strspn(s, safe) == strlen(s))
        return snprintf(buf, len, "%s", s) < (int)len ? 0 : -1;
    size_t n = 0;
    if (len < 3)
        return -1;
    buf[n++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t plen = piece ? 4 : 1;
        if (n + plen + 2 > len)
            return -1;
        memcpy(buf + n, piece ? piece : s, plen);
        n += plen;
    }
    buf[n++] = '\'';
    buf[n] = 0;
    return 0;
}

/* Values on #SBATCH lines: no quotes, newlines or spaces where sbatch
 * would split or misread them. */
static int check_opts(const sp_slurm_opts *o, sp_err *err)
{
    const char *paths[] = {o->out_dir, o->workdir};
    if (o->shards < 1 || o->shards > 100000)
        return sp_fail(err, "slurm: --shards expects 1..100000, not %d", o->shards);
    for (int i = 0; i < 2; i++)
        if (!paths[i] || strpbrk(paths[i], "\"\n\r"))
            return sp_fail(err, "slurm: path '%s' is missing or holds a double quote or a "
                           "newline (not allowed on #SBATCH lines)", paths[i] ? paths[i] : "");
    const char *words[] = {o->partition, o->time_limit};
    for (int i = 0; i < 2; i++)
        if (words[i] && (!*words[i] || strpbrk(words[i], " \t\"'\n\r\\$`")))
            return sp_fail(err, "slurm: '%s' is not a valid %s", words[i],
                           i ? "time limit" : "partition");
    if (o->gpus_per_task < 0 || o->gpus_per_task > 1024)
        return sp_fail(err, "slurm: --gpus-per-task expects 0..1024");
    if (o->cpus_per_task < 0 || o->cpus_per_task > 100000)
        return sp_fail(err, "slurm: --cpus-per-task expects 1..100000");
    /* sbatch splits #SBATCH lines into words and reads its own quotes:
     * one word each, nothing it or a shell would interpret */
    const char *bad = " \t\"'\n\r\\$`";
    const char *more[] = {o->account, o->qos, o->constraint};
    const char *what[] = {"account", "QOS", "constraint"};
    for (int i = 0; i < 3; i++)
        if (more[i] && (!*more[i] || strpbrk(more[i], bad)))
            return sp_fail(err, "slurm: '%s' is not a valid %s (one word, no quotes)", more[i],
                           what[i]);
    for (int i = 0; i < o->nsbatch_args; i++) {
        const char *a = o->sbatch_args[i];
        if (!a || a[0] != '-' || strpbrk(a, bad))
            return sp_fail(err, "slurm: --sbatch-arg '%s': expected one sbatch option as one "
                           "word, e.g. --mem=64G (no spaces or quotes)", a ? a : "");
    }
    return 0;
}

/* The #SBATCH header both scripts share. */
static void header(FILE *f, const sp_slurm_opts *o, const char *name, const char *log)
{
    fprintf(f, "#!/bin/bash\n#SBATCH --job-name=%s\n", name);
    fprintf(f, "#SBATCH --output=\"%s/%s\"\n", o->out_dir, log);
    fprintf(f, "#SBATCH --chdir=\"%s\"\n", o->workdir);
    fprintf(f, "#SBATCH --ntasks=1\n");
    if (o->partition)
        fprintf(f, "#SBATCH --partition=%s\n", o->partition);
    if (o->time_limit)
        fprintf(f, "#SBATCH --time=%s\n", o->time_limit);
    if (o->account)
        fprintf(f, "#SBATCH --account=%s\n", o->account);
    if (o->qos)
        fprintf(f, "#SBATCH --qos=%s\n", o->qos);
}

/* The array's resources: GPUs, CPUs, whole nodes, node features, then the
 * extra options (last, so they can override ours). */
static void task_resources(FILE *f, const sp_slurm_opts *o)
{
    if (o->gpus_per_task)
        fprintf(f, "#SBATCH --gpus-per-task=%d\n", o->gpus_per_task);
    if (o->cpus_per_task)
        fprintf(f, "#SBATCH --cpus-per-task=%d\n", o->cpus_per_task);
    if (o->exclusive)
        fprintf(f, "#SBATCH --exclusive\n");
    if (o->constraint)
        fprintf(f, "#SBATCH --constraint=%s\n", o->constraint);
}

static void extra_args(FILE *f, const sp_slurm_opts *o)
{
    for (int i = 0; i < o->nsbatch_args; i++)
        fprintf(f, "#SBATCH %s\n", o->sbatch_args[i]);
}

/* Quote the bin, config, cache and out_dir into q[0..3]. */
static int quote_all(const sp_slurm_opts *o, char q[4][1400], sp_err *err)
{
    const char *v[4] = {o->bin, o->config, o->cache_dir, o->out_dir};
    for (int i = 0; i < 4; i++) {
        q[i][0] = 0;
        if (v[i] && sp_shell_quote(v[i], q[i], sizeof q[i]))
            return sp_fail(err, "slurm: path too long: %s", v[i]);
    }
    if (!o->bin || !o->config)
        return sp_fail(err, "slurm: the binary and the config are required");
    return 0;
}

/* Collect a memstream's text into *text. */
static int finish(FILE *f, char **buf, char **text, sp_err *err)
{
    /* the memstream sets *buf only when closed */
    if (fclose(f) != 0) {
        free(*buf);
        return sp_fail(err, "slurm: out of memory writing the script");
    }
    *text = *buf;
    return 0;
}

int sp_slurm_array_script(const sp_slurm_opts *o, char **text, sp_err *err)
{
    char q[4][1400], *buf = NULL;
    size_t len;
    if (check_opts(o, err) || quote_all(o, q, err))
        return -1;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return sp_fail(err, "slurm: out of memory");
    header(f, o, "spsweep", "slurm-%A_%a.out");
    fprintf(f, "#SBATCH --array=0-%d\n", o->shards - 1);
    task_resources(f, o);
    extra_args(f, o);
    fprintf(f, "#\n# spsweep sweep %s as %d shards, one per array task, each into its own\n"
               "# database; a task run again resumes its shard. Written by `spsweep slurm`.\n"
               "# Resubmit tasks: sbatch --array=i,j,... THIS_SCRIPT\n"
               "# (`spsweep merge --shards` prints which).\n", o->config, o->shards);
    if (o->why_cpus)
        fprintf(f, "# %s\n", o->why_cpus);
    fprintf(f, "set -eu\nshard=$((SLURM_ARRAY_TASK_ID + 1))\n");
    fprintf(f, "exec %s sweep %s --shard \"$shard/%d\" --db %s/shard-\"$shard\".db --quiet",
            q[0], q[1], o->shards, q[3]);
    if (o->cache_dir)
        fprintf(f, " --cache-dir %s", q[2]);
    fprintf(f, "\n");
    return finish(f, &buf, text, err);
}

int sp_slurm_fetch_script(const sp_slurm_opts *o, char **text, sp_err *err)
{
    char q[4][1400], *buf = NULL;
    size_t len;
    if (check_opts(o, err) || quote_all(o, q, err))
        return -1;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return sp_fail(err, "slurm: out of memory");
    header(f, o, "spsweep-fetch", "slurm-fetch-%j.out");
    extra_args(f, o);
    fprintf(f, "#\n# Fetch the matrices of %s once into the shared cache before the\n"
               "# array starts (tasks that still lack one wait on its fetch lock).\n",
            o->config);
    fprintf(f, "set -eu\nexec %s fetch --config %s --db %s/fetch.db --quiet", q[0], q[1], q[3]);
    if (o->cache_dir)
        fprintf(f, " --cache-dir %s", q[2]);
    fprintf(f, "\n");
    return finish(f, &buf, text, err);
}

/* The --cache-dir the array script passes its tasks, unquoted into out:
 * 1 when there is one, 0 when the script gives none. `spsweep merge
 * --shards` re-plans each shard with it, so that it reads the same index
 * sizes the tasks balanced their shards with (runner/plan/cost.c). */
int sp_slurm_script_cache_dir(const char *script, char *out, size_t len)
{
    const char *p = strstr(script, "\nexec ");
    p = p ? strstr(p, " --cache-dir ") : NULL;
    if (!p || len == 0)
        return 0;
    size_t n = 0;
    int quoted = 0;
    for (p += 13; *p && (quoted || (*p != ' ' && *p != '\n')); p++) {
        if (*p == '\'') {
            quoted = !quoted;
            continue;
        }
        if (*p == '\\' && !quoted && p[1])
            p++;
        if (n + 1 >= len)
            return 0;
        out[n++] = *p;
    }
    out[n] = 0;
    return n > 0;
}
