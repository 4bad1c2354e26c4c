/*
 * cmd_slurm.c — `spsweep slurm CONFIG --shards N [--partition P]
 * [--time T] [--gpus-per-task G] [--cache-dir DIR] [--out-dir DIR]
 * [--no-submit]`: write the fetch script and the job-array script
 * (runner/slurm.c) into the out dir and submit them with `sbatch
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
#include "shards.h"

enum { S_SHARDS = 1, S_PARTITION, S_TIME, S_GPUS, S_CACHE, S_OUT, S_NO_SUBMIT };

static const sp_cli_opt slurm_opts[] = {
    {"shards", "N", S_SHARDS, "array tasks, 1..100000 (required); task k runs --shard "
     "k+1/N into OUT/shard-(k+1).db"},
    {"partition", "P", S_PARTITION, "sbatch --partition (default: the cluster's)"},
    {"time", "T", S_TIME, "time limit per task, e.g. 2:00:00 (default: the "
     "partition's)"},
    {"gpus-per-task", "G", S_GPUS, "GPUs per task (default none)"},
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
             "fetch job. `spsweep merge --shards DIR` then merges the shard databases and "
             "says what to resubmit (docs/sweeps.md).",
    .opts = slurm_opts,
    .exits = "0 written (and submitted); "
             "1 a bad option value, a config that cannot be read, scripts that cannot be "
             "written, or sbatch failed; "
             "2 a command line that cannot be parsed",
    .examples = "configs/spmv.ini --shards 16 --partition gpu --gpus-per-task 1\n"
                "configs/default.ini --shards 4 --no-submit",
};

typedef struct slurm_cli {
    sp_slurm_opts o;
    int no_submit;
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
        }
    }
    if (argc - optind != 1)
        return fail("expected one CONFIG file (see `spsweep slurm --help`)");
    c->o.config = argv[optind];
    if (c->o.shards < 1)
        return fail("--shards expects N in 1..100000");
    if (c->o.gpus_per_task < 0)
        return fail("--gpus-per-task expects 0..1024");
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
