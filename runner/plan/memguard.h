/* memguard.h — host memory checks before a combination runs
 * (runner/isolate/memguard.c). */
#ifndef SP_MEMGUARD_H
#define SP_MEMGUARD_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/hostmem.h"

int sp_host_mem_short(uint64_t need, char *msg, size_t len);

#endif
