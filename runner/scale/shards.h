/* shards.h — scale-out: the Slurm job-array scripts (runner/scale/slurm.c), the
 * completeness check of shard databases (runner/scale/shards.c) and running one
 * shard per GPU (runner/scale/gpus.c). */
#ifndef SP_SHARDS_H
#define SP_SHARDS_H

#include <stddef.h>
#include "../exec/sweep.h"
#include "../isolate/cpushare.h"

/* ---- shard check (runner/scale/shards.c) --------------------------------- */
typedef struct sp_shard_state {
    int index, count;           /* shard index/count, 1-based */
    int complete;               /* status 'done' and every pair covered */
    int missing;                /* no database at all */
    int expected, covered;      /* pairs of the plan's shard, pairs the db holds */
    char why[512];              /* when not complete: the reason, one line */
} sp_shard_state;

int sp_shard_check(const char *db, int index, int count, const char *cache_dir,
                   sp_shard_state *out, sp_err *err);

/* ---- Slurm scripts (runner/scale/slurm.c) -------------------------------- */
typedef struct sp_slurm_opts {
    const char *config;         /* config path, as the jobs will see it */
    int shards;                 /* array tasks 0..shards-1 run shards 1..shards */
    const char *partition;      /* NULL: the cluster's default */
    const char *time_limit;     /* per task; NULL: the partition's default */
    int gpus_per_task;          /* 0: none asked */
    const char *cache_dir;      /* shared matrix cache; NULL: spsweep's default */
    const char *out_dir;        /* shard databases, scripts and job logs */
    const char *bin;            /* absolute path of spsweep */
    const char *workdir;        /* absolute directory the jobs run in */
    /* the array's tasks only (the fetch job times nothing) */
    int cpus_per_task;          /* 0: none asked (the site's default, often 1) */
    int exclusive;              /* 1: whole nodes (--exclusive), as timing wants */
    const char *constraint;     /* node features, e.g. "avx512&ib"; NULL: any */
    const char *why_cpus;       /* one comment line on the CPUs asked; NULL: none */
    /* both scripts */
    const char *account;        /* NULL: the user's default */
    const char *qos;            /* NULL: the default */
    const char *const *sbatch_args; /* more #SBATCH options, one word each ("--mem=64G") */
    int nsbatch_args;
} sp_slurm_opts;

/* Single-quote s for a POSIX shell when it holds anything but
 * [A-Za-z0-9_./:=@%+,-]; -1 when buf is too small. */
int sp_shell_quote(const char *s, char *buf, size_t len);
/* The job-array script and the fetch script, malloc'd text. */
int sp_slurm_array_script(const sp_slurm_opts *o, char **text, sp_err *err);
int sp_slurm_fetch_script(const sp_slurm_opts *o, char **text, sp_err *err);
/* The --cache-dir an array script gives its tasks (unquoted): 1, or 0
 * when it gives none. */
int sp_slurm_script_cache_dir(const char *script, char *out, size_t len);
/* Names of the scripts and shard databases under out_dir. */
#define SP_SLURM_ARRAY_SCRIPT "sweep.sbatch"
#define SP_SLURM_FETCH_SCRIPT "fetch.sbatch"
#define SP_SHARD_DB_FMT "%s/shard-%d.db"

/* ---- one shard per GPU (runner/scale/gpus.c) ----------------------------- */
/* `spsweep sweep --gpus ...`: argv[0] is "sweep"; returns the exit status
 * (runner/cli/main.c calls it once the sweep table has checked the options). */
int sp_cmd_sweep_gpus(int argc, char **argv);

#endif
