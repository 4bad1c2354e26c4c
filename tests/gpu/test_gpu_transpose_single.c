/* test_gpu_transpose_single.c — every GPU transposition kernel and
 * cusparseCsr2cscEx2 (CUDA_R_32F) at the `precision` single: the CSC's
 * structure the serial reference's and every value the reference's rounded
 * to float, bit for bit (tests/util_tprec.h), on the awkward matrices,
 * generated and real ones and the shapes of each kernel's paths (the
 * one-launch paths with and without clusters, the radix passes at several
 * digit widths, the symmetric fast path at every lookup with its
 * fallback), each matrix's values made ones float cannot hold, so a kernel
 * that moved doubles, or rounded a value twice or the wrong way, fails.
 * With SPSWEEP_GPU_TEST_QUICK set (the sanitizer passes) fewer block sizes
 * and smaller matrices. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../kernels/transpose/transpose_gpu.h"
#include "../util_symm.h"
#include "../util_tprec.h"

#define WINTRANS "transpose_cuda_wintrans"

static int quick(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
}

/* k in single on A0's pattern (values float cannot hold) at a few block
 * sizes and window chunks; the overrides o[0..no-1] first, when given.
 * Returns the combinations refused. */
static int check_k(const sp_kernel *k, const sp_csr *A0, const char *what,
                   const spmv_axis_override *o, int no)
{
    static const long few[] = {64, 256, 1024}, two[] = {64, 1024}, chunks[] = {256, 4096};
    spmv_axis_override all[SP_MAX_AXES];
    int n = 0;
    for (int i = 0; i < no; i++)
        all[n++] = o[i];
    if (no == 0) {
        all[n++] = (spmv_axis_override){"blocksize", quick() ? two : few, quick() ? 2 : 3};
        all[n++] = (spmv_axis_override){"chunk", chunks, quick() ? 1 : 2};
    }
    cr_assert_not_null(k->prepare, "%s is not built into this binary", k->name);
    sp_csr A;
    tprec_unfloat(A0, &A);
    cr_assert(A.nnz == 0 || tprec_rounded_values(&A) > A.nnz / 2, "%s", what);
    int refused = tprec_check_single(k, all, n, &A, what);
    sp_csr_free(&A);
    return refused;
}

/* Every GPU transposition kernel (the registry walked, cuSPARSE among
 * them) in single on A; only the window kernel may refuse. */
static void check_all(const sp_csr *A, const char *what)
{
    int n = 0, cusparse = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu || strcmp(k->operation, "transpose"))
            continue;
        int r = check_k(k, A, what, NULL, 0);
        if (strcmp(k->name, WINTRANS))
            cr_assert_eq(r, 0, "%s refused %s in single", k->name, what);
        cusparse += !strcmp(k->name, "transpose_cusparse");
        n++;
    }
    cr_assert_geq(n, 9, "the GPU transposition kernels are registered");
    cr_assert_eq(cusparse, 1, "cuSPARSE's baseline is among them");
}

/* A rows x cols from n triplets (entry(i) gives row and column), values
 * from the index. */
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

static void check_spec(const char *spec)
{
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
    check_all(&A, spec);
    sp_csr_free(&A);
}

Test(gpu_transpose_single, awkward_matrices, .timeout = 600)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_all(&c.A, c.name);
        spmv_case_free(&c);
    }
}

/* The bench set's shapes, smaller: stencils and a band (the window and
 * symmetric paths), R-MAT, a dense row, uniform with many columns (the
 * radix route's three passes), all above the one-launch limit. */
Test(gpu_transpose_single, generated_matrices, .timeout = 600)
{
    static const char *specs[] = {"laplace2d?n=301", "rmat?scale=15&ef=8",
                                  "denserow?rows=20000&cols=300000&per_row=4&dense=300000",
                                  "laplace3d?n=23&points=27",
                                  "uniform?rows=3001&cols=200003&per_row=40&seed=3",
                                  "banded?n=50001&bw=7"};
    static const char *small[] = {"laplace2d?n=101", "rmat?scale=12&ef=8",
                                  "denserow?rows=2000&cols=30000&per_row=4&dense=30000",
                                  "laplace3d?n=9&points=27",
                                  "uniform?rows=301&cols=20003&per_row=40&seed=3",
                                  "banded?n=5001&bw=7"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        check_spec(quick() ? small[i] : specs[i]);
}

Test(gpu_transpose_single, real_matrices, .timeout = 600)
{
    static const char *files[] = {"tests/data/ss/bcsstk06.mtx.gz", "tests/data/ss/olm1000.mtx.gz",
                                  "tests/data/mm/ss_west0479.mtx.gz"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts o = {.quiet = 1};
        cr_assert_eq(sp_mm_read(files[i], &o, &A, NULL, &err), 0, "%s", err.msg);
        check_all(&A, files[i]);
        sp_csr_free(&A);
    }
}

/* Column 5 in every row plus an entry in every third: the scatter's
 * long-column path (CUB's segmented sort carrying float values). */
static void one_big_column(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i < 200003 ? i : (i - 200003) * 3);
    *c = i < 200003 ? 5 : (int32_t)(i % 97 == 5 ? 6 : i % 97);
}

