/* util_phases.h — a GPU kernel's life through the harness (tu_run, as the
 * runner drives it): the phases the harness records around its steps,
 * and its release from every partial state a step can leave. Shared by
 * the GPU tests of the transposition (tests/gpu/test_gpu_transpose.c)
 * and of the primitives (tests/gpu/test_gpu_prim.c), whose operations
 * are exact (error 0 or +Inf). */
#ifndef SP_UTIL_PHASES_H
#define SP_UTIL_PHASES_H

#include "../kernels/kernel.h"

/* k at axis values p on A: prepare, upload and analyse, two launches and
 * the result through the harness, the output identical to the
 * operation's reference, then release. Asserts the phases recorded:
 * h2d_s > 0, d2h_s > 0, free_s >= 0, and convert_s >= 0 (> 0 when k has
 * an analyse, which waits for the device). */
void phases_check(const sp_kernel *k, const sp_params *p, const sp_csr *A);

/* k's release from each partial state, on A at p: a lone k->prepare then
 * k->release; prepare, upload and analyse through the harness then the
 * release (tu_run_prepare, tu_run_end), with no launch; an upload that
 * fails before it starts and one that fails after its work (and the same
 * for analyse when k has one), each released by tu_run_end. */
void phases_check_partial(const sp_kernel *k, const sp_params *p, const sp_csr *A);

#endif
