/*
 * gpus.c — `spsweep sweep CONFIG --gpus all|0,1,... [sweep options]`: one
 * shard per GPU, run in parallel as child processes of this binary, each
 * with CUDA_VISIBLE_DEVICES set to its GPU (so it sees it as device 0) and
 * its own database DB_DIR/gpu-shards/shard-i.db and log beside it; merged
 * into the sweep's database at the end (db/merge.c).
 *
 * Each shard gets its own share of the host's CPUs (runner/cpushare.c):
 * its affinity is set to whole cores of one slice and OMP_NUM_THREADS to
 * their count, so the shards' loaders, references and OpenMP pools do not
 * oversubscribe the cores; the sweep's provenance records both.
 *
 * Each child is an ordinary `spsweep sweep --shard i/N`, so it resumes
 * when run again, and the merge skips what the database already holds.
 * `all` counts the devices with the forked probe (kernels/gpu_info.cu):
 * this process never creates a CUDA context.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../db/store.h"
#include "shards.h"

#define MAX_GPUS 64

typedef struct gpu_run {
    const char *config, *db, *gpus;
    char **pass;                /* the other sweep options, passed on */
    int npass;
    int dev[MAX_GPUS], ndev;
    char dir[PATH_MAX];
} gpu_run;

static int fail(const char *msg)
{
    fprintf(stderr, "spsweep sweep --gpus: %s\n", msg);
    return 1;
}

/* Options of `spsweep sweep` that take a value (runner/main.c). */
static int takes_value(const char *opt)
{
    static const char *const valued[] = {"--db", "--repetitions", "--warmup", "--axis",
        "--cache-dir", "--complex", "--timeout", "--shard", "--only", "--gpus", "--isolate",
        NULL};
    for (int i = 0; valued[i]; i++)
        if (!strcmp(opt, valued[i]))
            return 1;
    return 0;
}

/* Split argv (argv[0] = "sweep") into config, --gpus, --db and the rest. */
static int split_args(int argc, char **argv, gpu_run *g)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int eq = !strncmp(a, "--gpus=", 7) || !strncmp(a, "--db=", 5);
        if (!strcmp(a, "--shard") || !strncmp(a, "--shard=", 8))
            return fail("--gpus makes the shards itself; leave out --shard");
        if (eq || !strcmp(a, "--gpus") || !strcmp(a, "--db")) {
            const char *val = eq ? strchr(a, '=') + 1 : v;
            if (!val)
                return fail("--gpus and --db expect a value");
            *(a[2] == 'g' ? &g->gpus : &g->db) = val;
            i += !eq;
        } else if (a[0] != '-' && !g->config) {
            g->config = a;
        } else {
            g->pass[g->npass++] = argv[i];
            if (takes_value(a) && v)
                g->pass[g->npass++] = argv[++i];
        }
    }
    return g->config ? 0 : fail("expected one CONFIG file");
}

/* "all" (probe) or a comma-separated list of device numbers. */
static int parse_gpus(const char *s, gpu_run *g)
{
    if (!strcmp(s, "all")) {
        sp_gpu_info info;
        char reason[512];
        /* sp_gpu_probe returns 1 when a device is usable, 0 with the reason */
        if (sp_gpu_probe(&info, reason, sizeof reason) != 1)
            return fprintf(stderr, "spsweep sweep --gpus all: %s\n", reason) > 0;
        g->ndev = info.count < MAX_GPUS ? info.count : MAX_GPUS;
        for (int i = 0; i < g->ndev; i++)
            g->dev[i] = i;
        return g->ndev ? 0 : fail("no CUDA device");
    }
    for (const char *p = s; *p; g->ndev++) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 0 || d > 1023 || (*end && *end != ',') || g->ndev == MAX_GPUS)
            return fail("expected all or a list of device numbers, e.g. --gpus 0,1");
        g->dev[g->ndev] = (int)d;
        p = *end ? end + 1 : end;
    }
    return g->ndev ? 0 : fail("expected all or a list of device numbers, e.g. --gpus 0,1");
}

/* The database the merged sweep goes to: --db, else the config's. */
static int final_db(gpu_run *g, char *buf, size_t len)
{
    sp_config cfg;
    sp_err err;
    if (g->db)
        return snprintf(buf, len, "%s", g->db) >= (int)len;
    if (sp_config_load(g->config, NULL, &cfg, &err))
        return fail(err.msg);
    int rc = snprintf(buf, len, "%s", cfg.database ? cfg.database : "results/results.db") >=
             (int)len;
    sp_config_free(&cfg);
    return rc;
}

/* The CUDA_VISIBLE_DEVICES value for device number d as this process sees
 * it: d itself, or the d-th entry of an inherited list (Slurm sets one for
 * the GPUs it gave the job; entries may be UUIDs). */
