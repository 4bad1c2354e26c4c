/* spmv_cases.h — the awkward matrices every SpMV kernel is checked on, and
 * the kernel life cycle as the runner drives it; shared by the CPU tests
 * (tests/test_spmv.c) and the GPU tests (tests/gpu/test_gpu_spmv.c). */
#ifndef SP_SPMV_CASES_H
#define SP_SPMV_CASES_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../kernels/kernel.h"

typedef struct spmv_case {
    const char *name;
    sp_coo T;       /* the triplets A was built from (duplicates included) */
    sp_csr A;
} spmv_case;

/* Case i (0 <= i < spmv_case_count()): built with sp_coo + sp_csr_from_coo. */
int spmv_case_count(void);
void spmv_case_build(int i, spmv_case *c);
void spmv_case_free(spmv_case *c);

/* The generated matrices the GPU SpMV suites check every kernel on, in
 * double and in single precision; quick (the sanitizer passes) puts a
 * dense row of 10^5 in place of 10^6. */
#define SPMV_GENERATED_COUNT 6
const char *spmv_generated_spec(int i, int quick);

/* Every combination of k's axes: the `threads` axis takes threads[0..n-1]
 * when threads is not NULL, every other axis its declared defaults
 * (expanded with nproc = 4). Returns the count; free(*out) after use. */
int spmv_kernel_params(const sp_kernel *k, const long *threads, int nthreads,
                       sp_params **out);

/* An axis whose values replace the kernel's defaults in a test. */
typedef struct spmv_axis_override {
    const char *axis;
    const long *values;
    int n;
} spmv_axis_override;
int spmv_kernel_params_with(const sp_kernel *k, const spmv_axis_override *o, int no,
                            sp_params **out);

/* 1 for a kernel written for an instruction set this CPU lacks (its
 * descriptor's isa, which kernels/cpu_isa.h says the CPU has not): such a
 * kernel refuses every matrix, with that reason. */
int spmv_cpu_lacks_isa(const sp_kernel *k);

/* The memory the tests treat as free, host and device alike. The runner
 * skips a combination whose `need` is more than what is free (that is how
 * a padded layout too big for the machine is refused, kernels/hll.h); the
 * tests apply the same rule against this fixed amount, so what they build
 * does not depend on the machine and stays small. */
#define SPMV_TEST_FREE_BYTES ((uint64_t)1 << 30)

/* Run k with p on A through the whole life cycle (prepare, warm-up run,
 * timed run, result into a NaN-poisoned buffer, release) and return the
 * relative error against the reference (works for any operation). Asserts
 * that every step succeeds and that the times are finite and positive
 * (>= 0 for rows = 0). A combination k->need refuses returns -1 after
 * asserting that prepare refuses it too, with a reason; one whose need is
 * over SPMV_TEST_FREE_BYTES returns -1 without being built (the runner
 * would skip it). */
double spmv_check_kernel(const sp_kernel *k, const sp_params *p, const sp_csr *A);
/* The tolerance the tests check double runs against, as the sweep's
 * default; a run in another precision gets its operation's bound
 * (sp_run_tolerance). */
#define SPMV_TEST_TOLERANCE 1e-12
/* spmv_check_kernel, and the tolerance of that run in *tolerance:
 * sp_run_tolerance at p's precision (SPMV_TEST_TOLERANCE in double for
 * spmv; 0 in double for the exact transposition). */
double spmv_check_kernel_tol(const sp_kernel *k, const sp_params *p, const sp_csr *A,
                             double *tolerance);

/* spmv_check_kernel at every combination of spmv_kernel_params, asserting
 * a relative error within the run's tolerance (spmv_check_kernel_tol);
 * `what` names A in failure messages. Returns
 * the number of combinations refused by k->need. */
int spmv_check_kernel_all(const sp_kernel *k, const long *threads, int nthreads,
                          const sp_csr *A, const char *what);

/* Every combination of k's axes (the overrides o[0..no-1] replacing
 * defaults) checked like spmv_check_kernel_all; a combination that k->need
 * refuses must be refused by prepare too, with a reason. Returns the number
 * of refused combinations. */
int spmv_check_kernel_with(const sp_kernel *k, const spmv_axis_override *o, int no,
                           const sp_csr *A, const char *what);

#endif
