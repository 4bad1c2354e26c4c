/* test_keeper.c — the GPU keeper (runner/isolate/keeper.c): started only for a
 * sweep with GPU kernels on a machine with a GPU, unless turned off; where
 * it can make no context (no GPU here) it is gone at once; where it can,
 * it lives until stopped; either way no process is left behind. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../runner/isolate/isolate.h"

static sp_combo combo_of(const char *kernel)
{
    const sp_kernel *k = sp_kernel_find(kernel);
    cr_assert_not_null(k, "%s", kernel);
    return (sp_combo){.kernel = k};
}

/* No child of this test process is left, alive or zombie. */
static void no_children(void)
{
    int st;
    cr_assert_eq(waitpid(-1, &st, WNOHANG), -1, "a process was left behind");
    cr_assert_eq(errno, ECHILD);
}

Test(keeper, only_for_gpu_kernels_on_a_gpu_unless_turned_off)
{
    sp_combo cpu = combo_of("spmv_csr_serial"), gpu = combo_of("spmv_csr_cusparse");
    sp_plan cpu_plan = {.combos = &cpu, .ncombos = 1}, gpu_plan = {.combos = &gpu, .ncombos = 1};
    sp_gpu_keeper k;
    sp_gpu_keeper_start(&gpu_plan, 0, &k);
    cr_assert_eq(k.pid, -1, "no GPU: no keeper");
    sp_gpu_keeper_start(&cpu_plan, 1, &k);
    cr_assert_eq(k.pid, -1, "no GPU kernel: no keeper");
    setenv("SPSWEEP_GPU_KEEPER", "0", 1);
    sp_gpu_keeper_start(&gpu_plan, 1, &k);
    cr_assert_eq(k.pid, -1, "turned off");
    unsetenv("SPSWEEP_GPU_KEEPER");
    no_children();
}

Test(keeper, holds_a_context_until_stopped_or_leaves_at_once)
{
    sp_combo gpu = combo_of("spmv_csr_cusparse");
    sp_plan plan = {.combos = &gpu, .ncombos = 1};
    unsetenv("CUDA_MODULE_LOADING");
    sp_gpu_keeper k;
    sp_gpu_keeper_start(&plan, 1, &k);
    cr_assert_str_eq(getenv("CUDA_MODULE_LOADING"), "LAZY");
    if (k.ready) {
        cr_assert_gt(k.pid, 0);
        cr_assert_eq(kill(k.pid, 0), 0, "the keeper lives while the sweep runs");
    } else {
        cr_assert_eq(k.pid, -1, "no context could be made: nothing kept");
    }
    sp_gpu_keeper_stop(&k);
    cr_assert_eq(k.pid, -1);
    no_children();
    sp_gpu_keeper_stop(&k);     /* twice is harmless */
}
