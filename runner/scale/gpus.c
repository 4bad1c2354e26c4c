/*
 * gpus.c — `spsweep sweep CONFIG --gpus all|0,1,... [sweep options]`: one
 * shard per GPU, run in parallel as child processes of this binary, each
 * with CUDA_VISIBLE_DEVICES set to its GPU (so it sees it as device 0) and
 * its own database DB_DIR/gpu-shards/shard-i.db and log beside it; merged
 * into the sweep's database at the end (db/merge.c).
 *
 * Each shard gets its own share of the host's CPUs (runner/isolate/cpushare.c):
 * its affinity is set to whole cores of one slice and OMP_NUM_THREADS to
 * their count, so the shards' loaders, references and OpenMP pools do not
 * oversubscribe the cores; the sweep's provenance records both.
 *
 * Each child is an ordinary `spsweep sweep --shard i/N`, so it resumes
 * when run again, and the merge skips what the database already holds.
 * A shard killed by a signal other than an interrupt (kill -9, a crash of
 * the shard process itself, the kernel's OOM killer) is started again on
 * its GPU, up to MAX_RESTARTS times: it resumes its own database, where
 * every run is stored whole in one transaction, so the runs it stored are
 * kept and the one it was in is run again from its start; nothing is
 * stored twice (db/store_run.c refuses a second copy of a round).
 * `all` counts the NVIDIA driver's devices (or, without the driver's list,
 * asks the forked probe, kernels/gpu_info.cu): this process never creates
 * a CUDA context.
 *
 * At the end it says where the time went: its own probe, each shard's
 * wall time split as the shard's log line says (runner/exec/sweep.c
 * say_timing: machine record with the GPU probe and device-copy
 * measurement, sweep record with the host bandwidth measurement, runs,
 * closing) and the start of the shard processes, then the merge.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../db/store.h"
#include "shards.h"

#define MAX_GPUS 64
#define MAX_RESTARTS 2          /* per shard, after a death by signal */

typedef struct gpu_run {
    const char *config, *db, *gpus;
    char **pass;                /* the other sweep options, passed on */
    int npass;
    int dev[MAX_GPUS], ndev;
    char dir[PATH_MAX];
    double probe_s;             /* `all`: the forked probe; 0 for a list */
} gpu_run;

/* One shard process over its attempts. */
typedef struct shard_proc {
    pid_t pid;                  /* the running attempt; -1: none (ended) */
    int attempts, code;         /* code: exit status of the last attempt */
    double t0, wall_s;          /* first start; seconds until the last exit */
    long log_at;                /* size of its log before this command */
} shard_proc;

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    interrupted = sig;
}

static int fail(const char *msg)
{
    fprintf(stderr, "spsweep sweep --gpus: %s\n", msg);
    return 1;
}

