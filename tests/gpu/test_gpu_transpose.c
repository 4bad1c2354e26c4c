/* test_gpu_transpose.c — every GPU transposition kernel identical, entry
 * for entry, to the serial counting sort (the operation's exact check)
 * at a few block sizes: on the awkward matrices of tests/spmv_cases.c, on
 * generated and real ones, on matrices built for the kernels' paths (one
 * column holding most entries, nnz = 0 with 2^21 columns, both sides of
 * the one-block size limit); plus refusals, release(NULL), the phases
 * the harness records for every kernel and its release from every
 * partial state (tests/util_phases.h). With
 * SPSWEEP_GPU_TEST_QUICK set (the sanitizer passes) two block sizes and
 * smaller generated matrices. The symmetric fast path
 * (transpose_cuda_symperm) also on symmetric and almost symmetric
 * matrices, with the route each run took. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../kernels/transpose/transpose_gpu.h"
#include "../spmv_cases.h"
#include "../testutil.h"
#include "../util_phases.h"
#include "../util_symm.h"

/* The window kernel refuses matrices whose column windows are wide or not
 * monotone; every other GPU transposition kernel takes every matrix. */
#define WINTRANS "transpose_cuda_wintrans"

static int quick(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
}

static int is_gpu_transpose(const sp_kernel *k)
{
    return k->needs_gpu && !strcmp(k->operation, "transpose");
}

/* k at a few block sizes (and, for the window kernel, the chunk sizes
 * given: small ones put chunk boundaries inside the test matrices);
 * returns the number of combinations refused. */
static int check_one(const sp_kernel *k, const sp_csr *A, const char *what, const long *chunks,
                     int nchunks)
{
    static const long few[] = {64, 256, 1024}, two[] = {64, 1024};
    spmv_axis_override o[2] = {{"blocksize", quick() ? two : few, quick() ? 2 : 3},
                               {"chunk", chunks, nchunks}};
    cr_assert_not_null(k->prepare, "%s is not built into this binary", k->name);
    return spmv_check_kernel_with(k, o, 2, A, what);
}

/* Every registered GPU transposition kernel on A (the registry walked, so
 * a new kernel is checked without touching this file); only the window
 * kernel may refuse. Returns the window kernel's refusals. */
static int check_gpu_transpose(const sp_csr *A, const char *what)
{
    static const long chunks[] = {256, 4096};
    int n = 0, refused = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!is_gpu_transpose(k))
            continue;
        n++;
        int r = check_one(k, A, what, chunks, quick() ? 1 : 2);
        if (strcmp(k->name, WINTRANS))
            cr_assert_eq(r, 0, "%s refused %s", k->name, what);
        else
            refused = r;
    }
    cr_assert_geq(n, 7, "the GPU transposition kernels are registered");
    return refused;
}

