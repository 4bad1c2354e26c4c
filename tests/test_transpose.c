/* test_transpose.c — the transpose operation (reference against an
 * independent construction, the exact check, the work model) and every
 * transposition kernel, identical to the serial one on the awkward,
 * generated and real matrices. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "util_tprec.h"
#include "../fetch/matrix.h"
#include "../kernels/transpose/transpose.h"

static const sp_operation *transpose_op(void)
{
    const sp_operation *op = sp_operation_find("transpose");
    cr_assert_not_null(op, "operation transpose not registered");
    return op;
}

/* The reference of A into a fresh buffer; free() it after use. */
static void *reference_of(const sp_csr *A)
{
    sp_problem pb;
    sp_err err;
    cr_assert_eq(transpose_op()->setup(&pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    void *ref = malloc(sp_csc_bytes(A) + 8);
    cr_assert_not_null(ref);
    cr_assert_eq(transpose_op()->reference(&pb, ref, &err), 0, "%s", err.msg);
    transpose_op()->teardown(&pb);
    return ref;
}

/* The reference equals the CSR of A^T built by sp_csr_from_coo from A's
 * entries with rows and columns swapped (a different code path: scatter
 * by row of A^T, stable sort inside each). */
static void check_reference(const sp_csr *A, const char *what)
{
    sp_coo T;
    sp_csr At;
    sp_err err;
    cr_assert_eq(sp_coo_init(&T, A->cols, A->rows, A->nnz, &err), 0);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            cr_assert_eq(sp_coo_push(&T, A->colidx[k], i, A->val[k], &err), 0);
    cr_assert_eq(sp_csr_from_coo(&At, &T, &err), 0, "%s", err.msg);
    void *ref = reference_of(A);
    sp_csc C;
    sp_csc_view(ref, A, &C);
    cr_assert_eq(At.nnz, A->nnz, "%s", what);
    cr_assert_eq(memcmp(C.colptr, At.rowptr, ((size_t)A->cols + 1) * 4), 0, "%s: colptr", what);
    cr_assert_eq(memcmp(C.rowidx, At.colidx, (size_t)A->nnz * 4), 0, "%s: rowidx", what);
    cr_assert_eq(memcmp(C.val, At.val, (size_t)A->nnz * 8), 0, "%s: values", what);
    free(ref);
    sp_csr_free(&At);
    sp_coo_free(&T);
}

/* Threads above the row count of the small cases, and odd ones. */
static const long test_threads[] = {1, 2, 3, 7, 64};

/* Thread counts of test_threads at which k's need for A is over the
 * tests' free memory (ScanTrans at 64 threads on 5·10^6 columns), which
 * spmv_check_kernel skips as the runner would. */
static int over_budget(const sp_kernel *k, const sp_csr *A)
{
    sp_problem pb = {.A = A};
    int n = 0;
    for (int t = 0; t < 5; t++) {
        sp_params p = {.n = 1, .name = {"threads"}, .value = {test_threads[t]}};
        sp_need need = {0};
        sp_err err;
        n += k->need && !k->need(&pb, &p, &need, &err) && need.host_bytes > SPMV_TEST_FREE_BYTES;
    }
    return n;
}

/* librsb 1.3.0 cannot clone a matrix of one row with more than 3
 * nonzeros transposed: transpose_librsb refuses it at every thread count
 * (test librsb/refuses_one_row_with_the_reason). */
static int librsb_refuses(const sp_kernel *k, const sp_csr *A)
{
    return !strcmp(k->name, "transpose_librsb") && A->rows == 1 && A->nnz > 3;
}

/* Every transposition kernel on A: identical to the reference (error 0),
 * refused nowhere but where it does not fit. */
static void check_kernels(const sp_csr *A, const char *what)
{
    int n = 0;
    for (int k = 0; sp_kernels[k]; k++)
        if (!strcmp(sp_kernels[k]->operation, "transpose") && !sp_kernels[k]->needs_gpu &&
            sp_kernels[k]->prepare) {           /* built (MKL is optional) */
            const sp_kernel *K = sp_kernels[k];
            if (!K->axes[0].name)       /* serial: one combination */
                cr_assert_eq(spmv_check_kernel_all(K, test_threads, 5, A, what), 0,
                             "%s refused %s", K->name, what);
            else
                cr_assert_eq(spmv_check_kernel_all(K, test_threads, 5, A, what),
                             over_budget(K, A) + 5 * librsb_refuses(K, A), "%s refused %s",
                             K->name, what);
            n++;
        }
    cr_assert_geq(n, 3, "serial, ScanTrans and MergeTrans at least");
}

Test(transpose, reference_and_kernels_on_awkward_matrices, .timeout = 120)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_reference(&c.A, c.name);
        check_kernels(&c.A, c.name);
        spmv_case_free(&c);
    }
}