Test(gpu_transpose_single, one_column_holds_most_entries, .timeout = 600)
{
    sp_csr A;
    from_triplets(&A, 200003, 97, 200003 + 66668, one_big_column);
    check_all(&A, "one column of 200003 in 200003 x 97");
    sp_csr_free(&A);
}

/* The one-launch shapes (transpose_small.cu, scatter and radix): up to
 * 2048 columns the cluster or the counting path (rows staged or
 * searched), more columns the block sort; 8192 nonzeros and one past. */
static void rows_beyond_the_stage(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)((i * 5) % 20011);
    *c = (int32_t)((i * 7) % 701);
}

static void eight_per_row(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i / 8);
    *c = (int32_t)((i / 8 * 13 + (i % 8) * 101) % 1009);
}

static void wide_small(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i % 500);
    *c = (int32_t)((i * 7919) % 100003);
}

static void check_one_launch_paths(void)
{
    static const struct {
        int32_t rows, cols;
        int64_t n;
        void (*entry)(int64_t, int32_t *, int32_t *);
        const char *what;
    } m[] = {
        {20011, 701, 6000, rows_beyond_the_stage, "20011 x 701, 6000 (rows searched)"},
        {1024, 1009, 8192, eight_per_row, "1024 x 1009, 8192 (counting or cluster)"},
        {1025, 1009, 8200, eight_per_row, "1025 x 1009, 8200 (past the one-launch limit)"},
        {500, 100003, 3000, wide_small, "500 x 100003, 3000 (block sort)"},
    };
    for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
        sp_csr A;
        from_triplets(&A, m[i].rows, m[i].cols, m[i].n, m[i].entry);
        check_all(&A, m[i].what);
        sp_csr_free(&A);
    }
}

Test(gpu_transpose_single, one_launch_paths, .timeout = 600)
{
    check_one_launch_paths();
}

/* The same with the cluster path off (read once a process; Criterion runs
 * each test in its own): the one-block counting path in float. */
Test(gpu_transpose_single, one_launch_paths_without_clusters, .timeout = 600)
{
    cr_assert_eq(setenv("SPSWEEP_SMALL_CLUSTER", "0", 1), 0);
    check_one_launch_paths();
}

/* The radix route by its passes alone (small_nnz 1) at several digit
 * widths: one to many passes, float values staged in shared memory by
 * cp.async (4 bytes) and ping-ponged between the two work sets. */
Test(gpu_transpose_single, radix_passes_at_several_digit_widths, .timeout = 600)
{
    static const long digits[] = {3, 8, 11}, passes_only[] = {1};
    spmv_axis_override o[2] = {{"digit_bits", digits, 3}, {"small_nnz", passes_only, 1}};
    const sp_kernel *k = sp_kernel_find("transpose_cuda_radix");
    cr_assert_not_null(k);
    static const char *specs[] = {"uniform?rows=3001&cols=200003&per_row=7&seed=5",
                                  "rmat?scale=13&ef=8", "laplace2d?n=64"};
    for (size_t s = 0; s < 3; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s: %s", specs[s], err.msg);
        cr_assert_eq(check_k(k, &A, specs[s], o, 2), 0, "radix refused %s", specs[s]);
        sp_csr_free(&A);
    }
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        cr_assert_eq(check_k(k, &c.A, c.name, o, 2), 0, "radix refused %s", c.name);
        spmv_case_free(&c);
    }
}

/* The symmetric fast path at every lookup (1..5) on symmetric patterns
 * (the pass alone), almost symmetric ones (the pass, then the CUB route's
 * fallback, both in float) and rectangular ones (the fallback alone). */
Test(gpu_transpose_single, symperm_every_lookup_and_its_fallback, .timeout = 600)
{
    static const long lookups[] = {1, 2, 3, 4, 5}, bs[] = {128, 1024};
    spmv_axis_override o[2] = {{"blocksize", bs, 2}, {"lookup", lookups, 5}};
    const sp_kernel *k = sp_kernel_find("transpose_cuda_symperm");
    cr_assert_not_null(k);
    for (int i = 0; i < symm_case_count(); i++) {
        symm_case c;
        symm_case_build(i, quick(), &c);
        cr_assert_eq(check_k(k, &c.A, c.name, o, 2), 0, "symperm refused %s", c.name);
        symm_case_free(&c);
    }
    sp_csr A;
    sp_err err;
    const char *spec = quick() ? symm_larger_small[0] : symm_larger[0];
    cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
    cr_assert_eq(check_k(k, &A, spec, o, 2), 0, "symperm refused %s", spec);
    symm_drop_middle(&A);
    cr_assert_eq(check_k(k, &A, "less one mirror", o, 2), 0, "symperm refused %s", spec);
    sp_csr_free(&A);
}