/* The window kernel must take A at every chunk size given. */
static void check_wintrans_accepts(const sp_csr *A, const char *what, const long *chunks,
                                   int nchunks)
{
    const sp_kernel *k = sp_kernel_find(WINTRANS);
    cr_assert_not_null(k);
    cr_assert_eq(check_one(k, A, what, chunks, nchunks), 0, "%s refused %s", WINTRANS, what);
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
        if (!strncmp(spec, "laplace", 7) || !strncmp(spec, "banded", 6)) {
            static const long big[] = {1024, 16384};
            check_wintrans_accepts(&A, spec, big, 2);
        }
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

/* Block sizes outside the axis are refused by need and by prepare, on the
 * host (prepare makes no CUDA call), naming it. */
Test(gpu_transpose, bad_block_sizes_are_refused)
{
    spmv_case c;
    spmv_case_build(1, &c);
    const sp_operation *op = sp_operation_find("transpose");
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    long bad[] = {0, 32, 96, 2048};
    static const char *const kernels[] = {"transpose_cuda_scatter", "transpose_cuda_scantrans",
                                          "transpose_cuda_mergetrans", WINTRANS,
                                          "transpose_cuda_symperm"};
    for (size_t i = 0; i < 5; i++) {
        const sp_kernel *k = sp_kernel_find(kernels[i]);
        for (int b = 0; b < 4; b++) {
            sp_params p = {.n = 1, .name = {"blocksize"}, .value = {bad[b]}};
            sp_need need;
            void *state = &err;
            err.msg[0] = 0;
            cr_assert_eq(k->need(&pb, &p, &need, &err), -1, "%s %ld", k->name, bad[b]);
            cr_assert_eq(k->prepare(&pb, &p, &state, &err), -1, "%s %ld", k->name, bad[b]);
            cr_assert_null(state);
            cr_assert_not_null(strstr(err.msg, "blocksize"), "%s", err.msg);
        }
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

Test(gpu_transpose, release_accepts_null)
{
    for (int i = 0; sp_kernels[i]; i++)
        if (is_gpu_transpose(sp_kernels[i]))
            sp_kernels[i]->release(NULL);
}

/* The harness's phases for every GPU transposition kernel at its default
 * axes (h2d_s > 0, d2h_s > 0, free_s >= 0; convert_s > 0 with an
 * analyse), on a matrix above the one-launch limit and one below it (the
 * scatter and radix kernels' two analyses). */
Test(gpu_transpose, phases_of_every_kernel, .timeout = 300)
{
    static const char *specs[] = {"laplace2d?n=301", "laplace2d?n=31"};
    for (int m = 0; m < 2; m++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[m], &A, &err), 0, "%s: %s", specs[m], err.msg);
        cr_assert(m == 0 ? A.nnz > SP_TRANS_SMALL_NNZ : A.nnz <= SP_TRANS_SMALL_NNZ);
        int n = 0;
        for (int i = 0; sp_kernels[i]; i++)
            if (is_gpu_transpose(sp_kernels[i]))
                phases_check(sp_kernels[i], NULL, &A), n++;
        cr_assert_geq(n, 9, "the GPU transposition kernels are registered");
        sp_csr_free(&A);
    }
}

/* A GPU kernel's first use in a process costs more than the next: the
 * library's first handle, the kernel modules CUDA loads lazily (0.09-0.13 s
 * for transpose_cusparse's first conversion on the H100, 2026-12-07, with
 * a cuSPARSE handle made beforehand). The harness runs a GPU kernel once,
 * untimed, the first time it is prepared in a process
 * (runner/exec/harness.c warm_run), so the first run's conversion holds no
 * more than the next one's. Without it study 001's mode 1 of
 * cusparseCsr2cscEx2 came out 0.57 instead of 4.36 on the matrices where it
 * ran first. Criterion runs this test in a process of its own, where no
 * cuSPARSE kernel ran before. */
Test(gpu_transpose, the_first_cusparse_run_of_a_process_holds_no_library_load, .timeout = 60)
{
    const sp_kernel *k = sp_kernel_find("transpose_cusparse");
    cr_assert_not_null(k, "transpose_cusparse is registered");
    sp_csr A;
    sp_err err = {{0}};
    cr_assert_eq(sp_generate("laplace2d?n=31", &A, &err), 0, "%s", err.msg);
    const sp_operation *op = sp_operation_find(k->operation);
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    double convert[2];
    for (int i = 0; i < 2; i++) {
        tu_run r;
        cr_assert_eq(tu_run_prepare(&r, k, &pb, NULL, &err), 0, "run %d: %s", i, err.msg);
        convert[i] = r.ph.convert_s;
        tu_run_end(&r);
    }
    /* under compute-sanitizer (SPSWEEP_GPU_TEST_QUICK) every step is
     * slowed: only the comparison of the two runs holds there */
    int exact = getenv("SPSWEEP_GPU_TEST_QUICK") == NULL;
    cr_assert((convert[0] < 10e-3 || !exact) && convert[0] < 5 * convert[1] + 2e-3,
              "first run's conversion %g s, second's %g s: the first held the library load",
              convert[0], convert[1]);
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* Every GPU transposition kernel released from each partial state: a lone
 * prepare, a state uploaded and analysed but never launched (tu_run_prepare
 * then tu_run_end), an upload or analyse failing before or after its
 * work; the context sound afterwards. */
Test(gpu_transpose, partial_states_release, .timeout = 300)
{
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("laplace2d?n=301", &A, &err), 0, "%s", err.msg);
    for (int i = 0; sp_kernels[i]; i++)
        if (is_gpu_transpose(sp_kernels[i]))
            phases_check_partial(sp_kernels[i], NULL, &A);
    sp_csr_free(&A);
}

/* Row r of a rows x cols band: the columns within hw of r x cols / rows
 * (tall and wide bands, monotone windows). */
static int32_t band_rows, band_cols, band_hw;
static void band(int64_t i, int32_t *r, int32_t *c)
{
    int32_t w = 2 * band_hw + 1, row = (int32_t)(i / w), d = (int32_t)(i % w) - band_hw;
    int32_t mid = (int32_t)((int64_t)row * band_cols / band_rows);
    *r = row;
    *c = mid + d < 0 ? 0 : mid + d >= band_cols ? band_cols - 1 : mid + d;
}

Test(gpu_transpose, wintrans_rectangular_bands, .timeout = 300)
{
    static const int32_t shapes[][3] = {{5003, 701, 3}, {701, 5003, 9}, {4099, 4099, 40}};
    static const long chunks[] = {256, 1024};
    for (int s = 0; s < 3; s++) {
        band_rows = shapes[s][0], band_cols = shapes[s][1], band_hw = shapes[s][2];
        sp_csr A;
        from_triplets(&A, band_rows, band_cols, (int64_t)band_rows * (2 * band_hw + 1), band);
        char what[64];
        snprintf(what, sizeof what, "band %d x %d, half-width %d", band_rows, band_cols,
                 band_hw);
        check_wintrans_accepts(&A, what, chunks, 2);
        sp_csr_free(&A);
    }
}

/* Every row holds columns 0 and cols - 1: every window is [0, cols - 1]
 * and every column is covered by every chunk (the column pass walks them
 * all); the rest of a row at random. */
static void full_window(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i / 32);
    int32_t e = (int32_t)(i % 32);
    *c = e == 0 ? 0 : e == 1 ? 599 : (int32_t)((i * 2654435761u) % 600);
}

