/* util_tprec.h — the transposition at the `precision` single, checked the
 * same way by the CPU tests (tests/test_transpose.c) and the GPU tests
 * (tests/gpu/test_gpu_transpose.c): the CSC's structure the serial
 * reference's, and every value the reference's rounded to float, bit for
 * bit (a transposition computes nothing, so one rounding is all a
 * single-precision kernel may do to a value). */
#ifndef SP_UTIL_TPREC_H
#define SP_UTIL_TPREC_H

#include "spmv_cases.h"

/* A copy of A (same pattern) whose values float cannot hold exactly:
 * value k is A's (1 + k where A's is 0) times 1 + (1 + k mod 5)·2^-30 and
 * a power of two in 2^-4..2^4, so a kernel that moved doubles, rounded
 * twice or the wrong way fails the exact check. Free with sp_csr_free. */
void tprec_unfloat(const sp_csr *A, sp_csr *B);

/* Every combination of k's axes (the overrides o[0..no-1] replacing
 * defaults, `precision` single) on A through the harness as the runner
 * drives it (prepare, upload, analyse, two launches, result into a
 * NaN-poisoned buffer, release): colptr and rowidx the reference's, each
 * value (double)(float) of the reference's, the operation's error within
 * sp_run_tolerance at single. A combination k->need refuses must be
 * refused by prepare too, with a reason; one whose need is over
 * SPMV_TEST_FREE_BYTES is not built (the runner would skip it). Returns
 * the number of combinations so refused or skipped. */
int tprec_check_single(const sp_kernel *k, const spmv_axis_override *o, int no,
                       const sp_csr *A, const char *what);

/* The values of the single-precision CSC of A where they are not A's own:
 * the entries whose value float cannot hold (tprec_unfloat makes most of
 * them so). */
int32_t tprec_rounded_values(const sp_csr *A);

#endif
