/* memguard.h — host memory checks before a combination runs
 * (runner/memguard.c). */
#ifndef SP_MEMGUARD_H
#define SP_MEMGUARD_H

#include <stddef.h>
#include <stdint.h>

int sp_host_mem_available(uint64_t *bytes);
void sp_mem_shortfall(char *msg, size_t len, const char *what, uint64_t need,
                      uint64_t avail);
int sp_host_mem_short(uint64_t need, char *msg, size_t len);

#endif
