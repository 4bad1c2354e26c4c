/* test_gpu_transpose.c — every GPU transposition kernel identical, entry
 * for entry, to the serial counting sort (the operation's exact check)
 * at a few block sizes: on the awkward matrices of tests/spmv_cases.c, on
 * generated and real ones, on matrices built for the kernels' paths (one
 * column holding most entries, nnz = 0 with 2^21 columns, both sides of
 * the one-block size limit); plus refusals and release(NULL). With
 * SPSWEEP_GPU_TEST_QUICK set (the sanitizer passes) two block sizes and
 * smaller generated matrices. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../kernels/transpose/transpose_gpu.h"
#include "../spmv_cases.h"

static const char *const kernels[] = {"transpose_cuda_scatter", "transpose_cuda_scantrans",
                                      "transpose_cuda_mergetrans", "transpose_cub_sort",
                                      "transpose_cusparse"};
#define NKERNELS (sizeof kernels / sizeof *kernels)

static int quick(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
}

/* Every GPU transposition kernel on A at a few block sizes. */
static void check_gpu_transpose(const sp_csr *A, const char *what)
{
    static const long few[] = {64, 256, 1024}, two[] = {64, 1024};
    spmv_axis_override o = {"blocksize", quick() ? two : few, quick() ? 2 : 3};
    for (size_t i = 0; i < NKERNELS; i++) {
        const sp_kernel *k = sp_kernel_find(kernels[i]);
        cr_assert_not_null(k, "%s not registered", kernels[i]);
        cr_assert_not_null(k->prepare, "%s is not built into this binary", k->name);
        cr_assert_eq(spmv_check_kernel_with(k, &o, 1, A, what), 0, "%s refused %s", k->name,
                     what);
    }
}

/* A from n triplets (row, col) with values from the index. */
static void from_triplets(sp_csr *A, int32_t rows, int32_t cols, int64_t n,
                          void (*entry)(int64_t i, int32_t *r, int32_t *c))
{
    sp_coo T;
    sp_err err;
    cr_assert_eq(sp_coo_init(&T, rows, cols, n, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < n; i++) {
        int32_t r, c;
        entry(i, &r, &c);
        cr_assert_eq(sp_coo_push(&T, r, c, 1.0 + (double)(i % 1000) / 7.0, &err), 0);
    }
    cr_assert_eq(sp_csr_from_coo(A, &T, &err), 0, "%s", err.msg);
    sp_coo_free(&T);
}

Test(gpu_transpose, awkward_matrices, .timeout = 600)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_gpu_transpose(&c.A, c.name);
        spmv_case_free(&c);
    }
}

Test(gpu_transpose, generated_matrices, .timeout = 600)
{
    static const char *specs[] = {
        "laplace2d?n=301",
        "rmat?scale=15&ef=8",
        "denserow?rows=20000&cols=300000&per_row=4&dense=300000",
        "laplace3d?n=23&points=27",
        "uniform?rows=100003&cols=5000&per_row=9&seed=2",
        "uniform?rows=3001&cols=200003&per_row=40&seed=3",
        "banded?n=50001&bw=7",
    };
    static const char *small[] = {
        "laplace2d?n=101",
        "rmat?scale=12&ef=8",
        "denserow?rows=2000&cols=30000&per_row=4&dense=30000",
        "laplace3d?n=9&points=27",
        "uniform?rows=10003&cols=500&per_row=9&seed=2",
        "uniform?rows=301&cols=20003&per_row=40&seed=3",
        "banded?n=5001&bw=7",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        const char *spec = quick() ? small[i] : specs[i];
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
        check_gpu_transpose(&A, spec);
        sp_csr_free(&A);
    }
}

Test(gpu_transpose, real_matrices, .timeout = 600)
{
    static const char *files[] = {"tests/data/ss/bcsstk06.mtx.gz", "tests/data/ss/olm1000.mtx.gz",
                                  "tests/data/mm/ss_1138_bus.mtx.gz",
                                  "tests/data/mm/ss_west0479.mtx.gz",
                                  "tests/data/mm/ss_young1c.mtx.gz"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts o = {.quiet = 1};
        cr_assert_eq(sp_mm_read(files[i], &o, &A, NULL, &err), 0, "%s", err.msg);
        check_gpu_transpose(&A, files[i]);
        sp_csr_free(&A);
    }
}