static int visible_device(int d, char *buf, size_t len)
{
    const char *list = getenv("CUDA_VISIBLE_DEVICES");
    if (!list || !*list)
        return snprintf(buf, len, "%d", d) >= (int)len;
    for (int i = 0; *list; i++) {
        size_t n = strcspn(list, ",");
        if (i == d)
            return n == 0 || snprintf(buf, len, "%.*s", (int)n, list) >= (int)len;
        list += n + (list[n] == ',');
    }
    return fprintf(stderr, "spsweep sweep --gpus: GPU %d is not among CUDA_VISIBLE_DEVICES="
                   "%s\n", d, getenv("CUDA_VISIBLE_DEVICES")) > 0;
}

/* Start shard k+1 of ndev on GPU dev[k], output into its log; the pid. */
static pid_t start_shard(const gpu_run *g, int k)
{
    char shard[32], db[PATH_MAX + 32], log[PATH_MAX + 32], dev[128];
    snprintf(shard, sizeof shard, "%d/%d", k + 1, g->ndev);
    snprintf(db, sizeof db, SP_SHARD_DB_FMT, g->dir, k + 1);
    snprintf(log, sizeof log, "%s/shard-%d.log", g->dir, k + 1);
    if (visible_device(g->dev[k], dev, sizeof dev))
        return -1;
    cpu_set_t cpus;
    char cpu_text[256] = "all CPUs", threads[16];
    int ncpu = sp_cpu_share(k, g->ndev, &cpus);
    if (ncpu > 0)
        sp_cpuset_text(&cpus, cpu_text, sizeof cpu_text);
    snprintf(threads, sizeof threads, "%d", ncpu);
    printf("GPU %s: shard %s into %s (log %s), CPUs %s\n", dev, shard, db, log, cpu_text);
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    char *argv[8 + 128 + 1] = {"spsweep", "sweep", (char *)g->config, "--shard", shard,
                                   "--db", db, "--quiet"};
    int n = 8;
    for (int i = 0; i < g->npass; i++)
        argv[n++] = g->pass[i];
    argv[n] = NULL;
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
        _exit(127);
    setenv("CUDA_VISIBLE_DEVICES", dev, 1);
    if (ncpu > 0 && sched_setaffinity(0, sizeof cpus, &cpus) == 0)
        setenv("OMP_NUM_THREADS", threads, 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "spsweep: cannot run itself: %s\n", strerror(errno));
    _exit(127);
}

/* Wait for every shard; the worst exit status (1 beats 2 beats 0). */
static int wait_all(const gpu_run *g, const pid_t *pid)
{
    int worst = 0;
    for (int k = 0; k < g->ndev; k++) {
        int st = 0;
        if (pid[k] < 0 || waitpid(pid[k], &st, 0) < 0)
            st = 1 << 8;
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
        printf("GPU %d: shard %d/%d %s (exit %d)\n", g->dev[k], k + 1, g->ndev,
               code == 0 ? "done" : code == 2 ? "done, some runs not ok" : "failed", code);
        worst = code == 0 ? worst : code == 2 && worst != 1 ? 2 : 1;
    }
    return worst;
}

/* Merge the shard databases that exist into db. */
static int merge_shards(const gpu_run *g, const char *db)
{
    char paths[MAX_GPUS][PATH_MAX + 32];
    const char *in[MAX_GPUS];
    int n = 0;
    for (int k = 0; k < g->ndev; k++) {
        snprintf(paths[k], sizeof paths[k], SP_SHARD_DB_FMT, g->dir, k + 1);
        if (access(paths[k], R_OK) == 0)
            in[n++] = paths[k];
    }
    sp_merge_result res;
    sp_err err;
    if (n == 0)
        return fail("no shard wrote a database");
    if (sp_store_merge(db, in, n, 0, &res, &err))
        return fail(err.msg);
    printf("merged %d shards into %s: %d runs, %d already there\n", n, db, res.runs,
           res.duplicates);
    return 0;
}

int sp_cmd_sweep_gpus(int argc, char **argv)
{
    char *pass[128];
    char db[PATH_MAX];
    gpu_run g = {.pass = pass};
    if (argc > (int)(sizeof pass / sizeof *pass))
        return fail("too many options");
    if (split_args(argc, argv, &g) || parse_gpus(g.gpus, &g) || final_db(&g, db, sizeof db))
        return 1;
    char dbcopy[PATH_MAX];
    snprintf(dbcopy, sizeof dbcopy, "%s", db);
    snprintf(g.dir, sizeof g.dir, "%s/gpu-shards", dirname(dbcopy));
    sp_err err;
    if (sp_mkdir_p(g.dir, &err))
        return fprintf(stderr, "spsweep sweep --gpus: %s\n", err.msg) > 0;
    pid_t pid[MAX_GPUS];
    for (int k = 0; k < g.ndev; k++)
        pid[k] = start_shard(&g, k);
    int worst = wait_all(&g, pid);
    int merged = merge_shards(&g, db);
    return merged ? 1 : worst;
}