Test(gpu_transpose, wintrans_every_chunk_covers_every_column, .timeout = 300)
{
    static const long chunks[] = {256, 1024};
    sp_csr A;
    from_triplets(&A, 3001, 600, 3001 * 32, full_window);
    check_wintrans_accepts(&A, "3001 x 600, every window full", chunks, 2);
    sp_csr_free(&A);
}

/* Rows of stair_len consecutive columns starting at the row. */
static int32_t stair_len;
static void staircase(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i / stair_len);
    *c = *r + (int32_t)(i % stair_len);
}

/* Each row longer than several chunks: most chunks hold no rows (empty
 * chunks between the windows). */
Test(gpu_transpose, wintrans_rows_longer_than_chunks, .timeout = 300)
{
    static const long chunks[] = {256, 1024};
    sp_csr A;
    stair_len = 700;
    from_triplets(&A, 300, 1000, 300 * 700, staircase);
    check_wintrans_accepts(&A, "300 x 1000 staircase of 700", chunks, 2);
    sp_csr_free(&A);
}

/* Windows of 30000 columns: wider than SP_WINTRANS_SMEM holds, so the
 * counts and cursors stay in each chunk's slice of global memory. */
Test(gpu_transpose, wintrans_windows_beyond_shared_memory, .timeout = 300)
{
    static const long chunks[] = {4096, 65536};
    sp_csr A;
    stair_len = 30000;
    cr_assert_gt(30000 * 4, SP_WINTRANS_SMEM);
    from_triplets(&A, 40, 30040, 40 * 30000, staircase);
    check_wintrans_accepts(&A, "40 x 30040 staircase of 30000", chunks, 2);
    sp_csr_free(&A);
}

/* Refused combinations are refused by need and prepare alike, naming the
 * reason: a random matrix's windows overlap and wander. */
Test(gpu_transpose, wintrans_refuses_wide_windows)
{
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("rmat?scale=14&ef=8", &A, &err), 0, "%s", err.msg);
    static const long chunks[] = {256};
    cr_assert_gt(check_one(sp_kernel_find(WINTRANS), &A, "rmat 14", chunks, 1), 0);
    sp_csr_free(&A);
}

/* ---- the symmetric fast path ------------------------------------------ */

#define SYMPERM "transpose_cuda_symperm"

/* transpose_cuda_symperm through its life cycle in the harness (as the
 * runner drives it) at block size bs and `lookup`: two launches, each
 * taking the route `route`, then the CSC identical to the serial
 * transposition. */
