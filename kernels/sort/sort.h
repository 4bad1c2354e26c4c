/*
 * sort.h — the sort operation: 32-bit unsigned keys, optionally with 32-bit
 * values, and what its kernels share.
 *
 * Input (op->setup): a key workload's keys, or a matrix's column indices
 * (so sorting them, positions as values, is a transposition). The values
 * are always the positions 0..n-1: kernels make them themselves (untimed)
 * before each run, so every pair (key, value) of the output can be traced
 * back to the input.
 *
 * Output, as op->output_bytes lays it out in one buffer:
 *   sp_sort_header (what the kernel produced and claims), key[n], val[n]
 * val is meaningful only when header.values = 1 (the `values` axis).
 *
 * Check (error 0, or +Inf like transpose: a sort is right or wrong):
 * n as the input's; keys ascending; the keys a permutation of the input's
 * (two 64-bit multiset hashes, kept as the reference); with values: the
 * values a permutation of 0..n-1 and key_in[val[i]] == key[i] for every i
 * (each pair is one of the input's), and when the kernel claims to be
 * stable, equal keys keep their input order (values ascending among them).
 * Work: flops = n keys, so the stored rate is Mkeys/s; bytes = reading and
 * writing every key once (8n: the least any sort moves).
 *
 *   sort_op.c         the operation
 *   sort_cpu.c        CPU state: input copy, positions, result, release
 *   sort_qsort.c      libc qsort on one core (the serial baseline)
 *   sort_radix_omp.c  parallel LSD radix sort, OpenMP
 *   sort_gpu.h/.cu    the GPU sort harness (upload, workspace, timing)
 *   sort_cub.c/.cu    CUB DeviceRadixSort, keys and pairs
 */
#ifndef SP_SORT_H
#define SP_SORT_H

#include "../kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sp_operation sp_op_sort;

/* The rate unit of sort runs. */
#define SP_SORT_UNIT "Mkeys/s"
/* The `values` axis every sort kernel declares: 0 keys only, 1 key-value pairs. */
#define SP_SORT_VALUES "0,1"

/* What a kernel's result says about itself (first 16 bytes of the output). */
typedef struct sp_sort_header {
    uint64_t n;             /* keys written */
    uint32_t values;        /* 1: val[] holds the values that followed the keys */
    uint32_t stable;        /* 1: the kernel claims equal keys keep their order */
} sp_sort_header;

/* The output buffer's parts. */
typedef struct sp_sort_out {
    sp_sort_header *h;
    uint32_t *key, *val;
} sp_sort_out;

/* Bytes of the output for n keys: header, n keys, n values. */
size_t sp_sort_output_bytes(int64_t n);
/* Views into buf (sp_sort_output_bytes(n) bytes, 8-byte aligned). */
void sp_sort_view(void *buf, int64_t n, sp_sort_out *o);

/* The `values` axis of p (default 1), checked to be 0 or 1. */
int sp_sort_values_axis(const char *kernel, const sp_params *p, int *values, sp_err *err);

/* ---- CPU kernels (sort_cpu.c) ---------------------------------------------
 * The state holds the keys (and values) being sorted, scratch of the same
 * size when the kernel needs it, and where the sorted result lies. The
 * reset restores the input (untimed, by the harness), the launch sorts. */
typedef struct sp_sort_cpu {
    const sp_problem *pb;
    int64_t n;
    int values, threads, stable;
    uint32_t *key, *val;            /* the arrays sorted in place */
    uint32_t *tmp_key, *tmp_val;    /* scratch (n each), when asked for */
    void *pairs;                    /* qsort of pairs: n (key, value) structs */
    void *work;                     /* the kind's work(threads) bytes */
    uint32_t *res_key, *res_val;    /* where the result lies after a launch */
} sp_sort_cpu;

typedef struct sp_sort_cpu_kind {
    const char *name;
    int stable;
    int scratch;            /* 1: tmp_key/tmp_val of n entries each */
    int pairs;              /* 1: an array of n (key, value) structs when values = 1 */
    int threaded;           /* 1: a `threads` axis */
    size_t (*work)(int threads);    /* further scratch; NULL: none */
    void (*sort)(sp_sort_cpu *s);
} sp_sort_cpu_kind;

int sp_sort_cpu_prepare(const sp_sort_cpu_kind *k, const sp_problem *pb, const sp_params *p,
                        void **state, sp_err *err);
/* The sort itself (the kernel's launch), and the reset the harness calls
 * before every sample: the input back in place, values = positions. */
int sp_sort_cpu_launch(const sp_sort_cpu_kind *k, void *state, sp_err *err);
int sp_sort_cpu_reset(void *state, const sp_exec *ex, sp_err *err);
int sp_sort_cpu_need(const sp_sort_cpu_kind *k, const sp_problem *pb, const sp_params *p,
                     sp_need *need, sp_err *err);
int sp_sort_cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_sort_cpu_release(void *state);

/* The kernel entry points of CPU sort kind `kind` (a static const
 * sp_sort_cpu_kind of that name): SP_SORT_CPU_WRAPPERS(kind) defines them,
 * SP_SORT_CPU_FNS(kind) puts them in an sp_kernel initialiser. */
#define SP_SORT_CPU_WRAPPERS(kind)                                                          \
    static int kind##_prepare(const sp_problem *pb, const sp_params *p, void **state,       \
                              sp_err *err)                                                  \
    {                                                                                       \
        return sp_sort_cpu_prepare(&kind, pb, p, state, err);                               \
    }                                                                                       \
    static int kind##_launch(void *state, const sp_exec *ex, sp_err *err)                  \
    {                                                                                       \
        (void)ex;                                                                           \
        return sp_sort_cpu_launch(&kind, state, err);                                       \
    }                                                                                       \
    static int kind##_need(const sp_problem *pb, const sp_params *p, sp_need *need,        \
                           sp_err *err)                                                     \
    {                                                                                       \
        return sp_sort_cpu_need(&kind, pb, p, need, err);                                   \
    }
#define SP_SORT_CPU_FNS(kind)                                                               \
    .prepare = kind##_prepare, .launch = kind##_launch, .reset = sp_sort_cpu_reset,         \
    .result = sp_sort_cpu_result, .release = sp_sort_cpu_release, .need = kind##_need

/* Parallel LSD radix sort of key[0..n) (and val when not NULL), 8-bit
 * digits, with tmp_key/tmp_val as scratch, on `threads` threads; passes
 * whose digit is the same for every key are skipped. Stable. hist holds
 * sp_radix_omp_work(threads) bytes. Returns 1 when the result lies in the
 * scratch arrays, 0 when in key/val. */
size_t sp_radix_omp_work(int threads);
int sp_radix_sort_omp(uint32_t *key, uint32_t *val, uint32_t *tmp_key, uint32_t *tmp_val,
                      int64_t n, int threads, int64_t *hist);

#ifdef __cplusplus
}
#endif
#endif
