/* load_guard.h — the memory guard at a matrix's load (runner/isolate/load_guard.c):
 * will loading a source, and holding it with what runs beside it, fit in
 * the host's available memory? */
#ifndef SP_LOAD_GUARD_H
#define SP_LOAD_GUARD_H

#include "memguard.h"
#include "select.h"

/* Bytes the operations ops[0..nops) hold beside a workload of size sz
 * (workload SP_WL_*) once set up: inputs, reference and output buffer. */
uint64_t sp_ops_bytes(const sp_load_size *sz, int workload, const sp_operation *const *ops,
                      int nops);
/* The distinct operations the n pairs at w will set up (those not skipped
 * before: no GPU, kernel not built), at most max, into ops; their count. */
int sp_work_ops(const sp_plan *plan, const sp_work *w, int n, int have_gpu,
                const sp_operation **ops, int max);
/* 1, with "needs X GiB of host memory to load, Y GiB available (...)" in
 * msg, when the load of src at its peak, or the workload held with ops'
 * bytes and beside_bytes more (named beside_what), exceeds the available
 * host memory; 0 when it fits or either number is unknown. */
int sp_load_mem_short(const sp_source *src, const sp_load_opts *lo, uint64_t beside_bytes,
                      const sp_operation *const *ops, int nops, const char *beside_what,
                      char *msg, size_t len);

#endif
