/*
 * cmd_slurm.c — `spsweep slurm CONFIG --shards N [--partition P]
 * [--time T] [--gpus-per-task G] [--cpus-per-task N] [--no-exclusive]
 * [--account A] [--qos Q] [--constraint C] [--sbatch-arg ARG]...
 * [--cache-dir DIR] [--out-dir DIR] [--no-submit]`: read the config's
 * threads axis for the CPUs a task needs, write the fetch script and the
 * job-array script
 * (runner/scale/slurm.c) into the out dir and submit them with `sbatch
 * --parsable`, the array after the fetch job (afterany: should the fetch
 * fail, each task fetches what it lacks itself, under the fetch locks).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "../exec/sweep.h"
#include "commands.h"
#include "../scale/shards.h"

enum { S_SHARDS = 1, S_PARTITION, S_TIME, S_GPUS, S_CACHE, S_OUT, S_NO_SUBMIT, S_CPUS,
       S_NO_EXCLUSIVE, S_ACCOUNT, S_QOS, S_CONSTRAINT, S_SBATCH_ARG };

#define MAX_SBATCH_ARGS 32

static const sp_cli_opt slurm_opts[] = {
    {"shards", "N", S_SHARDS, "array tasks, 1..100000 (required); task k runs --shard "
     "k+1/N into OUT/shard-(k+1).db"},
    {"partition", "P", S_PARTITION, "sbatch --partition (default: the cluster's)"},
    {"time", "T", S_TIME, "time limit per task, e.g. 2:00:00 (default: the "
     "partition's)"},
    {"gpus-per-task", "G", S_GPUS, "GPUs per task (default none)"},
    {"cpus-per-task", "N", S_CPUS, "CPUs per task (default: the largest `threads` value "
     "of the config; with threads up to nproc, a whole node through --exclusive). Without "
     "it most sites give a task one CPU and a threads axis collapses to 1"},
    {"no-exclusive", NULL, S_NO_EXCLUSIVE, "let tasks share nodes with other jobs (default: "
     "whole nodes, --exclusive, so nothing else runs beside a timed kernel)"},
    {"account", "A", S_ACCOUNT, "sbatch --account, the allocation charged (default: "
     "yours)"},
    {"qos", "Q", S_QOS, "sbatch --qos (default: the partition's)"},
    {"constraint", "C", S_CONSTRAINT, "node features the tasks need, e.g. avx512 or "
     "'intel&ib' (sbatch --constraint; default: any node)"},
    {"sbatch-arg", "ARG", S_SBATCH_ARG, "one more sbatch option for both scripts, one "
     "word, e.g. --mem=64G or --reservation=bench; repeat for more (up to 32)"},
    {"cache-dir", "DIR", S_CACHE, "matrix cache on a filesystem every node shares "
     "(default: the config's, else the tasks' own default)"},
    {"out-dir", "DIR", S_OUT, "scripts, shard databases and job logs (default "
     "results/shards)"},
    {"no-submit", NULL, S_NO_SUBMIT, "write the scripts only, and print the sbatch "
     "commands that submit them"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_slurm = {
    .name = "slurm",
    .synopsis = "CONFIG --shards N [options]",
    .summary = "run a sweep as a Slurm job array, one shard per task",
    .about = "Writes two scripts into the out dir, a fetch job (the config's SuiteSparse "
             "matrices into the cache) and a job array whose task k runs `spsweep sweep "
             "CONFIG --shard k+1/N`, and submits them with sbatch, the array after the "
             "fetch job. Each task asks for the CPUs the config's threads axis needs and, "
             "by default, a whole node, so that nothing else runs beside what it times. "
             "`spsweep merge --shards DIR` then merges the shard databases and says what "
             "to resubmit (docs/sweeps.md).",
    .opts = slurm_opts,
    .exits = "0 written (and submitted); "
             "1 a bad option value, a config that cannot be read, scripts that cannot be "
             "written, or sbatch failed; "
             "2 a command line that cannot be parsed",
    .examples = "configs/spmv.ini --shards 16 --partition gpu --gpus-per-task 1\n"
                "configs/cpu.ini --shards 8 --account proj42 --constraint avx512 "
                "--sbatch-arg --mem=0\n"
                "configs/default.ini --shards 4 --no-exclusive --no-submit",
};

typedef struct slurm_cli {
    sp_slurm_opts o;
    int no_submit;
    int cpus_given;
    const char *args[MAX_SBATCH_ARGS];
    char why[200];
} slurm_cli;

static int fail(const char *msg)
{
    fprintf(stderr, "spsweep slurm: %s\n", msg);
    return 1;
}

/* A positive integer option, or -1. */
static int count_arg(const char *v, int lo, int hi)
{
    char *end;
    long x = strtol(v, &end, 10);
    return *v && !*end && x >= lo && x <= hi ? (int)x : -1;
}