static void check_symperm(const sp_csr *A, const char *what, int route, long bs, long lookup)
{
    const sp_kernel *k = sp_kernel_find(SYMPERM);
    const sp_operation *op = sp_operation_find("transpose");
    cr_assert(k && k->prepare, SYMPERM " is not built into this binary");
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    size_t bytes = op->output_bytes(&pb);
    void *ref = malloc(bytes + 8), *got = malloc(bytes + 8);
    cr_assert(ref && got);
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    sp_params p = {.n = 2, .name = {"blocksize", "lookup"}, .value = {bs, lookup}};
    tu_run r;
    cr_assert_eq(tu_run_prepare(&r, k, &pb, &p, &err), 0, "%s at %ld, lookup %ld: %s", what, bs,
                 lookup, err.msg);
    cr_assert_eq(sp_trans_symperm_route(r.state), SP_SYMPERM_NONE);
    for (int run = 0; run < 2; run++) {
        double s = -1;
        cr_assert_eq(tu_run_launch(&r, &s, &err), 0, "%s at %ld, lookup %ld: %s", what, bs,
                     lookup, err.msg);
        cr_assert(isfinite(s) && s >= 0, "%s: time %g", what, s);
        cr_assert_eq(sp_trans_symperm_route(r.state), route,
                     "%s at %ld, lookup %ld, run %d: route %d", what, bs, lookup, run,
                     sp_trans_symperm_route(r.state));
    }
    memset(got, 0xff, bytes);
    cr_assert_eq(tu_run_result(&r, got, &err), 0, "%s", err.msg);
    tu_run_end(&r);
    cr_assert_eq(memcmp(got, ref, bytes), 0,
                 "%s at %ld, lookup %ld: CSC differs from the serial one", what, bs, lookup);
    free(ref), free(got);
    op->teardown(&pb);
}

/* The default lookup at every block size of the plan, each other value
 * of the `lookup` axis at one. */
static void check_symperm_all(const sp_csr *A, const char *what, int route)
{
    static const long few[] = {64, 256, 1024}, two[] = {64, 1024};
    for (int b = 0; b < (quick() ? 2 : 3); b++)
        check_symperm(A, what, route, quick() ? two[b] : few[b], SP_SYMPERM_LOOKUP_DEFAULT);
    static const long at[] = {0, 64, 512, 256, 1024, 128};   /* block size by lookup */
    for (long l = SP_SYMPERM_SEARCH; l <= SP_SYMPERM_PAIR_EF; l++)
        if (l != SP_SYMPERM_LOOKUP_DEFAULT)
            check_symperm(A, what, route, at[l], l);
}

/* Symmetric patterns take the pass alone, one missing mirror (in the
 * middle, at the first or the last position, one far entry added) the
 * pass and the fallback, rectangular shapes the fallback alone; exact
 * every time. The values are distinct (util_symm.h), so moving none of
 * them would fail. */
Test(gpu_transpose, symperm_symmetric_and_almost_symmetric, .timeout = 600)
{
    for (int i = 0; i < symm_case_count(); i++) {
        symm_case c;
        symm_case_build(i, quick(), &c);
        check_symperm_all(&c.A, c.name, (int)c.kind + 1);
        symm_case_free(&c);
    }
}

/* Many tiles: the bench set's shapes, smaller, with distinct values; each
 * with one mirror dropped near its middle. */
Test(gpu_transpose, symperm_larger_matrices, .timeout = 600)
{
    for (size_t i = 0; i < 4; i++) {
        const char *spec = quick() ? symm_larger_small[i] : symm_larger[i];
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
        symm_distinct_values(&A);
        enum symm_kind kind = symm_kind_of(&A);
        cr_assert_eq(kind, i < 3 ? SYMM_SYMMETRIC : SYMM_NOT, "%s", spec);
        check_symperm_all(&A, spec, (int)kind + 1);
        if (kind == SYMM_SYMMETRIC) {
            symm_drop_middle(&A);
            cr_assert_eq(symm_kind_of(&A), SYMM_NOT);
            char what[128];
            snprintf(what, sizeof what, "%s less one entry", spec);
            check_symperm_all(&A, what, SP_SYMPERM_FALLBACK);
        }
        sp_csr_free(&A);
    }
}

/* Every GPU transposition kernel on the symmetric cases too (distinct
 * values on symmetric patterns, empty rows between sparse indices), at
 * their smaller sizes. Not in quick mode (the sanitizer passes): the
 * symperm tests above reach the new kernel there. */
