/* test_spmv.c — the spmv operation (x, the reference against independent
 * products, the error measure, the work model) and every CPU SpMV kernel
 * in the registry on the awkward matrices and on real ones. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/cpu_isa.h"
#include "spmv_cases.h"
#include "../fetch/matrix.h"
#include "testutil.h"

static const sp_operation *spmv_op(void)
{
    const sp_operation *op = sp_operation_find("spmv");
    cr_assert_not_null(op, "operation spmv not registered");
    return op;
}

/* The reference of A, from op->setup + op->reference; free(*ref) and
 * op->teardown(pb) after use. */
static double *reference_of(const sp_csr *A, sp_problem *pb)
{
    const sp_operation *op = spmv_op();
    sp_err err;
    cr_assert_eq(op->setup(pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    double *ref = malloc(op->output_bytes(pb) + 8);
    cr_assert_not_null(ref);
    cr_assert_eq(op->reference(pb, ref, &err), 0, "%s", err.msg);
    return ref;
}

/* The reference equals a long-double sum over the COO triplets A was built
 * from (before sp_csr_from_coo merged them), within the rounding bound of
 * a sum of n terms: n·2^-53·Σ|a·x|. */
Test(spmv, reference_matches_triplet_sum)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        sp_problem pb;
        double *ref = reference_of(&c.A, &pb);
        size_t n = (size_t)c.A.rows + 1;
        long double *sum = calloc(n, sizeof *sum), *mag = calloc(n, sizeof *mag);
        double *cnt = calloc(n, sizeof *cnt);
        cr_assert(sum && mag && cnt);
        for (int64_t k = 0; k < c.T.nnz; k++) {
            long double t = (long double)c.T.val[k] * pb.x[c.T.col[k]];
            sum[c.T.row[k]] += t;
            mag[c.T.row[k]] += fabsl(t);
            cnt[c.T.row[k]] += 1;
        }
        for (int32_t r = 0; r < c.A.rows; r++)
            cr_assert_leq(fabsl(ref[r] - sum[r]), (cnt[r] + 2) * 0x1.0p-53L * mag[r],
                          "%s row %d: reference %.17g, triplets %.20Lg", c.name, r, ref[r],
                          sum[r]);
        free(sum);
        free(mag);
        free(cnt);
        free(ref);
        spmv_op()->teardown(&pb);
        spmv_case_free(&c);
    }
}

/* Reference against the dense product (tests/testutil.c's tu_dense). */
static void check_against_dense(const sp_csr *A, const char *what)
{
    sp_problem pb;
    double *ref = reference_of(A, &pb);
    double *D = tu_dense(A);
    for (int32_t r = 0; r < A->rows; r++) {
        long double s = 0, mag = 0;
        for (int32_t j = 0; j < A->cols; j++) {
            long double t = (long double)D[(size_t)r * (size_t)A->cols + (size_t)j] * pb.x[j];
            s += t;
            mag += fabsl(t);
        }
        double len = (double)(A->rowptr[r + 1] - A->rowptr[r]) + 2;
        cr_assert_leq(fabsl(ref[r] - s), len * 0x1.0p-53L * mag,
                      "%s row %d: reference %.17g, dense %.20Lg", what, r, ref[r], s);
    }
    free(D);
    free(ref);
    spmv_op()->teardown(&pb);
}

Test(spmv, reference_matches_dense_product)
{
    int checked = 0;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        if ((double)c.A.rows * (double)c.A.cols <= 3e7) {  /* dense copy <= 240 MB */
            check_against_dense(&c.A, c.name);
            checked++;
        }
        spmv_case_free(&c);
    }
    cr_assert_geq(checked, spmv_case_count() - 1, "only %d cases checked densely", checked);
}

