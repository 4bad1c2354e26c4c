/* test_gpu_spmv.c — every GPU SpMV kernel at every default block size
 * against the serial reference, on the awkward matrices, on generated ones
 * and on real ones; plus the kernels' refusals and their empty cases. Each
 * check poisons the output with NaN before result(), so y must be written
 * in full (tests/spmv_cases.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../spmv_cases.h"

/* Every GPU kernel in the registry at each combination of its axes. */
static void check_gpu_kernels(const sp_csr *A, const char *what)
{
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu || strcmp(k->operation, "spmv"))
            continue;
        cr_assert_not_null(k->prepare, "%s is not built into this binary", k->name);
        spmv_check_kernel_all(k, NULL, 0, A, what);
        kernels++;
    }
    cr_assert_geq(kernels, 2, "spmv_csr_cuda_scalar and spmv_csr_cusparse at least");
}

Test(gpu_spmv, awkward_matrices, .timeout = 300)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_gpu_kernels(&c.A, c.name);
        spmv_case_free(&c);
    }
}

Test(gpu_spmv, generated_matrices, .timeout = 300)
{
    static const char *specs[] = {
        "laplace2d?n=300",
        "rmat?scale=14&ef=8",
        "denserow?rows=20000&cols=1000000&per_row=4&dense=1000000",
        "laplace3d?n=40&points=27",
        "uniform?rows=100003&cols=5000&per_row=9&seed=2",
        "banded?n=5000&bw=7",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[i], &A, &err), 0, "%s: %s", specs[i], err.msg);
        check_gpu_kernels(&A, specs[i]);
        sp_csr_free(&A);
    }
}

Test(gpu_spmv, real_matrices, .timeout = 300)
{
    static const char *files[] = {"tests/data/ss/bcsstk06.mtx.gz",
                                  "tests/data/ss/olm1000.mtx.gz"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts o = {.quiet = 1};
        cr_assert_eq(sp_mm_read(files[i], &o, &A, NULL, &err), 0, "%s", err.msg);
        check_gpu_kernels(&A, files[i]);
        sp_csr_free(&A);
    }
}

/* Block sizes CUDA cannot launch are refused in prepare, naming the axis,
 * before anything is allocated. */
Test(gpu_spmv, scalar_refuses_bad_block_sizes)
{
    const sp_kernel *k = sp_kernel_find("spmv_csr_cuda_scalar");
    cr_assert(k && k->prepare);
    const sp_operation *op = sp_operation_find("spmv");
    spmv_case c;
    spmv_case_build(1, &c);
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, &c.A, &err), 0, "%s", err.msg);
    long bad[] = {0, -32, 1025, 4096};
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {bad[i]}};
        void *state = &err;
        sp_phases ph = {0, 0, 0};
        err.msg[0] = 0;
        cr_assert_eq(k->prepare(&pb, &p, &state, &ph, &err), -1, "blocksize %ld", bad[i]);
        cr_assert_null(state, "a failed prepare leaves no state");
        cr_assert_not_null(strstr(err.msg, "blocksize"), "message: %s", err.msg);
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* A block size that does not divide the rows, and one below a warp. */
Test(gpu_spmv, odd_block_sizes)
{
    const sp_kernel *k = sp_kernel_find("spmv_csr_cuda_scalar");
    cr_assert(k && k->prepare);
    spmv_case c;
    spmv_case_build(1, &c);
    long sizes[] = {1, 7, 96, 1000};
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {sizes[i]}};
        double rel = spmv_check_kernel(k, &p, &c.A);
        cr_assert_leq(rel, 1e-12, "blocksize %ld: relative error %g", sizes[i], rel);
    }
    spmv_case_free(&c);
}

Test(gpu_spmv, release_accepts_null)
{
    for (int i = 0; sp_kernels[i]; i++)
        if (sp_kernels[i]->needs_gpu && sp_kernels[i]->release)
            sp_kernels[i]->release(NULL);
}
