/*
 * memguard.c — will a combination fit? The parent compares what a kernel's
 * `need` states for host memory with MemAvailable of /proc/meminfo before
 * it forks the child; device memory is compared inside the child, just
 * before prepare (measure.c), because asking the device creates a CUDA
 * context and the parent must never hold one. The child's answer is the
 * exact free memory at that moment, with no other context of ours alive.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "memguard.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* MemAvailable in bytes; -1 when /proc/meminfo does not say. */
int sp_host_mem_available(uint64_t *bytes)
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