/* Options of `spsweep sweep` that take a value (runner/cli/main.c). */
static int takes_value(const char *opt)
{
    static const char *const valued[] = {"--db", "--repetitions", "--warmup", "--axis",
        "--cache-dir", "--complex", "--timeout", "--shard", "--only", "--gpus", "--isolate",
        "--read-threads", NULL};
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

/* The GPUs this process may use, counted without a CUDA context: the
 * NVIDIA driver's list of devices (/proc/driver/nvidia/gpus, one folder
 * per GPU), or the entries of CUDA_VISIBLE_DEVICES when that is set and
 * shorter. 0 when the driver's list is not there (then the probe
 * decides). The shards probe their own GPU anyway, and each CUDA context
 * the probe makes costs 0.6-1.3 s of the command when shards start
 * together (4 x H200). */
static int driver_gpus(void)
{
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    const char *list = getenv("CUDA_VISIBLE_DEVICES");
    if (n > 0 && list) {
        int v = *list ? 1 : 0;
        for (const char *p = list; *p; p++)
            v += *p == ',';
        n = v < n ? v : n;
    }
    return n;
}

/* "all" (counted, else probed) or a comma-separated list of device numbers. */
static int parse_gpus(const char *s, gpu_run *g)
{
    double t0 = sp_seconds();
    int counted = strcmp(s, "all") ? 0 : driver_gpus();
    if (counted > 0) {
        g->ndev = counted < MAX_GPUS ? counted : MAX_GPUS;
        for (int i = 0; i < g->ndev; i++)
            g->dev[i] = i;
        g->probe_s = sp_seconds() - t0;
        return 0;
    }
    if (!strcmp(s, "all")) {
        sp_gpu_info info;
        char reason[512];
        /* sp_gpu_probe returns 1 when a device is usable, 0 with the reason */
        int usable = sp_gpu_probe(&info, reason, sizeof reason);
        g->probe_s = sp_seconds() - t0;
        if (usable != 1)
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

/* Start shard k+1 of ndev on GPU dev[k], output appended to its log (its
 * progress lines and its timing line, which the end of this command
 * reads); the pid. */
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
    char *argv[7 + 128 + 1] = {"spsweep", "sweep", (char *)g->config, "--shard", shard,
                                   "--db", db};
    int n = 7;
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

static void shard_log(const gpu_run *g, int k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/shard-%d.log", g->dir, k + 1);
}

/* The size of shard k's log now; 0 when it has none. */
static long log_size(const gpu_run *g, int k)
{
    char log[PATH_MAX + 32];
    struct stat sb;
    shard_log(g, k, log, sizeof log);
    return stat(log, &sb) == 0 ? (long)sb.st_size : 0;
}

/* Which shard a pid is; -1 for none. */
static int shard_of(const gpu_run *g, const shard_proc *sp, pid_t pid)
{
    for (int k = 0; k < g->ndev; k++)
        if (sp[k].pid == pid)
            return k;
    return -1;
}

/* Start shard k (again), counting the attempt. */
static void launch(const gpu_run *g, shard_proc *sp, int k)
{
    sp[k].pid = start_shard(g, k);
    sp[k].attempts++;
    if (sp[k].pid < 0) {
        sp[k].code = 1;
        sp[k].wall_s = sp_seconds() - sp[k].t0;
    }
}

/* Shard k's attempt ended with wait status st: start it again when a
 * signal other than an interrupt killed it and restarts are left (and this
 * command was not interrupted); else record its exit. */
static void ended(const gpu_run *g, shard_proc *sp, int k, int st)
{
    sp[k].pid = -1;
    sp[k].wall_s = sp_seconds() - sp[k].t0;
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        int again = !interrupted && sig != SIGINT && sig != SIGTERM && sig != SIGHUP &&
                    sp[k].attempts <= MAX_RESTARTS;
        printf("GPU %d: shard %d/%d killed by signal %d (%s)%s\n", g->dev[k], k + 1,
               g->ndev, sig, strsignal(sig), again ? "; started again on the same GPU, "
               "resuming from its database" : "");
        fflush(stdout);
        sp[k].code = 1;
        if (again)
            launch(g, sp, k);
        return;
    }
    sp[k].code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* Run every shard to its end; the worst exit status (1 beats 2 beats 0). */
static int run_all(const gpu_run *g, shard_proc *sp)
{
    struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    for (int k = 0; k < g->ndev; k++) {
        sp[k] = (shard_proc){.pid = -1, .t0 = sp_seconds(), .log_at = log_size(g, k)};
        launch(g, sp, k);
    }
    for (;;) {
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0 && errno == EINTR)
            continue;           /* the shards get the interrupt too and stop */
        if (pid < 0)
            break;              /* no child left */
        int k = shard_of(g, sp, pid);
        if (k >= 0)
            ended(g, sp, k, st);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    int worst = 0;
    for (int k = 0; k < g->ndev; k++) {
        int code = sp[k].code;
        printf("GPU %d: shard %d/%d %s (exit %d%s)\n", g->dev[k], k + 1, g->ndev,
               code == 0 ? "done" : code == 2 ? "done, some runs not ok" : "failed", code,
               sp[k].attempts > 1 ? ", after a restart" : "");
        worst = code == 0 ? worst : code == 2 && worst != 1 ? 2 : 1;
    }
    return worst;
}

/* The timing lines shard k's attempts of this command wrote to its log
 * (runner/exec/sweep.c say_timing), added up: t[0..3] = machine record, sweep
 * record, runs, closing; 0 when there is at least one. An attempt killed
 * before its end wrote none: its time is in no part. */
static int shard_timing(const gpu_run *g, const shard_proc *sp, int k, double *t)
{
    char log[PATH_MAX + 32], line[512];
    shard_log(g, k, log, sizeof log);
    FILE *f = fopen(log, "r");
    int found = -1;
    if (!f)
        return -1;
    t[0] = t[1] = t[2] = t[3] = 0;
    if (fseek(f, sp[k].log_at, SEEK_SET) == 0)
        while (fgets(line, sizeof line, f)) {
            double x[4];
            if (sscanf(line, SP_SWEEP_TIMING_SCAN, &x[0], &x[1], &x[2], &x[3]) != 4)
                continue;
            for (int i = 0; i < 4; i++)
                t[i] += x[i];
            found = 0;
        }
    fclose(f);
    return found;
}

/* Where the time went: the probe, each shard's wall time and its parts,
 * the merge, and the whole command. A shard's start (fork, exec, plan,
 * opening its database) is its wall time less the parts its log names. */
static void say_breakdown(const gpu_run *g, const shard_proc *sp, double merge_s,
                          double total_s)
{
    if (g->probe_s > 0)
        printf("time: counting the GPUs %.2f s (--gpus all), merge %.2f s, command %.2f s\n",
               g->probe_s, merge_s, total_s);
    else
        printf("time: merge %.2f s, command %.2f s\n", merge_s, total_s);
    for (int k = 0; k < g->ndev; k++) {
        double t[4];
        if (shard_timing(g, sp, k, t)) {
            printf("time: GPU %d: shard %d/%d %.2f s (its log has no timing line)\n",
                   g->dev[k], k + 1, g->ndev, sp[k].wall_s);
            continue;
        }
        double rest = sp[k].wall_s - t[0] - t[1] - t[2] - t[3];
        printf("time: GPU %d: shard %d/%d %.2f s = runs %.2f s + outside runs %.2f s "
               "(machine record and GPU probe %.2f, sweep record and host bandwidth %.2f, "
               "closing %.2f, other %.2f: process start, plan%s)\n", g->dev[k], k + 1,
               g->ndev,
               sp[k].wall_s, t[2], sp[k].wall_s - t[2], t[0], t[1], t[3], rest,
               sp[k].attempts > 1 ? ", the killed attempts" : "");
    }
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
    double t0 = sp_seconds();
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
    shard_proc sp[MAX_GPUS];
    int worst = run_all(&g, sp);
    double t_merge = sp_seconds();
    int merged = merge_shards(&g, db);
    double t_end = sp_seconds();
    say_breakdown(&g, sp, t_end - t_merge, t_end - t0);
    return merged ? 1 : worst;
}
