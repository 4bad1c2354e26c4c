/* util_sort.h — what the sort tests share (unit tests: tests/test_sort.c;
 * GPU tests: tests/gpu/test_gpu_sort.c): key workloads by source text,
 * the kernel life cycle on any workload, and a stable serial reference. */
#ifndef SP_UTIL_SORT_H
#define SP_UTIL_SORT_H

#include "../kernels/kernel.h"

/* The keys of a keys: source (the test fails if it does not parse). */
void us_keys(const char *source, sp_keys *K);

/* The sizes and distributions every sort kernel is checked on. */
extern const char *const us_dists[6];
extern const int64_t us_sizes[];
extern const int us_nsizes;

/* Run k with p on w as the runner does (setup, reference, need, prepare,
 * two samples through the harness, each after the kernel's reset, result
 * into a poisoned buffer, release) and return the sort's error (0 or
 * +Inf); when out is not NULL the output buffer is returned there (free
 * it). Asserts every step succeeds. */
double us_run_kernel(const sp_kernel *k, const sp_params *p, const sp_workload *w, void **out);

/* The stable sort of key[0..n) with positions as values (serial counting
 * passes), into key_out and val_out. */
void us_stable_sort(const uint32_t *key, int64_t n, uint32_t *key_out, uint32_t *val_out);

/* Params: values = v plus the given axes (name/value pairs, up to 3). */
sp_params us_params(int values, int naxes, const char *const *names, const long *vals);

#endif
