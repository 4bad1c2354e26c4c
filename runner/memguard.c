/*
 * memguard.c — will a combination fit? The parent compares what a kernel's
 * `need` states for host memory with MemAvailable of /proc/meminfo before
 * it forks the child; device memory is compared inside the child, just
 * before prepare (measure.c), because asking the device creates a CUDA
 * context and the parent must never hold one. The child's answer is the
 * exact free memory at that moment, with no other context of ours alive.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memguard.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* $SPSWEEP_MEM_AVAILABLE: bytes, or a number with K, M, G or T (powers
 * of 1024). -1 when unset or not such a number. */
static int mem_override(uint64_t *bytes)
{
    const char *env = getenv("SPSWEEP_MEM_AVAILABLE");
    char *end;
    if (!env || !isdigit((unsigned char)env[0]))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    const char *units = "KMGT", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    int shift = u ? 10 * (int)(u - units + 1) : 0;
    if (errno || (*end && (!u || end[1])) || v > (UINT64_MAX >> shift))
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

/* MemAvailable in bytes; -1 when /proc/meminfo does not say. The
 * environment's SPSWEEP_MEM_AVAILABLE stands in for it when set: the
 * guards' tests need a machine-independent answer, and a user sharing a
 * node can give the sweep less than the whole machine. */
int sp_host_mem_available(uint64_t *bytes)
{
    if (mem_override(bytes) == 0)
        return 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    int rc = -1;
    while (rc && fgets(line, sizeof line, f)) {
        uint64_t kib;
        if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1) {
            *bytes = kib * 1024;
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/* "needs X GiB of WHAT memory, Y GiB free" into msg. */
void sp_mem_shortfall(char *msg, size_t len, const char *what, uint64_t need, uint64_t avail)
{
    snprintf(msg, len, "needs %.2f GiB of %s memory, %.2f GiB free", (double)need / GIB,
             what, (double)avail / GIB);
}

/* 1 (with the reason in msg) when need exceeds the host's available
 * memory, else 0. Unknown availability lets the run go ahead. */
int sp_host_mem_short(uint64_t need, char *msg, size_t len)
{
    uint64_t avail;
    if (need == 0 || sp_host_mem_available(&avail) || need <= avail)
        return 0;
    sp_mem_shortfall(msg, len, "host", need, avail);
    return 1;
}
