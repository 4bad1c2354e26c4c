/*
 * hostmem.c — how much host memory this process may still take, asked
 * before a large allocation rather than learnt from the OOM killer.
 *
 * MemAvailable is the kernel's estimate of what can be allocated without
 * swapping. A process under an address-space limit (ulimit -v, as some
 * batch systems set) can take less: the limit minus its current virtual
 * size, so that limit counts too. A cgroup's memory.max is not read: its
 * usage includes reclaimable page cache, which would make a file-heavy job
 * look full when it is not.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hostmem.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* MemAvailable in bytes; -1 when /proc/meminfo does not say. */
static int meminfo_available(uint64_t *bytes)
{
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

/* What RLIMIT_AS leaves above the current virtual size; -1 when unlimited
 * or unknown. */
static int address_space_left(uint64_t *bytes)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
        return -1;
    FILE *f = fopen("/proc/self/statm", "r");
    uint64_t pages = 0;
    int ok = f && fscanf(f, "%" SCNu64, &pages) == 1;
    if (f)
        fclose(f);
    if (!ok)
        return -1;
    uint64_t used = pages * (uint64_t)sysconf(_SC_PAGESIZE);
    *bytes = (uint64_t)rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
    return 0;
}

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

/* The environment's SPSWEEP_MEM_AVAILABLE stands in for the machine's
 * answer when set: the guards' tests need a machine-independent answer,
 * and a user sharing a node can give the sweep less than the whole
 * machine. */
int sp_host_mem_available(uint64_t *bytes)
{
    if (mem_override(bytes) == 0)
        return 0;
    uint64_t avail, left;
    int have = meminfo_available(&avail) == 0;
    if (address_space_left(&left) == 0) {
        avail = have && avail < left ? avail : left;
        have = 1;
    }
    if (have)
        *bytes = avail;
    return have ? 0 : -1;
}

void sp_mem_shortfall(char *msg, size_t len, const char *what, uint64_t need, uint64_t avail)
{
    snprintf(msg, len, "needs %.2f GiB of %s memory, %.2f GiB free", (double)need / GIB,
             what, (double)avail / GIB);
}
