/*
 * workload.h — what an operation runs on, as kinds: a sparse matrix or an
 * array of 32-bit unsigned keys. The ground floor's, because a source
 * (fetch/source.c) says which kind it makes and an operation
 * (kernels/kernel.h: sp_operation.workloads) which kinds it takes.
 */
#ifndef SP_WORKLOAD_H
#define SP_WORKLOAD_H

/* Workload kinds, as bits: an operation's `workloads` is a set of them. */
typedef enum sp_workload_kind {
    SP_WL_MATRIX = 1,   /* a sparse matrix (CSR) */
    SP_WL_KEYS = 2,     /* an array of 32-bit unsigned keys (keys: sources) */
} sp_workload_kind;

#endif