Test(gpu_transpose, symmetric_cases_every_kernel, .timeout = 600)
{
    if (quick())
        cr_skip_test("quick mode: the symmetric cases for every kernel run in the plain pass");
    for (int i = 0; i < symm_case_count(); i++) {
        symm_case c;
        symm_case_build(i, 1, &c);
        check_gpu_transpose(&c.A, c.name);
        symm_case_free(&c);
    }
}

/* ---- the radix route (transpose_cuda_radix) ------------------------------ */

#define RADIX "transpose_cuda_radix"

/* k at the digit widths given, always by its passes (small_nnz 1: the
 * one-block path only for nnz <= 1; the registry-walking tests run it at
 * its default, where small matrices take the one-block path). */
static void check_radix(const sp_csr *A, const char *what, const long *digits, int n)
{
    const sp_kernel *k = sp_kernel_find(RADIX);
    cr_assert_not_null(k);
    cr_assert_not_null(k->prepare, "%s is not built into this binary", RADIX);
    static const long passes_only[] = {1};
    spmv_axis_override o[2] = {{"digit_bits", digits, n}, {"small_nnz", passes_only, 1}};
    cr_assert_eq(spmv_check_kernel_with(k, o, 2, A, what), 0, "%s refused %s", RADIX, what);
}

/* Narrow digits: many passes (1 bit: one pass a column bit; 3 and 7 bits
 * leave a shorter last digit), the ping-pong between the two work sets
 * from three passes on; on the awkward matrices and generated ones of
 * several tiles. */
Test(gpu_transpose, radix_every_digit_width, .timeout = 600)
{
    static const long digits[] = {1, 3, 4, 7, 12}, two[] = {3, 12};
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_radix(&c.A, c.name, quick() ? two : digits, quick() ? 2 : 5);
        spmv_case_free(&c);
    }
    static const char *specs[] = {"rmat?scale=14&ef=8", "laplace3d?n=17&points=27",
                                  "denserow?rows=5000&cols=70001&per_row=3&dense=70001"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[i], &A, &err), 0, "%s: %s", specs[i], err.msg);
        cr_assert_gt(A.nnz, 2 * SP_RADIX_TILE, "%s: more than two tiles", specs[i]);
        check_radix(&A, specs[i], quick() ? two : digits, quick() ? 2 : 5);
        sp_csr_free(&A);
    }
}

/* 2^25 + 3 columns: 26 bits, three passes at every width up to 12 (the
 * default's plan on the widest matrices); 70 000 entries over 18 tiles. */
static void wide_columns(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i % 61);
    *c = (int32_t)(((uint64_t)i * 2654435761u) % ((1u << 25) + 3));
}

Test(gpu_transpose, radix_three_passes_over_2_25_columns, .timeout = 300)
{
    sp_csr A;
    from_triplets(&A, 61, (1 << 25) + 3, 70000, wide_columns);
    sp_radix_plan pl;
    sp_radix_plan_of(A.cols, A.nnz, 12, &pl);
    cr_assert_eq(pl.passes, 3);
    static const long digits[] = {11, 12};
    check_radix(&A, "61 x (2^25 + 3)", digits, 2);
    sp_csr_free(&A);
}

/* Rows far apart: one entry in every 97th row of 4 000 037 (96 empty
 * rows between two positions, so a warp's 32 row starts never reach its
 * round's positions: the row search in rowptr), and runs of empty rows
 * between dense stretches. */
static void sparse_rows(int64_t i, int32_t *r, int32_t *c)
{
    if (i < 40000) {
        *r = (int32_t)(i * 97);
        *c = (int32_t)((i * 7) % 3001);
    } else {
        int64_t j = i - 40000;   /* rows 10..(10 + 2000 x 40) step 40, 25 entries each */
        *r = (int32_t)(10 + (j / 25) * 40 + 1);
        *c = (int32_t)((j % 25) * 113 + j / 25 % 7);
    }
}

/* One entry a row: a full tile spans SP_RADIX_TILE rows, the most its
 * stage of row starts holds. */
static void one_a_row(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)i;
    *c = (int32_t)((i * 37) % 5003);
}