/* Column 5 in every row of 200003 plus one more entry in every third row:
 * the scatter's long-column path (CUB's segmented sort) and its short
 * columns. */
static void one_big_column(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i < 200003 ? i : (i - 200003) * 3);
    *c = i < 200003 ? 5 : (int32_t)(i % 97 == 5 ? 6 : i % 97);
}

Test(gpu_transpose, one_column_holds_most_entries, .timeout = 600)
{
    sp_csr A;
    from_triplets(&A, 200003, 97, 200003 + 66668, one_big_column);
    check_gpu_transpose(&A, "one column of 200003 in 200003 x 97");
    sp_csr_free(&A);
}

/* The transposed shape: one row holding most entries, few rows. */
static void one_big_row(int64_t i, int32_t *r, int32_t *c)
{
    *r = i < 150001 ? 3 : (int32_t)(i % 11);
    *c = i < 150001 ? (int32_t)i : (int32_t)((i * 7919) % 150001);
}

Test(gpu_transpose, one_row_holds_most_entries, .timeout = 600)
{
    sp_csr A;
    from_triplets(&A, 11, 150001, 150001 + 5000, one_big_row);
    check_gpu_transpose(&A, "one row of 150001 in 11 x 150001");
    sp_csr_free(&A);
}

static void none(int64_t i, int32_t *r, int32_t *c)
{
    (void)i, (void)r, (void)c;
}

/* nnz = 0 with more columns than the one-block path takes. */
Test(gpu_transpose, no_entries_many_columns, .timeout = 300)
{
    sp_csr A;
    from_triplets(&A, 7, 1 << 21, 0, none);
    check_gpu_transpose(&A, "7 x 2^21, nnz = 0");
    sp_csr_free(&A);
}

/* Rows of 8 distinct columns: 1024 rows give SP_TRANS_SMALL_NNZ entries
 * (one block), 1025 rows one more tile's worth (the scatter). */
static void eight_per_row(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i / 8);
    *c = (int32_t)((i / 8 * 13 + (i % 8) * 101) % 1009);
}

Test(gpu_transpose, both_sides_of_the_one_block_limit, .timeout = 300)
{
    for (int32_t rows = 1023; rows <= 1025; rows++) {
        sp_csr A;
        from_triplets(&A, rows, 1009, (int64_t)rows * 8, eight_per_row);
        cr_assert_eq(A.nnz, rows * 8);
        check_gpu_transpose(&A, rows == 1024 ? "nnz = 8192" : "nnz = 8192 -+ 8");
        sp_csr_free(&A);
    }
}

/* Block sizes outside the axis are refused by need and prepare, naming it. */
Test(gpu_transpose, bad_block_sizes_are_refused)
{
    spmv_case c;
    spmv_case_build(1, &c);
    const sp_operation *op = sp_operation_find("transpose");
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    long bad[] = {0, 32, 96, 2048};
    for (size_t i = 0; i < 3; i++) {
        const sp_kernel *k = sp_kernel_find(kernels[i]);
        for (int b = 0; b < 4; b++) {
            sp_params p = {.n = 1, .name = {"blocksize"}, .value = {bad[b]}};
            sp_need need;
            void *state = &err;
            sp_phases ph = {0, 0, 0};
            err.msg[0] = 0;
            cr_assert_eq(k->need(&pb, &p, &need, &err), -1, "%s %ld", k->name, bad[b]);
            cr_assert_eq(k->prepare(&pb, &p, &state, &ph, &err), -1, "%s %ld", k->name, bad[b]);
            cr_assert_null(state);
            cr_assert_not_null(strstr(err.msg, "blocksize"), "%s", err.msg);
        }
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

Test(gpu_transpose, release_accepts_null)
{
    for (size_t i = 0; i < NKERNELS; i++)
        sp_kernel_find(kernels[i])->release(NULL);
}
