/*
 * main.c — the spsweep command line: `--help`, `--version`, and the
 * dispatch of a command through the command table (commands.c), whose
 * every command is its own cmd_*.c with its option table (runner/cli/cli.h:
 * the same table prints its --help and docs/cli.md). A sweep's OpenMP
 * threads are pinned here, before the command runs, since that takes a
 * re-execution.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/store.h"
#include "../exec/sweep.h"
#include "../isolate/cpushare.h"
#include "commands.h"

#ifndef SP_OPT_FLAGS
#define SP_OPT_FLAGS "unknown"
#endif

/* Pin OpenMP threads the same way for every run of a sweep. libgomp reads
 * its environment when it loads, so set it and re-execute once. */
static void pin_threads(char **argv)
{
    if (getenv("OMP_PROC_BIND") || getenv("SPSWEEP_NO_PIN"))
        return;
    setenv("OMP_PROC_BIND", "close", 1);
    /* the CPUs this process may use, for the provenance: once bound,
     * libgomp narrows this thread's own affinity to its first place */
    cpu_set_t cpus;
    char text[256];
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) {
        sp_cpuset_text(&cpus, text, sizeof text);
        setenv("SPSWEEP_CPUS", text, 1);
    }
    if (!getenv("OMP_PLACES"))
        setenv("OMP_PLACES", "cores", 1);
    execv("/proc/self/exe", argv);      /* on failure: go on unpinned */
    unsetenv("OMP_PROC_BIND");
}

/* Is option opt (or opt=VALUE) on the command line? sweep is told from
 * sweep --gpus by it before its threads are pinned. */
static int has_option(int argc, char **argv, const char *opt)
{
    size_t n = strlen(opt);
    for (int i = 2; i < argc; i++)
        if (!strncmp(argv[i], opt, n) && (!argv[i][n] || argv[i][n] == '='))
            return 1;
    return 0;
}

/* `spsweep --version`: the build's name (git describe at build time, or
 * SP_VERSION outside a checkout), the commit sweeps record, the schema
 * of the databases it writes, and what it was built with: CUDA, and the
 * optional libraries told by whether their kernels are built. */
static int print_version(void)
{
    char commit[64];
    sp_build_version(commit, sizeof commit);
    int rsb = 0, mkl = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        rsb |= sp_kernels[i]->prepare && !strcmp(sp_kernels[i]->backend, "librsb");
        mkl |= sp_kernels[i]->prepare && strstr(sp_kernels[i]->backend, "mkl") != NULL;
    }
    printf("spsweep %s\n", sp_build_describe[0] ? sp_build_describe : SP_VERSION);
    printf("commit: %s\n", commit);
    printf("database schema: %d\n", sp_store_schema_version());
#ifdef SP_HAVE_CUDA
    const char *cuda = "yes";
#else
    const char *cuda = "no";
#endif
    int omp = _OPENMP;      /* the spec's date: 201511 is OpenMP 4.5 */
    const char *omp_version = omp >= 202111 ? "5.2" : omp >= 202011 ? "5.1"
                              : omp >= 201811 ? "5.0" : omp >= 201511 ? "4.5" : "< 4.5";
    printf("build: CUDA %s, librsb %s, MKL %s, OpenMP %s, gcc %s, %s\n", cuda,
           rsb ? "yes" : "no", mkl ? "yes" : "no", omp_version, __VERSION__, SP_OPT_FLAGS);
    return 0;
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) would kill spsweep with SIGXFSZ in the
     * middle of a database or cache write, its sweep left 'running'.
     * Ignored (children inherit it), the write fails with EFBIG and takes
     * the path of a full disk: the error said, the sweep marked failed,
     * what was stored kept. */
    signal(SIGXFSZ, SIG_IGN);
    const sp_cli_cmd *tables[SP_MAX_COMMANDS + 1];
    sp_command_tables(tables);
    if (argc < 2) {
        sp_cli_overview(tables, stderr);
        return SP_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        sp_cli_overview(tables, stdout);
        return 0;
    }
    if (!strcmp(name, "--version"))
        return print_version();
    const sp_command *cmd = sp_command_find(name);
    if (!cmd)
        return sp_command_unknown(name);
    /* not --gpus: libgomp would bind this process to one CPU, and the
     * shards' CPU shares are cut from what it may use (runner/scale/gpus.c) */
    if (cmd->run == sp_cmd_sweep && !has_option(argc, argv, "--gpus"))
        pin_threads(argv);
    return cmd->run(argc - 1, argv + 1);
}