Test(spmv, x_is_deterministic_never_zero_with_mixed_signs)
{
    const sp_operation *op = spmv_op();
    sp_csr A = {.rows = 0, .cols = 100000};
    sp_problem a, b;
    sp_err err;
    cr_assert_eq(op->setup(&a, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    cr_assert_eq(op->setup(&b, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    int neg = 0;
    for (int32_t j = 0; j < A.cols; j++) {
        cr_assert(fabs(a.x[j]) >= 0.5 && fabs(a.x[j]) <= 1.0, "x[%d] = %g", j, a.x[j]);
        cr_assert_eq(a.x[j], b.x[j], "x[%d] differs between setups", j);
        neg += a.x[j] < 0;
    }
    cr_assert(neg > 45000 && neg < 55000, "signs not mixed: %d of 100000 negative", neg);
    cr_assert_neq(a.x[0], a.x[1]);
    op->teardown(&a);
    op->teardown(&b);
    cr_assert_null(a.x, "teardown leaves x dangling");
}

Test(spmv, error_flags_wrong_results_nan_and_inf)
{
    const sp_operation *op = spmv_op();
    sp_csr A = {.rows = 3};
    sp_problem pb = {.A = &A};
    double ref[3] = {1, -2, 4}, y[3] = {1, -2, 4};
    cr_assert_eq(op->error(&pb, y, ref), 0.0);
    y[1] = -2.004;                          /* |diff| 0.004 / max|ref| 4 */
    cr_assert_float_eq(op->error(&pb, y, ref), 0.001, 1e-12);
    y[1] = 2;                               /* a sign error */
    cr_assert_float_eq(op->error(&pb, y, ref), 1.0, 1e-12);
    y[1] = NAN;
    cr_assert(isinf(op->error(&pb, y, ref)) && op->error(&pb, y, ref) > 0);
    y[1] = -INFINITY;
    cr_assert(isinf(op->error(&pb, y, ref)) && op->error(&pb, y, ref) > 0);
    double z[3] = {0, 0, 0}, w[3] = {0, 1e-300, 0};
    cr_assert_eq(op->error(&pb, z, z), 0.0, "all-zero reference, all-zero y");
    cr_assert(isinf(op->error(&pb, w, z)), "nonzero y against an all-zero reference");
    sp_csr E = {.rows = 0};
    sp_problem pe = {.A = &E};
    cr_assert_eq(op->error(&pe, y, ref), 0.0, "no rows: nothing can be wrong");
}

Test(spmv, work_model)
{
    const sp_operation *op = spmv_op();
    sp_csr A = {.rows = 10, .cols = 20, .nnz = 50};
    cr_assert_float_eq(op->flops(SP_MATRIX_WORKLOAD(&A)), 100.0, 0);
    cr_assert_float_eq(op->bytes(SP_MATRIX_WORKLOAD(&A), SP_DOUBLE),
                       50 * 12 + 11 * 4 + 20 * 8 + 10 * 8, 0);
    cr_assert_float_eq(op->bytes(SP_MATRIX_WORKLOAD(&A), SP_SINGLE),
                       50 * 8 + 11 * 4 + 20 * 4 + 10 * 4, 0);
    cr_assert_str_eq(op->rate_unit, "GFLOPS");
    sp_problem pb = {.A = &A};
    cr_assert_eq(op->output_bytes(&pb), 80u);
}

Test(spmv, setup_refuses_a_missing_matrix)
{
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(spmv_op()->setup(&pb, NULL, &err), -1);
    cr_assert_neq(err.msg[0], 0);
}

/* A CPU SpMV kernel built into this binary (the MKL ones are optional:
 * tests/test_mkl.c says when they are not). */
static int cpu_spmv_built(const sp_kernel *k)
{
    return !k->needs_gpu && !strcmp(k->operation, "spmv") && k->prepare;
}

/* Every CPU kernel in the registry (so future ones are covered too) at
 * threads 1, 2, 3 and 7, other axes at their defaults. */
static const long test_threads[] = {1, 2, 3, 7};

Test(spmv, cpu_kernels_on_awkward_matrices, .timeout = 300)
{
    int kernels = 0;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int k = 0; sp_kernels[k]; k++)
            if (cpu_spmv_built(sp_kernels[k])) {
                const sp_kernel *K = sp_kernels[k];
                int refused = spmv_check_kernel_all(K, test_threads, 4, &c.A, c.name);
                /* padded formats may refuse a matrix; librsb's tuner refuses
                 * more threads than CPUs (tests/test_spmv_cpu.c, librsb/); an
                 * AVX-512 kernel refuses a CPU without it (below) */
                int oversubscribed = !strcmp(K->name, "spmv_librsb") && omp_get_num_procs() < 7;
                cr_assert(!refused || oversubscribed || spmv_cpu_lacks_isa(K) ||
                              !strcmp(K->format, "ell") ||
                              !strcmp(K->format, "hll") || !strcmp(K->format, "dia"),
                          "%s refused %s (only padded formats may)", K->name, c.name);
                kernels += i == 0;
            }
        spmv_case_free(&c);
    }
    cr_assert_geq(kernels, 2, "spmv_csr_serial and spmv_csr_omp at least");
}

/* A kernel whose answer is wrong must fail the check: corrupt one value of
 * A between the reference and the kernel run. */
Test(spmv, check_catches_a_wrong_kernel_result)
{
    const sp_operation *op = spmv_op();
    const sp_kernel *k = sp_kernel_find("spmv_csr_serial");
    cr_assert_not_null(k);
    spmv_case c;
    spmv_case_build(1, &c);
    sp_problem pb;
    double *ref = reference_of(&c.A, &pb), *y = malloc(op->output_bytes(&pb));
    sp_err err;
    tu_run r;
    double s;
    cr_assert_eq(tu_run_prepare(&r, k, &pb, NULL, &err), 0, "%s", err.msg);
    c.A.val[c.A.nnz / 2] += 0.25;
    cr_assert_eq(tu_run_launch(&r, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(tu_run_result(&r, y, &err), 0, "%s", err.msg);
    tu_run_end(&r);
    cr_assert_gt(op->error(&pb, y, ref), 1e-6, "a changed value went unnoticed");
    free(ref);
    free(y);
    op->teardown(&pb);
    spmv_case_free(&c);
}

Test(spmv, omp_refuses_bad_thread_counts)
{
    const sp_kernel *k = sp_kernel_find("spmv_csr_omp");
    cr_assert_not_null(k);
    spmv_case c;
    spmv_case_build(1, &c);
    sp_problem pb;
    double *ref = reference_of(&c.A, &pb);
    long bad[] = {0, -3, 100000};
    for (int i = 0; i < 3; i++) {
        sp_params p = {.n = 1, .name = {"threads"}, .value = {bad[i]}};
        sp_err err = {{0}};
        void *state = (void *)&err;
        cr_assert_eq(k->prepare(&pb, &p, &state, &err), -1, "threads=%ld", bad[i]);
        cr_assert_null(state, "a failed prepare leaves no state");
        cr_assert_not_null(strstr(err.msg, "threads"), "message: %s", err.msg);
    }
    free(ref);
    spmv_op()->teardown(&pb);
    spmv_case_free(&c);
}

Test(spmv, release_accepts_null)
{
    for (int k = 0; sp_kernels[k]; k++)
        if (sp_kernels[k]->release && !sp_kernels[k]->needs_gpu)
            sp_kernels[k]->release(NULL);
}

/* Two real SuiteSparse matrices (tests/data/ss/README): read, check the
 * shape, the reference against the dense product, and every CPU kernel. */
Test(spmv, real_matrices, .timeout = 120)
{
    static const struct {
        const char *file;
        int32_t rows, cols, nnz;
    } real[] = {
        {"tests/data/ss/bcsstk06.mtx.gz", 420, 420, 7860},  /* symmetric, expanded */
        {"tests/data/ss/olm1000.mtx.gz", 1000, 1000, 3996},
    };
    for (int f = 0; f < 2; f++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts o = {.quiet = 1};
        cr_assert_eq(sp_mm_read(real[f].file, &o, &A, NULL, &err), 0, "%s", err.msg);
        cr_assert(A.rows == real[f].rows && A.cols == real[f].cols && A.nnz == real[f].nnz,
                  "%s: %d x %d, %d nonzeros", real[f].file, A.rows, A.cols, A.nnz);
        check_against_dense(&A, real[f].file);
        for (int k = 0; sp_kernels[k]; k++)
            if (cpu_spmv_built(sp_kernels[k]))
                spmv_check_kernel_all(sp_kernels[k], test_threads, 4, &A, real[f].file);
        sp_csr_free(&A);
    }
}

/* The AVX-512 kernels on every row length from 0 to 70 (the CSR kernel's
 * 16-wide loop, its 8-wide step, each masked tail of 1-7 and the scalar
 * path under 8; the HLL kernel's hacks of 1 to 48 rows, blocks of 16 and
 * partial ones), with each row's nonzeros ending at the last column of x
 * and the last ones at the end of the arrays (a masked load past the end
 * would fault or read garbage), rows in increasing and decreasing length:
 * within the double tolerance of the reference at 1, 2, 3 and 7 threads.
 * Where the CPU has no AVX-512F, need and prepare refuse with a reason
 * that says so. */
static void avx512_case(sp_csr *A, int decreasing)
{
    const int32_t rows = 71, cols = 80;
    sp_err err = {{0}};
    cr_assert_eq(sp_csr_alloc(A, rows, cols, rows * (rows - 1) / 2, &err), 0, "%s", err.msg);
    int32_t at = 0;
    for (int32_t r = 0; r < rows; r++) {
        int32_t len = decreasing ? rows - 1 - r : r;
        A->rowptr[r] = at;
        for (int32_t j = 0; j < len; j++, at++) {
            A->colidx[at] = cols - len + j;
            A->val[at] = (double)((r * 7 + j * 13) % 17) - 8.5;
        }
    }
    A->rowptr[rows] = at;
    cr_assert_eq(sp_csr_validate(A, &err), 0, "%s", err.msg);
}

/* Every kernel that declares an instruction set refuses, in need and in
 * prepare and with the reason, a CPU without it (SPSWEEP_CPU_WITHOUT makes
 * any CPU one), and accepts the same problem once the CPU has it: the
 * descriptor's isa and the kernel's own check agree, whatever CPU runs the
 * tests. */
Test(spmv, kernels_with_an_instruction_set_refuse_a_cpu_without_it)
{
    sp_csr A;
    avx512_case(&A, 0);
    const sp_operation *op = spmv_op();
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    int n = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->isa)
            continue;
        n++;
        cr_assert_eq(k->needs_gpu, 0, "%s: isa is for CPU kernels", k->name);
        setenv("SPSWEEP_CPU_WITHOUT", k->isa, 1);
        cr_assert_eq(sp_cpu_has_isa(k->isa), 0);
        sp_need need = {0};
        void *state = NULL;
        err.msg[0] = 0;
        cr_assert_eq(k->need(&pb, NULL, &need, &err), -1, "%s: need accepted the CPU", k->name);
        cr_assert(strstr(err.msg, sp_isa_label(k->isa)) && strstr(err.msg, "SPSWEEP_CPU_WITHOUT"),
                  "%s: reason %s", k->name, err.msg);
        err.msg[0] = 0;
        cr_assert_eq(k->prepare(&pb, NULL, &state, &err), -1, "%s: prepare ran", k->name);
        cr_assert_null(state);
        cr_assert_not_null(strstr(err.msg, sp_isa_label(k->isa)), "%s: %s", k->name, err.msg);
        unsetenv("SPSWEEP_CPU_WITHOUT");
        if (!sp_cpu_has_isa(k->isa))
            continue;           /* this CPU lacks it anyway: refused as above */
        cr_assert_eq(k->need(&pb, NULL, &need, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_eq(k->prepare(&pb, NULL, &state, &err), 0, "%s: %s", k->name, err.msg);
        k->release(state);
    }
    cr_assert_geq(n, 2, "the AVX-512 kernels declare their instruction set");
    op->teardown(&pb);
    sp_csr_free(&A);
}

Test(spmv, avx512_kernels_on_every_row_length_or_refused_with_the_reason)
{
    static const char *const names[] = {"spmv_csr_omp_avx512", "spmv_hll_avx512"};
    static const long hacks[] = {1, 7, 16, 17, 32, 48};
    const spmv_axis_override hack = {"hack", hacks, 6}, thr = {"threads", test_threads, 4};
    const spmv_axis_override both[] = {thr, hack};
    for (int d = 0; d < 2; d++) {
        sp_csr A;
        avx512_case(&A, d);
        for (int n = 0; n < 2; n++) {
            const sp_kernel *k = sp_kernel_find(names[n]);
            cr_assert_not_null(k, "%s is not registered", names[n]);
            int hll = !strcmp(k->format, "hll");
            if (spmv_cpu_lacks_isa(k)) {
                const sp_operation *op = spmv_op();
                sp_problem pb;
                sp_err err = {{0}};
                cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
                sp_need need = {0};
                void *state = NULL;
                cr_assert_eq(k->need(&pb, NULL, &need, &err), -1,
                             "%s: need accepted a CPU without AVX-512F", k->name);
                cr_assert_not_null(strstr(err.msg, "AVX-512"), "reason: %s", err.msg);
                err.msg[0] = 0;
                cr_assert_eq(k->prepare(&pb, NULL, &state, &err), -1);
                cr_assert_null(state);
                cr_assert_not_null(strstr(err.msg, "AVX-512"), "reason: %s", err.msg);
                op->teardown(&pb);
                cr_log_info("%s: this CPU has no AVX-512F; checked its refusal only", k->name);
                continue;
            }
            int refused = spmv_check_kernel_with(k, both, hll ? 2 : 1, &A,
                                                 d ? "rows of 70..0 nonzeros"
                                                   : "rows of 0..70 nonzeros");
            cr_assert_eq(refused, 0, "%s refused on a CPU with AVX-512F", k->name);
        }
        sp_csr_free(&A);
    }
}