/* 0 parsed, -1 --help printed, else the exit status of a bad command line. */
static int parse(int argc, char **argv, slurm_cli *c)
{
    int opt;
    sp_cli_parser p;
    memset(c, 0, sizeof *c);
    c->o.out_dir = "results/shards";
    c->o.exclusive = 1;
    c->o.sbatch_args = c->args;
    sp_cli_begin(&p, &sp_cli_slurm);
    while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        switch (opt) {
        case SP_CLI_HELP: return -1;
        case SP_CLI_BAD: return SP_EXIT_USAGE;
        case S_SHARDS: c->o.shards = count_arg(optarg, 1, 100000); break;
        case S_PARTITION: c->o.partition = optarg; break;
        case S_TIME: c->o.time_limit = optarg; break;
        case S_GPUS: c->o.gpus_per_task = count_arg(optarg, 0, 1024); break;
        case S_CACHE: c->o.cache_dir = optarg; break;
        case S_OUT: c->o.out_dir = optarg; break;
        case S_NO_SUBMIT: c->no_submit = 1; break;
        case S_CPUS:
            c->o.cpus_per_task = count_arg(optarg, 1, 100000);
            c->cpus_given = 1;
            break;
        case S_NO_EXCLUSIVE: c->o.exclusive = 0; break;
        case S_ACCOUNT: c->o.account = optarg; break;
        case S_QOS: c->o.qos = optarg; break;
        case S_CONSTRAINT: c->o.constraint = optarg; break;
        case S_SBATCH_ARG:
            if (c->o.nsbatch_args == MAX_SBATCH_ARGS)
                return fail("--sbatch-arg: at most 32");
            c->args[c->o.nsbatch_args++] = optarg;
            break;
        }
    }
    if (argc - optind != 1)
        return fail("expected one CONFIG file (see `spsweep slurm --help`)");
    c->o.config = argv[optind];
    if (c->o.shards < 1)
        return fail("--shards expects N in 1..100000");
    if (c->o.gpus_per_task < 0)
        return fail("--gpus-per-task expects 0..1024");
    if (c->o.cpus_per_task < 0)
        return fail("--cpus-per-task expects 1..100000");
    return 0;
}

/* The largest `threads` value of the config's kernels (0: no threads
 * axis); *nproc set when one is written with nproc (as given or by the
 * kernel's default), which a compute node resolves to its own CPUs. */
static long threads_needed(const sp_config *cfg, int *nproc)
{
    long most = 0;
    *nproc = 0;
    for (int i = 0; i < cfg->nkernels; i++) {
        const sp_kernel_spec *ks = &cfg->kernels[i];
        for (int a = 0; a < ks->kernel->naxes; a++) {
            if (strcmp(ks->kernel->axes[a].name, "threads"))
                continue;
            const char *text = ks->axis_text[a] ? ks->axis_text[a] : ks->kernel->axes[a].defaults;
            *nproc |= text && strstr(text, "nproc") != NULL;
            for (int k = 0; k < ks->axes[a].n; k++)
                if (ks->axes[a].v[k] > most)
                    most = ks->axes[a].v[k];
        }
    }
    return most;
}

/* Unless --cpus-per-task was given: what the config's threads axis needs.
 * Threads up to nproc want a whole node: --exclusive gives it (the node's
 * CPUs, whatever it has); shared, the largest value seen here is asked. */
static int choose_cpus(slurm_cli *c)
{
    sp_config cfg = {0};
    sp_err err;
    if (sp_config_load(c->o.config, NULL, &cfg, &err)) {
        fprintf(stderr, "spsweep slurm: %s\n", err.msg);
        return 1;
    }
    int nproc;
    long most = threads_needed(&cfg, &nproc);
    sp_config_free(&cfg);
    if (c->cpus_given) {
        snprintf(c->why, sizeof c->why, "CPUs per task: --cpus-per-task %d",
                 c->o.cpus_per_task);
    } else if (nproc && c->o.exclusive) {
        snprintf(c->why, sizeof c->why, "CPUs per task: threads up to nproc, so the whole "
                 "node (--exclusive): nproc is the node's CPUs");
    } else if (most > 0) {
        c->o.cpus_per_task = (int)most;
        snprintf(c->why, sizeof c->why, "CPUs per task: %ld, the config's largest threads "
                 "value%s", most, nproc ? " (nproc on the node that wrote this)" : "");
    }
    c->o.why_cpus = c->why[0] ? c->why : NULL;
    return 0;
}

