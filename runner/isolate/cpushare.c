/*
 * cpushare.c — the host's cores shared out between the GPU shards of one
 * host (runner/scale/gpus.c), so that N shard processes — their matrix loaders,
 * references, CPU kernels and OpenMP pools — do not oversubscribe the
 * cores they share. Shard k of N gets the k-th of N contiguous slices of
 * this process's allowed CPUs ordered by (package, core, CPU): whole cores
 * (hyperthread siblings together), one package before the next. With
 * fewer CPUs than shards nobody is pinned.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpushare.h"

typedef struct cpu_key {
    int package, core, cpu;
} cpu_key;

/* A topology number from sysfs, or dflt. */
static int topo(int cpu, const char *what, int dflt)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "r");
    int v = dflt;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = dflt;
        fclose(f);
    }
    return v;
}

static int by_topology(const void *a, const void *b)
{
    const cpu_key *x = a, *y = b;
    if (x->package != y->package)
        return x->package - y->package;
    if (x->core != y->core)
        return x->core - y->core;
    return x->cpu - y->cpu;
}

/* Shard k (0-based) of n: its CPUs into *set; the count, 0 when the CPUs
 * are too few to share (or cannot be read). */
int sp_cpu_share(int k, int n, cpu_set_t *set)
{
    cpu_set_t all;
    CPU_ZERO(set);
    if (n < 1 || sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < n)
        return 0;
    cpu_key keys[CPU_SETSIZE];
    int m = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all))
            keys[m++] = (cpu_key){topo(c, "physical_package_id", 0), topo(c, "core_id", c), c};
    qsort(keys, (size_t)m, sizeof *keys, by_topology);
    int lo = (int)((long)m * k / n), hi = (int)((long)m * (k + 1) / n);
    for (int i = lo; i < hi; i++)
        CPU_SET(keys[i].cpu, set);
    return hi - lo;
}

/* "0-7,16-23": the CPUs of set as ranges. */
void sp_cpuset_text(const cpu_set_t *set, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && at < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        int w = e > c ? snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", c, e)
                      : snprintf(buf + at, len - at, "%s%d", at ? "," : "", c);
        at += w > 0 ? (size_t)w : 0;
        c = e;
    }
}
