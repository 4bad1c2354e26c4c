/* test_gpu_spmv.c — every GPU SpMV kernel at every default block size
 * against the serial reference: awkward matrices, generated ones and real
 * ones. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../spmv_cases.h"
#include "../../runner/runner.h"

/* Every GPU kernel at each value of its axis defaults, on A. */
static void check_gpu_kernels(const sp_csr *A, const char *what)
{
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu)
            continue;
        cr_assert_not_null(k->prepare, "%s not built", k->name);
        sp_axis_values v = {0};
        sp_err err;
        if (k->naxes)
            cr_assert_eq(sp_axis_parse(k->axes[0].name, k->axes[0].defaults, 16, &v, &err),
                         0, "%s", err.msg);
        for (int a = 0; a < (k->naxes ? v.n : 1); a++) {
            sp_params p = {.n = k->naxes};
            if (k->naxes) {
                p.name[0] = k->axes[0].name;
                p.value[0] = v.v[a];
            }
            double rel = spmv_check_kernel(k, &p, A);
            cr_assert_leq(rel, 1e-12, "%s %s=%ld on %s: relative error %g", k->name,
                          k->naxes ? k->axes[0].name : "-", k->naxes ? v.v[a] : 0, what, rel);
        }
        sp_axis_values_free(&v);
    }
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
    const char *specs[] = {
        "laplace2d?n=300", "laplace3d?n=40&points=27", "rmat?scale=14&ef=8",
        "uniform?rows=100003&cols=5000&per_row=9&seed=2", "banded?n=5000&bw=7",
        "denserow?rows=20000&cols=1000000&per_row=4&dense=1000000&seed=3",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[i], &A, &err), 0, "%s", err.msg);
        check_gpu_kernels(&A, specs[i]);
        sp_csr_free(&A);
    }
}

Test(gpu_spmv, real_matrices, .timeout = 300)
{
    const char *files[] = {"tests/data/ss/bcsstk06.mtx.gz", "tests/data/ss/olm1000.mtx.gz"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts o = {.quiet = 1};
        cr_assert_eq(sp_mm_read(files[i], &o, &A, NULL, &err), 0, "%s", err.msg);
        check_gpu_kernels(&A, files[i]);
        sp_csr_free(&A);
    }
}
