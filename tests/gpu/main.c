/* main.c — the GPU test binary: without a usable CUDA device it says so in
 * one line and succeeds; with one it runs every GPU test under Criterion.
 * The probe runs in a child process, so Criterion's forked test processes
 * each start without a CUDA context. */
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
    printf("GPU tests on %s (sm_%d%d, %.1f GiB)\n", g.name, g.cc_major, g.cc_minor,
           g.mem_total_gib);
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
