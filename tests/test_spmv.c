/* test_spmv.c — the spmv operation (reference against a dense product,
 * the error measure) and every CPU SpMV kernel on the awkward matrices. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "../fetch/matrix.h"
#include "testutil.h"

/* The reference equals an independent dense product (computed in long
 * double) to within rounding, on every case. */
Test(spmv, reference_matches_dense_product)
{
    const sp_operation *op = sp_operation_find("spmv");
    cr_assert_not_null(op);
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        if ((double)c.A.rows * c.A.cols > 5e7) {    /* dense copy too big */
            spmv_case_free(&c);
            continue;
        }
        sp_problem pb;
        sp_err err;
        cr_assert_eq(op->setup(&pb, &c.A, &err), 0);
        double *ref = malloc(op->output_bytes(&pb) + 8);
        cr_assert_eq(op->reference(&pb, ref, &err), 0);
        double *D = tu_dense(&c.A);
        for (int32_t r = 0; r < c.A.rows; r++) {
            long double s = 0, mag = 0;
            for (int32_t j = 0; j < c.A.cols; j++) {
                s += (long double)D[(size_t)r * c.A.cols + j] * pb.x[j];
                mag += fabsl((long double)D[(size_t)r * c.A.cols + j] * pb.x[j]);
            }
            cr_assert_leq(fabsl(ref[r] - s), 1e-14L * (mag + 1e-300L),
                          "%s row %d: %g vs %Lg", c.name, r, ref[r], s);
        }
        free(D);
        free(ref);
        op->teardown(&pb);
        spmv_case_free(&c);
    }
}

Test(spmv, x_is_never_zero_and_deterministic)
{
    const sp_operation *op = sp_operation_find("spmv");
    spmv_case c;
    spmv_case_build(0, &c);
    sp_problem a, b;
    sp_err err;
    cr_assert_eq(op->setup(&a, &c.A, &err), 0);
    cr_assert_eq(op->setup(&b, &c.A, &err), 0);
    int neg = 0;
    for (int32_t j = 0; j < c.A.cols; j++) {
        cr_assert(fabs(a.x[j]) >= 0.5 && fabs(a.x[j]) <= 1.0, "x[%d] = %g", j, a.x[j]);
        cr_assert_eq(a.x[j], b.x[j]);
        neg += a.x[j] < 0;
    }
    cr_assert(neg > c.A.cols / 3 && neg < 2 * c.A.cols / 3, "signs not mixed: %d", neg);
    op->teardown(&a);
    op->teardown(&b);
    spmv_case_free(&c);
}

Test(spmv, error_flags_wrong_nan_and_nonzero_against_zero)
{
    const sp_operation *op = sp_operation_find("spmv");
    sp_csr A = {.rows = 3};
    sp_problem pb = {.A = &A};
    double ref[3] = {1, -2, 4}, y[3] = {1, -2, 4};
    cr_assert_eq(op->error(&pb, y, ref), 0.0);
    y[1] = -2.004;
    cr_assert_float_eq(op->error(&pb, y, ref), 0.001, 1e-12);
    y[1] = NAN;
    cr_assert(isinf(op->error(&pb, y, ref)));
    double z[3] = {0, 0, 0}, w[3] = {0, 1e-300, 0};
    cr_assert_eq(op->error(&pb, z, z), 0.0);
    cr_assert(isinf(op->error(&pb, w, z)));
    cr_assert_float_eq(op->flops(&(sp_csr){.nnz = 10}), 20.0, 0);
}

static void check_cpu_kernel(const char *name, const long *threads, int nthreads)
{
    const sp_kernel *k = sp_kernel_find(name);
    cr_assert_not_null(k, "%s not registered", name);
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int t = 0; t < nthreads; t++) {
            sp_params p = {.n = k->naxes, .name = {"threads"}, .value = {threads[t]}};
            double rel = spmv_check_kernel(k, &p, &c.A);
            cr_assert_leq(rel, 1e-12, "%s threads=%ld on %s: error %g", name, threads[t],
                          c.name, rel);
        }
        spmv_case_free(&c);
    }
}

Test(spmv, csr_serial_on_awkward_matrices)
{
    check_cpu_kernel("spmv_csr_serial", (long[]){1}, 1);
}

Test(spmv, csr_omp_on_awkward_matrices)
{
    check_cpu_kernel("spmv_csr_omp", (long[]){1, 2, 3, 7}, 4);
}

Test(spmv, real_matrices)
{
    const char *files[] = {"tests/data/ss/bcsstk06.mtx.gz", "tests/data/ss/olm1000.mtx.gz"};
    for (int f = 0; f < 2; f++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts o = {.quiet = 1};
        cr_assert_eq(sp_mm_read(files[f], &o, &A, NULL, &err), 0, "%s", err.msg);
        cr_assert_gt(A.nnz, 0);
        for (int i = 0; sp_kernels[i]; i++) {
            const sp_kernel *k = sp_kernels[i];
            if (k->needs_gpu)
                continue;
            sp_params p = {.n = k->naxes, .name = {"threads"}, .value = {2}};
            double rel = spmv_check_kernel(k, &p, &A);
            cr_assert_leq(rel, 1e-12, "%s on %s: %g", k->name, files[f], rel);
        }
        sp_csr_free(&A);
    }
}