Test(transpose, generated_matrices, .timeout = 120)
{
    static const char *specs[] = {"rmat?scale=12&ef=8", "laplace3d?n=12&points=27",
                                  "banded?n=3001&bw=5",
                                  "denserow?rows=2000&cols=3000&per_row=3&dense=3000",
                                  "uniform?rows=500&cols=70000&per_row=9",
                                  "uniform?rows=300&cols=5000000&per_row=4"};  /* 3 digits */
    for (int s = 0; s < 6; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s: %s", specs[s], err.msg);
        check_reference(&A, specs[s]);
        check_kernels(&A, specs[s]);
        sp_csr_free(&A);
    }
}

Test(transpose, real_matrices, .timeout = 60)
{
    static const char *files[] = {"tests/data/ss/bcsstk06.mtx.gz", "tests/data/ss/olm1000.mtx.gz"};
    for (int f = 0; f < 2; f++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts o = {.quiet = 1};
        cr_assert_eq(sp_mm_read(files[f], &o, &A, NULL, &err), 0, "%s", err.msg);
        check_reference(&A, files[f]);
        check_kernels(&A, files[f]);
        sp_csr_free(&A);
    }
}

/* Identical is 0; one changed row index or pointer is +Inf; a value that
 * is the reference's rounded to float its relative change, which fails
 * double's tolerance (0: a transposition is exact) and passes single's
 * (2^-24); any other changed value +Inf, however close. */
Test(transpose, error_is_zero_infinite_or_a_value_change)
{
    spmv_case c;
    spmv_case_build(1, &c);
    sp_problem pb = {.A = &c.A};
    void *ref = reference_of(&c.A), *out = malloc(sp_csc_bytes(&c.A));
    cr_assert_not_null(out);
    sp_csc C;
    sp_csc_view(out, &c.A, &C);
    memcpy(out, ref, sp_csc_bytes(&c.A));
    cr_assert_eq(transpose_op()->error(&pb, out, ref), 0.0);
    sp_csc R;
    sp_csc_view(ref, &c.A, &R);
    R.val[17] = 1.0 / 3.0;      /* a value float cannot hold */
    C.val[17] = nextafter(R.val[17], INFINITY);
    cr_assert(isinf(transpose_op()->error(&pb, out, ref)), "one ulp off: not a rounding");
    C.val[17] = (double)(float)R.val[17];
    double e = transpose_op()->error(&pb, out, ref);
    sp_params dbl = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_DOUBLE}};
    sp_params sgl = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_SINGLE}};
    cr_assert(e > 0 && e <= 0x1p-24, "the float rounding: %g", e);
    C.val[17] = (double)nextafterf((float)R.val[17], INFINITY);
    cr_assert(isinf(transpose_op()->error(&pb, out, ref)), "the next float: +Inf");
    C.val[17] = (double)(float)R.val[17];
    cr_assert_eq(sp_run_tolerance(transpose_op(), &pb, ref, &dbl, 1e-12), 0.0,
                 "double: exact, whatever the sweep's tolerance");
    cr_assert_eq(sp_run_tolerance(transpose_op(), &pb, ref, NULL, 1e-12), 0.0);
    cr_assert_eq(sp_run_tolerance(transpose_op(), &pb, ref, &sgl, 1e-12), 0x1p-24);
    cr_assert_gt(e, sp_run_tolerance(transpose_op(), &pb, ref, &dbl, 1e-12));
    cr_assert_leq(e, sp_run_tolerance(transpose_op(), &pb, ref, &sgl, 1e-12));
    memcpy(out, ref, sp_csc_bytes(&c.A));
    C.val[17] = (double)(float)(C.val[17] * (1 + 0x1p-20));
    cr_assert_gt(transpose_op()->error(&pb, out, ref), 0x1p-24, "a value off by 2^-20");
    memcpy(out, ref, sp_csc_bytes(&c.A));
    C.val[5] = NAN;
    cr_assert(isinf(transpose_op()->error(&pb, out, ref)), "NaN");
    memcpy(out, ref, sp_csc_bytes(&c.A));
    int32_t t = C.rowidx[3];
    C.rowidx[3] = C.rowidx[4], C.rowidx[4] = t;
    cr_assert(isinf(transpose_op()->error(&pb, out, ref)), "two rows swapped");
    free(ref);
    free(out);
    spmv_case_free(&c);
}

