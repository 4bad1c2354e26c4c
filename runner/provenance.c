/*
 * provenance.c — what a sweep ran on: commit, host, CPU, compiler and
 * flags, thread binding, GPU. Stored with every sweep.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"

#ifndef SP_OPT_FLAGS
#define SP_OPT_FLAGS "unknown"
#endif

/* First line of a shell command's output, trimmed; "" on failure. */
static void command_line(const char *cmd, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    if (!fgets(buf, (int)len, p))
        buf[0] = 0;
    pclose(p);
    buf[strcspn(buf, "\r\n")] = 0;
}

static void git_commit(char *buf, size_t len)
{
    char dirty[16];
    command_line("git rev-parse --short=12 HEAD 2>/dev/null", buf, len);
    if (!buf[0]) {
        snprintf(buf, len, "unknown");
        return;
    }
    command_line("git status --porcelain --untracked-files=no 2>/dev/null | head -c 1",
                 dirty, sizeof dirty);
    if (dirty[0])
        strncat(buf, "-dirty", len - strlen(buf) - 1);
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
    if (!p->have_gpu)
        return;
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
    git_commit(p->git_commit, sizeof p->git_commit);
    if (gethostname(p->host, sizeof p->host - 1))
        snprintf(p->host, sizeof p->host, "unknown");
    cpu_model(p->cpu, sizeof p->cpu);
    p->cpu_count = omp_get_num_procs();
    snprintf(p->compiler, sizeof p->compiler, "gcc %s", __VERSION__);
    snprintf(p->cflags, sizeof p->cflags, "%s", SP_OPT_FLAGS);
    const char *bind = getenv("OMP_PROC_BIND"), *places = getenv("OMP_PLACES");
    snprintf(p->omp_binding, sizeof p->omp_binding, "OMP_PROC_BIND=%s OMP_PLACES=%s",
             bind ? bind : "unset", places ? places : "unset");
    gpu_fields(p);
}
