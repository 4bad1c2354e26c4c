/*
 * memguard.c — will a combination fit? The parent compares what a kernel's
 * `need` states for host memory with MemAvailable of /proc/meminfo before
 * it forks the child; device memory is compared inside the child, just
 * before prepare (measure.c), because asking the device creates a CUDA
 * context and the parent must never hold one. The child's answer is the
 * exact free memory at that moment, with no other context of ours alive.
 * How much host memory is free is asked of core/hostmem.c, which the
 * Matrix Market reader shares.
 */
#include "memguard.h"

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