/* Write text to dir/name, executable. */
static int write_script(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0 || chmod(path, 0755) != 0) {
        fprintf(stderr, "spsweep slurm: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Both scripts into the out dir. */
static int write_scripts(const sp_slurm_opts *o)
{
    char *array = NULL, *fetch = NULL;
    sp_err err;
    if (sp_slurm_array_script(o, &array, &err) || sp_slurm_fetch_script(o, &fetch, &err)) {
        free(array);
        return fail(err.msg);
    }
    int rc = 0;
    if (sp_mkdir_p(o->out_dir, &err))
        rc = fprintf(stderr, "spsweep slurm: %s\n", err.msg) > 0;
    else
        rc = write_script(o->out_dir, SP_SLURM_FETCH_SCRIPT, fetch) ||
             write_script(o->out_dir, SP_SLURM_ARRAY_SCRIPT, array);
    free(array);
    free(fetch);
    return rc;
}

/* Run `sbatch --parsable [dep] script`; the job id into id. */
static int sbatch(const char *dep, const char *dir, const char *name, char *id, size_t len)
{
    int fd[2];
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (pipe(fd) != 0)
        return fail("pipe failed");
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]), close(fd[1]);
        if (dep)
            execlp("sbatch", "sbatch", "--parsable", dep, path, (char *)NULL);
        else
            execlp("sbatch", "sbatch", "--parsable", path, (char *)NULL);
        fprintf(stderr, "spsweep slurm: cannot run sbatch: %s (is Slurm installed? "
                "--no-submit writes the scripts only)\n", strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    ssize_t n = pid > 0 ? read(fd[0], id, len - 1) : -1;
    close(fd[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || n <= 0)
        return fprintf(stderr, "spsweep slurm: sbatch %s failed\n", path) > 0;
    id[n] = 0;
    id[strcspn(id, ";\n")] = 0;     /* "id" or "id;cluster" */
    return 0;
}

/* Submit the fetch job, then the array after it; print how to follow. */
static int submit(const sp_slurm_opts *o)
{
    char fetch_id[64], array_id[64], dep[96];
    if (sbatch(NULL, o->out_dir, SP_SLURM_FETCH_SCRIPT, fetch_id, sizeof fetch_id))
        return 1;
    snprintf(dep, sizeof dep, "--dependency=afterany:%s", fetch_id);
    if (sbatch(dep, o->out_dir, SP_SLURM_ARRAY_SCRIPT, array_id, sizeof array_id))
        return 1;
    printf("submitted fetch job %s and job array %s (%d tasks, after the fetch job)\n",
           fetch_id, array_id, o->shards);
    printf("follow it:  squeue -j %s,%s\n", fetch_id, array_id);
    printf("afterwards: sacct -j %s --format=JobID,State,Elapsed,ExitCode\n", array_id);
    printf("then merge: spsweep merge --shards %s --expect %d --job %s\n", o->out_dir,
           o->shards, array_id);
    return 0;
}

int sp_cmd_slurm(int argc, char **argv)
{
    slurm_cli c;
    char bin[PATH_MAX], cwd[PATH_MAX];
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (access(c.o.config, R_OK) != 0)
        return fprintf(stderr, "spsweep slurm: cannot read %s: %s\n", c.o.config,
                       strerror(errno)) > 0;
    if (choose_cpus(&c))
        return 1;
    ssize_t n = readlink("/proc/self/exe", bin, sizeof bin - 1);
    if (n <= 0 || !getcwd(cwd, sizeof cwd))
        return fail("cannot find this binary or the working directory");
    bin[n] = 0;
    c.o.bin = bin, c.o.workdir = cwd;
    if (write_scripts(&c.o))
        return 1;
    printf("wrote %s/%s and %s/%s\n", c.o.out_dir, SP_SLURM_FETCH_SCRIPT, c.o.out_dir,
           SP_SLURM_ARRAY_SCRIPT);
    if (c.no_submit) {
        printf("submit with: jid=$(sbatch --parsable %s/%s) && sbatch "
               "--dependency=afterany:$jid %s/%s\n", c.o.out_dir, SP_SLURM_FETCH_SCRIPT,
               c.o.out_dir, SP_SLURM_ARRAY_SCRIPT);
        return 0;
    }
    return submit(&c.o);
}