Test(gpu_transpose, radix_rows_far_apart, .timeout = 300)
{
    sp_csr A;
    static const long digits[] = {5, 11};
    from_triplets(&A, 4000037, 3001, 40000 + 2000 * 25, sparse_rows);
    check_radix(&A, "4000037 x 3001, rows far apart", digits, 2);
    sp_csr_free(&A);
    from_triplets(&A, 3 * SP_RADIX_TILE + 5, 5003, 3 * SP_RADIX_TILE + 5, one_a_row);
    check_radix(&A, "one entry a row", digits, 2);
    sp_csr_free(&A);
}

static void rows_beyond_the_stage(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)((i * 7) % 20011);
    *c = (int32_t)((i * 13) % 701);
}

static void rows_within_the_stage(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)((i * 7) % 8191);
    *c = (int32_t)((i * 13) % 701);
}

static void rows_under_4001(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)((i * 7) % 4001);
    *c = (int32_t)((i * 13) % 701);
}

static void wide_small(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i % 500);
    *c = (int32_t)((i * 7919) % 100003);
}

static void rows_of_4099_columns(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)((i * 7) % 20011);
    *c = (int32_t)((i * 13) % 4099);
}

static void staged_rows_of_2049_columns(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)((i * 7) % 8191);
    *c = (int32_t)((i * 13) % 2049);
}

static void all_in_column_0(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)i;
    *c = 0;
}

static void full_rows_of_2048(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)(i / 2048);
    *c = (int32_t)((i * 5) % 2048);
}

/* rows 1..5 of 7, one entry each */
static void five_entries(int64_t i, int32_t *r, int32_t *c)
{
    *r = (int32_t)i + 1;
    *c = (int32_t)((i * 3) % 13);
}

/* The one-launch paths (transpose_small.cu, scatter and radix), every GPU
 * kernel on each: up to 2048 columns the cluster path (rows <= 8192; on
 * the H100) or the one-block counting path (more rows: rowptr searched in
 * global memory), at 1 to 8 rounds a warp, one column or whole rows of
 * 2048 holding everything; the block sort path (more columns) with rowptr
 * staged (rows + 1 <= 8193) and not. */
static void check_one_launch_paths(void)
{
    static const struct {
        int32_t rows, cols;
        int64_t n;
        void (*entry)(int64_t, int32_t *, int32_t *);
        const char *what;
    } m[] = {
        {20011, 701, 4000, rows_beyond_the_stage, "20011 x 701, 4000 (one block, rows searched)"},
        {20011, 701, 6000, rows_beyond_the_stage, "20011 x 701, 6000 (one block, rows searched)"},
        {4001, 701, 4000, rows_under_4001, "4001 x 701, 4000 (counting)"},
        {8191, 701, 8000, rows_within_the_stage, "8191 x 701, 8000 (counting, all rows)"},
        {8192, 1, 8192, all_in_column_0, "8192 x 1, 8192 (counting, one column)"},
        {4, 2048, 8192, full_rows_of_2048, "4 x 2048, 8192 (counting, full rows)"},
        {1, 2048, 2048, full_rows_of_2048, "1 x 2048, 2048 (counting, one full row)"},
        {7, 13, 5, five_entries, "7 x 13, 5 (counting, blocks with no share)"},
        {20011, 4099, 6000, rows_of_4099_columns, "20011 x 4099, 6000 (sort, rowptr not staged)"},
        {8191, 2049, 8000, staged_rows_of_2049_columns, "8191 x 2049, 8000 (sort, rowptr staged)"},
        {500, 100003, 3000, wide_small, "500 x 100003, 3000 (sort: columns)"},
    };
    for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
        sp_csr A;
        from_triplets(&A, m[i].rows, m[i].cols, m[i].n, m[i].entry);
        cr_assert_eq(A.nnz, m[i].n, "%s", m[i].what);
        check_gpu_transpose(&A, m[i].what);
        sp_csr_free(&A);
    }
}

Test(gpu_transpose, one_block_path_rows_beyond_its_stage, .timeout = 300)
{
    check_one_launch_paths();
}

/* The same shapes with the cluster path off (SPSWEEP_SMALL_CLUSTER=0, read
 * once a process; Criterion runs each test in its own): the one-block
 * counting path takes every matrix of up to 2048 columns, as on a device
 * without clusters. */
Test(gpu_transpose, one_launch_paths_without_clusters, .timeout = 300)
{
    cr_assert_eq(setenv("SPSWEEP_SMALL_CLUSTER", "0", 1), 0);
    check_one_launch_paths();
}
