/* cpushare.h — the host's CPUs shared out between processes of one host
 * (runner/isolate/cpushare.c): the GPU shards' slices (runner/scale/gpus.c),
 * recorded in the sweep's provenance (runner/exec/provenance.c). */
#ifndef SP_CPUSHARE_H
#define SP_CPUSHARE_H

#include <sched.h>
#include <stddef.h>

/* Shard k (0-based) of n: its share of this process's CPUs, whole cores
 * of one package together; the count, 0 when there are fewer CPUs than
 * shards. */
int sp_cpu_share(int k, int n, cpu_set_t *set);
/* The CPUs of set as "0-7,16-23". */
void sp_cpuset_text(const cpu_set_t *set, char *buf, size_t len);

#endif