Test(transpose, work_model_and_need)
{
    const sp_operation *op = transpose_op();
    sp_csr A = {.rows = 10, .cols = 20, .nnz = 50};
    cr_assert_float_eq(op->flops(SP_MATRIX_WORKLOAD(&A)), 50.0, 0);
    cr_assert_float_eq(op->bytes(SP_MATRIX_WORKLOAD(&A), SP_DOUBLE), 50 * 24 + 11 * 4 + 21 * 4, 0);
    cr_assert_float_eq(op->bytes(SP_MATRIX_WORKLOAD(&A), SP_SINGLE), 50 * 16 + 11 * 4 + 21 * 4, 0);
    cr_assert_str_eq(op->rate_unit, "Gnnz/s");
    sp_problem pb = {.A = &A};
    cr_assert_eq(op->output_bytes(&pb), 50u * 12 + 21 * 4);
    const sp_kernel *scan = sp_kernel_find("transpose_scantrans");
    cr_assert_not_null(scan);
    sp_params p0 = {.n = 1, .name = {"threads"}, .value = {0}};
    sp_need n;
    sp_err err;
    cr_assert_eq(scan->need(&pb, &p0, &n, &err), -1, "threads = 0 refused");
}

/* ScanTrans's scratch: 20 bytes of bookkeeping per thread plus one counter
 * per column of each thread's window. The windows of a diagonal tile the
 * columns once; where every thread touches every column (full rows) they
 * are (threads) x cols, the paper's `inter`. */
static uint64_t scan_need(const sp_csr *A, long threads)
{
    const sp_kernel *scan = sp_kernel_find("transpose_scantrans");
    cr_assert_not_null(scan);
    sp_problem pb = {.A = A};
    sp_params p = {.n = 1, .name = {"threads"}, .value = {threads}};
    sp_need n;
    sp_err err;
    cr_assert_eq(scan->need(&pb, &p, &n, &err), 0, "%s", err.msg);
    return n.host_bytes;
}

Test(transpose, scantrans_need_counts_the_column_windows)
{
    sp_csr D, F;
    sp_err err;
    cr_assert_eq(sp_csr_alloc(&D, 1000, 1000, 1000, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_csr_alloc(&F, 16, 1000, 16000, &err), 0, "%s", err.msg);
    D.rowptr[0] = 0;
    for (int32_t i = 0; i < 1000; i++)
        D.rowptr[i + 1] = i + 1, D.colidx[i] = i, D.val[i] = 1.0;
    for (int32_t k = 0; k < 16000; k++)
        F.colidx[k] = k % 1000, F.val[k] = 1.0;
    for (int32_t i = 0; i <= 16; i++)
        F.rowptr[i] = i * 1000;
    cr_assert_eq(scan_need(&D, 8) - scan_need(&D, 1), 7 * 20, "diagonal: windows tile");
    cr_assert_eq(scan_need(&F, 8) - scan_need(&F, 1), 7 * 20 + 7 * 1000 * 4,
                 "full rows: every thread spans every column");
    sp_csr_free(&D);
    sp_csr_free(&F);
}

/* Every CPU transposition kernel at the `precision` single on the awkward
 * matrices (values float cannot hold), generated and real ones: the CSC's
 * structure the reference's, each value the reference's rounded to float
 * (util_tprec.h); at every thread count of test_threads. */
static void check_single(const sp_csr *A0, const char *what)
{
    sp_csr A;
    tprec_unfloat(A0, &A);
    cr_assert(A.nnz == 0 || tprec_rounded_values(&A) > A.nnz / 2,
              "%s: values float holds exactly would not show a kernel keeping doubles", what);
    spmv_axis_override o = {"threads", test_threads, 5};
    int n = 0;
    for (int k = 0; sp_kernels[k]; k++) {
        const sp_kernel *K = sp_kernels[k];
        if (strcmp(K->operation, "transpose") || K->needs_gpu || !K->prepare)
            continue;
        int threaded = K->naxes > 0 && !strcmp(K->axes[0].name, "threads");
        cr_assert_eq(tprec_check_single(K, &o, 1, &A, what),
                     threaded ? over_budget(K, &A) + 5 * librsb_refuses(K, &A) : 0,
                     "%s refused %s in single", K->name, what);
        n++;
    }
    cr_assert_geq(n, 3, "serial, ScanTrans and MergeTrans at least");
    sp_csr_free(&A);
}

Test(transpose_single, cpu_kernels_on_awkward_matrices, .timeout = 120)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_single(&c.A, c.name);
        spmv_case_free(&c);
    }
}

