/*
 * provenance.c — what a sweep ran on: spsweep's commit and dirty flag
 * (baked in at build time), host, CPU model and topology, memory, OS and
 * kernel, compiler and flags, thread binding, the outside CPU libraries
 * (librsb; Intel MKL and its threading layer when built in), GPU (from the
 * forked probe: name, SMs, memory, clocks, copy bandwidth). Stored with
 * every sweep.
 */
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sweep.h"
#include "../isolate/cpushare.h"

#ifndef SP_OPT_FLAGS
#define SP_OPT_FLAGS "unknown"
#endif

/* spsweep's own commit, "-dirty" appended when its source tree differed
 * from it; "unknown" when it was not built from a git checkout. Baked in
 * by the Makefile ($(BUILD)/version.c): the working directory's
 * repository, which `git rev-parse` at run time would name, is not
 * spsweep's. */
void sp_build_version(char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", sp_build_commit, sp_build_dirty == 1 ? "-dirty" : "");
}

/* Sockets, physical cores and hardware threads from /proc/cpuinfo: the
 * distinct "physical id"s, distinct (physical id, core id) pairs and
 * "processor" entries. VMs that hide the topology count as one socket with
 * one core per thread. */
static void cpu_topology(sp_provenance *p)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    int phys = 0, seen_pkg[256] = {0}, seen_core[256][64] = {{0}};
    while (fgets(line, sizeof line, f)) {
        int v;
        if (sscanf(line, "processor : %d", &v) == 1)
            p->cpu_threads++;
        else if (sscanf(line, "physical id : %d", &v) == 1 && v >= 0 && v < 256)
            phys = v, p->cpu_sockets += !seen_pkg[v]++;
        else if (sscanf(line, "core id : %d", &v) == 1 && v >= 0 && v < 64)
            p->cpu_cores += !seen_core[phys][v]++;
    }
    fclose(f);
    if (p->cpu_sockets == 0)
        p->cpu_sockets = 1;
    if (p->cpu_cores == 0)
        p->cpu_cores = p->cpu_threads;
}

/* OS name from /etc/os-release, kernel from uname. */
static void os_release(sp_provenance *p)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(p->kernel_release, sizeof p->kernel_release, "%.30s %.90s", u.sysname,
                 u.release);
    FILE *f = fopen("/etc/os-release", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "PRETTY_NAME=", 12)) {
            char *v = line + 12 + (line[12] == '"');
            v[strcspn(v, "\"\n")] = 0;
            snprintf(p->os, sizeof p->os, "%s", v);
        }
    if (f)
        fclose(f);
}

/* MemTotal in GiB. */
static double mem_total_gib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %lf kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib / (1024.0 * 1024.0);
}

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && !strncmp(line, "model name", 10)) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = 0;
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static void gpu_fields(sp_provenance *p)
{
    sp_gpu_info g;
    memset(&g, 0, sizeof g);
    p->have_gpu = sp_gpu_probe(&g, p->gpu_reason, sizeof p->gpu_reason);
    if (!p->have_gpu) {
        snprintf(p->gpu_detail, sizeof p->gpu_detail, "%s", g.detail);
        return;
    }
    p->gpu_info = g;
    snprintf(p->gpu, sizeof p->gpu, "%.200s (sm_%d%d, %.1f GiB)%s", g.name, g.cc_major,
             g.cc_minor, g.mem_total_gib, g.count > 1 ? " x several" : "");
    snprintf(p->gpu_driver, sizeof p->gpu_driver, "%d.%d", g.driver_version / 1000,
             (g.driver_version % 1000) / 10);
    snprintf(p->cuda_runtime, sizeof p->cuda_runtime, "%d.%d", g.runtime_version / 1000,
             (g.runtime_version % 1000) / 10);
}

void sp_provenance_collect(sp_provenance *p)
{
    memset(p, 0, sizeof *p);
    sp_build_version(p->git_commit, sizeof p->git_commit);
    p->git_dirty = sp_build_dirty;
    cpu_topology(p);
    os_release(p);
    p->mem_total_gib = mem_total_gib();
    if (gethostname(p->host, sizeof p->host - 1))
        snprintf(p->host, sizeof p->host, "unknown");
    cpu_model(p->cpu, sizeof p->cpu);
    p->cpu_count = omp_get_num_procs();
    snprintf(p->compiler, sizeof p->compiler, "gcc %s", __VERSION__);
    snprintf(p->cflags, sizeof p->cflags, "%s", SP_OPT_FLAGS);
    const char *bind = getenv("OMP_PROC_BIND"), *places = getenv("OMP_PLACES");
    const char *nthreads = getenv("OMP_NUM_THREADS");
    /* the CPUs this process may use: all of them, or a GPU shard's share;
     * as they were before libgomp bound this thread (runner/cli/main.c) */
    char cpus[256] = "?";
    cpu_set_t set;
    if (getenv("SPSWEEP_CPUS"))
        snprintf(cpus, sizeof cpus, "%s", getenv("SPSWEEP_CPUS"));
    else if (sched_getaffinity(0, sizeof set, &set) == 0)
        sp_cpuset_text(&set, cpus, sizeof cpus);
    snprintf(p->omp_binding, sizeof p->omp_binding,
             "OMP_PROC_BIND=%s OMP_PLACES=%s OMP_NUM_THREADS=%s CPUs=%s",
             bind ? bind : "unset", places ? places : "unset", nthreads ? nthreads : "unset",
             cpus);
    sp_kernel_libraries(p->libraries, sizeof p->libraries);
    gpu_fields(p);
}
