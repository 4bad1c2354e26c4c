/* hostmem.h — how much host memory this process may still take
 * (core/hostmem.c): the ground floor under the runner's memory guard
 * (runner/isolate/memguard.c) and the Matrix Market reader's size check
 * (fetch/mm_fit.c). */
#ifndef SP_HOSTMEM_H
#define SP_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MemAvailable of /proc/meminfo, lowered to what the address-space limit
 * (ulimit -v, RLIMIT_AS) leaves this process; -1 when neither says.
 * $SPSWEEP_MEM_AVAILABLE (bytes, or with K, M, G, T) replaces the answer. */
int sp_host_mem_available(uint64_t *bytes);
/* "needs X GiB of WHAT memory, Y GiB free" into msg. */
void sp_mem_shortfall(char *msg, size_t len, const char *what, uint64_t need,
                      uint64_t avail);

#ifdef __cplusplus
}
#endif
#endif