Test(transpose_single, cpu_kernels_on_generated_and_real_matrices, .timeout = 120)
{
    static const char *specs[] = {"rmat?scale=11&ef=8", "laplace3d?n=10&points=27",
                                  "denserow?rows=1500&cols=2000&per_row=3&dense=2000",
                                  "uniform?rows=300&cols=5000000&per_row=4"};
    for (int s = 0; s < 4; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s: %s", specs[s], err.msg);
        check_single(&A, specs[s]);
        sp_csr_free(&A);
    }
    sp_csr A;
    sp_err err;
    sp_mm_opts mo = {.quiet = 1};
    cr_assert_eq(sp_mm_read("tests/data/ss/bcsstk06.mtx.gz", &mo, &A, NULL, &err), 0, "%s",
                 err.msg);
    check_single(&A, "bcsstk06");
    sp_csr_free(&A);
}

/* Every transposition kernel, CPU and GPU (their need is plain arithmetic,
 * stated without a device), declares `precision` with the default double
 * and takes single; in single its memory statement counts 4-byte values:
 * a GPU kernel's device bytes fall by at least 4 bytes for each of the
 * CSR's and the CSC's values, and its host bytes grow by A's values
 * rounded to float (prepare's conversion); a CPU kernel's CSC values
 * shrink by as much as that copy adds, and MergeTrans's triples carry
 * floats (4 bytes a nonzero less). */
Test(transpose_single, every_kernel_declares_precision_and_needs_4_byte_values)
{
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("banded?n=1000000&bw=2", &A, &err), 0, "%s", err.msg);
    sp_problem pb = {.A = &A};
    const uint64_t nnz = (uint64_t)A.nnz;
    int n = 0;
    for (int k = 0; sp_kernels[k]; k++) {
        const sp_kernel *K = sp_kernels[k];
        if (strcmp(K->operation, "transpose"))
            continue;
        int a = 0;
        while (a < K->naxes && strcmp(K->axes[a].name, SP_AXIS_PRECISION))
            a++;
        cr_assert_lt(a, K->naxes, "%s: no precision axis", K->name);
        cr_assert_str_eq(K->axes[a].defaults, "double", "%s", K->name);
        sp_params pd = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_DOUBLE}};
        sp_params ps = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_SINGLE}};
        sp_params bad = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {7}};
        sp_need d = {0}, s = {0}, b = {0};
        cr_assert_eq(K->need(&pb, &pd, &d, &err), 0, "%s: %s", K->name, err.msg);
        cr_assert_eq(K->need(&pb, &ps, &s, &err), 0, "%s: %s", K->name, err.msg);
        cr_assert_eq(K->need(&pb, &bad, &b, &err), -1, "%s: precision 7 taken", K->name);
        cr_assert(strstr(err.msg, "precision = 7"), "%s: %s", K->name, err.msg);
        if (!strcmp(K->name, "transpose_mkl"))
            continue;   /* MKL states its own (tests/test_mkl.c) */
        if (K->needs_gpu) {
            /* less 8 MiB: device arrays are counted in whole 2 MiB pages */
            cr_assert_geq(d.device_bytes - s.device_bytes, 8 * nnz - (8u << 20),
                          "%s: device %llu -> %llu",
                          K->name, (unsigned long long)d.device_bytes,
                          (unsigned long long)s.device_bytes);
            cr_assert_eq(s.host_bytes - d.host_bytes, 4 * nnz, "%s: host", K->name);
        } else {
            /* MergeTrans's triples and librsb's two matrices and CSR of A^T carry
             * 4 bytes less a value; librsb also keeps a float copy of A's */
            uint64_t fewer = !strcmp(K->name, "transpose_mergetrans") ? 4 * nnz
                             : !strcmp(K->name, "transpose_librsb")   ? 3 * 4 * nnz - 4 * nnz
                                                                      : 0;
            cr_assert_eq(d.host_bytes - s.host_bytes, fewer, "%s: host %llu -> %llu", K->name,
                         (unsigned long long)d.host_bytes, (unsigned long long)s.host_bytes);
        }
        n++;
    }
    cr_assert_geq(n, 12, "3 CPU, 8 GPU kernels and cuSPARSE");
    sp_csr_free(&A);
}
