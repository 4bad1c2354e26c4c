/* main.c — the GPU test binary. Without a usable CUDA device it prints one
 * line, "GPU tests skipped: <reason>", and succeeds; with one it runs every
 * GPU test under Criterion. The probe runs in a child process (see
 * kernels/gpu_info.cu), so the test processes Criterion forks each start
 * without a CUDA context. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "../../kernels/kernel.h"

int main(int argc, char *argv[])
{
    sp_gpu_info g;
    char reason[512];
    if (!sp_gpu_probe(&g, reason, sizeof reason)) {
        printf("GPU tests skipped: %s\n", reason);
        return 0;
    }
    printf("GPU tests on %s (sm_%d%d, %.1f GiB, driver %d, runtime %d)\n", g.name,
           g.cc_major, g.cc_minor, g.mem_total_gib, g.driver_version, g.runtime_version);
    fflush(stdout);
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    int go = criterion_handle_args(argc, argv, true);
    if (go > 0)
        result = !criterion_run_all_tests(tests);
    else if (go < 0)
        result = 1;
    criterion_finalize(tests);
    return result;
}
