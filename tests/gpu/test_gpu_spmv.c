/* test_gpu_spmv.c — every GPU SpMV kernel against the serial reference:
 * at every default axis value on the awkward matrices, at a few block sizes
 * (and every other axis value) on generated and real ones; plus the
 * kernels' refusals and their empty cases. Each check poisons the output
 * with NaN before result(), so y must be written in full
 * (tests/spmv_cases.c); a batch of back-to-back launches, as the harness
 * times them; the phases the harness records; and release from the
 * states a run can stop in (prepare alone, no launch, a failed upload).
 * With SPSWEEP_GPU_TEST_QUICK set (the sanitizer passes of
 * tests/gpu/run.sh) every matrix takes two block sizes (96, 1024), one
 * hack, lanes 1 (auto) and 32, sigma 1 and 3. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../runner/exec/harness.h"
#include "../spmv_cases.h"
#include "../testutil.h"

/* Block sizes for the large matrices: one below a warp's multiple is not
 * among them (the warp kernels refuse those; see odd_block_sizes). */
static const long few_blocksizes[] = {32, 96, 256, 1024};
static const long one_hack[] = {64};

/* Whether name is one of the comma-separated names in list. */
static int name_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* Every GPU kernel in the registry at each combination of its axes (with
 * few block sizes when `few`); returns the refused combinations. */
static int check_gpu_kernels_with(const sp_csr *A, const char *what, int few)
{
    int kernels = 0, refused = 0;
    int quick = getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
    static const long quick_blocksizes[] = {96, 1024}, quick_lanes[] = {1, 32},
                      quick_sigmas[] = {1, 3};
    spmv_axis_override o[4] = {{"blocksize", few_blocksizes, 4}, {"hack", one_hack, 1},
                               {"lanes", quick_lanes, 2}, {"sigma", quick_sigmas, 2}};
    static const long few_sigmas[] = {1, 4096};
    spmv_axis_override f[2] = {{"blocksize", few_blocksizes, 4}, {"sigma", few_sigmas, 2}};
    /* SELL-C-sigma on the awkward matrices in two passes instead of the
     * 12 x 4 x 4 product (which alone did not finish this test in 259 s on
     * the H100): every block size at hack 64 unsorted, then every hack and
     * every sigma at block sizes 96 and 1024. */
    static const long sell_sigma1[] = {1}, sell_blocksizes[] = {96, 1024};
    spmv_axis_override s1[2] = {{"hack", one_hack, 1}, {"sigma", sell_sigma1, 1}};
    spmv_axis_override s2[1] = {{"blocksize", sell_blocksizes, 2}};
    if (quick)
        o[0] = (spmv_axis_override){"blocksize", quick_blocksizes, 2};
    /* SPSWEEP_GPU_TEST_KERNELS=a,b: only those kernels (a sanitizer pass
     * over new kernels that must fit a short device call). */
    const char *only = getenv("SPSWEEP_GPU_TEST_KERNELS");
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu || strcmp(k->operation, "spmv"))
            continue;
        if (only && !name_listed(only, k->name))
            continue;
        cr_assert_not_null(k->prepare, "%s is not built into this binary", k->name);
        if (quick)
            refused += spmv_check_kernel_with(k, o, 4, A, what);
        else if (few)
            refused += spmv_check_kernel_with(k, f, 2, A, what);
        else if (!strcmp(k->name, "spmv_sell_cuda"))
            refused += spmv_check_kernel_with(k, s1, 2, A, what) +
                       spmv_check_kernel_with(k, s2, 1, A, what);
        else
            refused += spmv_check_kernel_with(k, NULL, 0, A, what);
        kernels++;
    }
    if (!only)
        cr_assert_geq(kernels, 15, "the 15 GPU SpMV kernels at least");
    return refused;
}

static void check_gpu_kernels(const sp_csr *A, const char *what)
{
    check_gpu_kernels_with(A, what, 1);
}

/* One test per awkward matrix and per generated one, so `--jobs` spreads
 * them over the card (as one test each, the full-size pass of either did
 * not end in 240 s beside the other suites) and a failure names its case. */
ParameterizedTestParameters(gpu_spmv, awkward_matrices)
{
    return tu_index_params(spmv_case_count());
}

ParameterizedTest(int *pi, gpu_spmv, awkward_matrices, .timeout = 600)
{
    spmv_case c;
    spmv_case_build(*pi, &c);
    check_gpu_kernels_with(&c.A, c.name, 0);
    spmv_case_free(&c);
}

ParameterizedTestParameters(gpu_spmv, generated_matrices)
{
    return tu_index_params(SPMV_GENERATED_COUNT);
}

ParameterizedTest(int *pi, gpu_spmv, generated_matrices, .timeout = 600)
{
    const char *spec = spmv_generated_spec(*pi, getenv("SPSWEEP_GPU_TEST_QUICK") != NULL);
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
    check_gpu_kernels(&A, spec);
    sp_csr_free(&A);
}

Test(gpu_spmv, real_matrices, .timeout = 600)
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

/* Block sizes CUDA cannot launch are refused in prepare, on the host and
 * naming the axis, before anything is allocated. */
Test(gpu_spmv, scalar_refuses_bad_block_sizes)
{
    const sp_kernel *k = sp_kernel_find("spmv_csr_cuda_scalar");
    cr_assert(k && k->prepare);
    const sp_operation *op = sp_operation_find("spmv");
    spmv_case c;
    spmv_case_build(1, &c);
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    long bad[] = {0, -32, 1025, 4096};
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {bad[i]}};
        void *state = &err;
        err.msg[0] = 0;
        cr_assert_eq(k->prepare(&pb, &p, &state, &err), -1, "blocksize %ld", bad[i]);
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

/* A dense row of 10^6 nonzeros: ELL is refused (by need and prepare, with
 * the reason) instead of allocating 10^6 x rows entries; every other kernel
 * runs it correctly (generated_matrices checks the values). */
Test(gpu_spmv, ell_refuses_a_dense_row_of_a_million)
{
    sp_csr A;
    sp_err err;
    const char *spec = "denserow?rows=20000&cols=1000000&per_row=4&dense=1000000";
    cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s", err.msg);
    const sp_kernel *ell = sp_kernel_find("spmv_ell_cuda");
    cr_assert(ell && ell->need);
    spmv_axis_override o = {"blocksize", few_blocksizes, 1};
    cr_assert_eq(spmv_check_kernel_with(ell, &o, 1, &A, spec), 1, "ELL was not refused");
    const sp_kernel *merge = sp_kernel_find("spmv_csr_cuda_merge");
    cr_assert_eq(spmv_check_kernel_with(merge, &o, 1, &A, spec), 0);
    sp_csr_free(&A);
}

/* The warp kernels work in whole warps: other block sizes are refused,
 * naming the axis; a partial last warp of rows is fine (awkward cases). */
Test(gpu_spmv, warp_kernels_refuse_partial_warps)
{
    const char *names[] = {"spmv_csr_cuda_vector", "spmv_csr_cuda_subwarp",
                           "spmv_csr_cuda_merge", "spmv_hll_cuda_block", "spmv_hll_cuda_warp"};
    const sp_operation *op = sp_operation_find("spmv");
    spmv_case c;
    spmv_case_build(1, &c);
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    for (int i = 0; i < 5; i++) {
        const sp_kernel *k = sp_kernel_find(names[i]);
        cr_assert(k && k->prepare, "%s", names[i]);
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {100}};
        void *state = &err;
        cr_assert_eq(k->prepare(&pb, &p, &state, &err), -1, "%s", names[i]);
        cr_assert_null(state);
        cr_assert_not_null(strstr(err.msg, "blocksize"), "%s", err.msg);
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* DIA with more diagonals than one shared-memory chunk of offsets (256):
 * bands of 401 and 1201 diagonals, at block sizes below and above the
 * chunk (a block stages a chunk in several rounds when it has fewer
 * threads), and a matrix whose diagonals mostly leave it (wide). */
Test(gpu_spmv, dia_many_diagonals, .timeout = 120)
{
    static const char *specs[] = {"banded?n=3001&bw=200", "banded?n=1000&bw=600",
                                  "uniform?rows=300&cols=5000&per_row=40&seed=3"};
    static const long sizes[] = {32, 96, 256, 1000};
    const sp_kernel *k = sp_kernel_find("spmv_dia_cuda");
    cr_assert(k && k->prepare);
    for (int s = 0; s < 3; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s: %s", specs[s], err.msg);
        spmv_axis_override o = {"blocksize", sizes, 4};
        cr_assert_eq(spmv_check_kernel_with(k, &o, 1, &A, specs[s]), 0, "%s refused", specs[s]);
        sp_csr_free(&A);
    }
}

/* k at its default axes on pb through the harness as the runner drives it
 * (tu_run): prepare, upload and analyse, a warm-up, one sample of `batch`
 * launches back to back, the result into a NaN-poisoned y, release, then
 * the harness closed. Returns the error. */
static double batched_error(const sp_kernel *k, const sp_problem *pb, const double *ref,
                            double *y, size_t bytes, int batch)
{
    const sp_operation *op = sp_operation_find("spmv");
    sp_params p = {0};
    sp_need need = {0};
    sp_err err = {{0}};
    cr_assert(!k->need || k->need(pb, &p, &need, &err) == 0, "%s need: %s", k->name, err.msg);
    cr_assert(need.device_bytes <= SPMV_TEST_FREE_BYTES, "%s: needs %llu bytes", k->name,
              (unsigned long long)need.device_bytes);
    tu_run r;
    double s = -1;
    cr_assert_eq(tu_run_prepare(&r, k, pb, &p, &err), 0, "%s prepare: %s", k->name, err.msg);
    cr_assert_eq(sp_harness_launch(&r.h, r.state, &err), 0, "%s warm-up: %s", k->name,
                 err.msg);
    cr_assert_eq(sp_harness_sample(&r.h, r.state, batch, &s, &err), 0, "%s batch: %s",
                 k->name, err.msg);
    cr_assert(isfinite(s) && s > 0, "%s: %g s per launch", k->name, s);
    memset(y, 0xff, bytes);
    cr_assert_eq(tu_run_result(&r, y, &err), 0, "%s result: %s", k->name, err.msg);
    tu_run_end(&r);
    return op->error(pb, y, ref);
}

/* The harness times a batch of launches as one sample, so a launch must
 * leave its state ready for the next: the hybrid kernel's long-row
 * counters back at zero (a dense row of 5000 is three chunks), the merge
 * path's carries written again (the row spans tiles). Every GPU SpMV
 * kernel at its default axes, 7 launches in the sample. */
Test(gpu_spmv, batched_launches, .timeout = 120)
{
    const char *spec = "denserow?rows=4000&cols=5000&per_row=4&dense=5000";
    const sp_operation *op = sp_operation_find("spmv");
    sp_csr A;
    sp_problem pb;
    sp_err err;
    cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    size_t bytes = op->output_bytes(&pb);
    double *ref = malloc(bytes), *y = malloc(bytes);
    cr_assert(ref && y);
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu || strcmp(k->operation, "spmv"))
            continue;
        cr_assert(k->prepare && k->launch, "%s: no launch", k->name);
        double rel = batched_error(k, &pb, ref, y, bytes, 7);
        cr_assert_leq(rel, 1e-12, "%s on %s after a batch: relative error %g", k->name, spec,
                      rel);
        kernels++;
    }
    cr_assert_geq(kernels, 15, "the 15 GPU SpMV kernels at least");
    free(ref);
    free(y);
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* The problem on A (x from op->setup), its reference and an output
 * buffer, for the tests below that run every kernel on one matrix. */
typedef struct gpu_case {
    sp_csr A;
    sp_problem pb;
    double *ref, *y;
    size_t bytes;
} gpu_case;

static void gpu_case_open(gpu_case *c, const char *spec)
{
    const sp_operation *op = sp_operation_find("spmv");
    sp_err err;
    cr_assert_eq(sp_generate(spec, &c->A, &err), 0, "%s: %s", spec, err.msg);
    cr_assert_eq(op->setup(&c->pb, SP_MATRIX_WORKLOAD(&c->A), &err), 0, "%s", err.msg);
    c->bytes = op->output_bytes(&c->pb);
    c->ref = malloc(c->bytes);
    c->y = malloc(c->bytes);
    cr_assert(c->ref && c->y);
    cr_assert_eq(op->reference(&c->pb, c->ref, &err), 0, "%s", err.msg);
}

static void gpu_case_close(gpu_case *c)
{
    sp_operation_find("spmv")->teardown(&c->pb);
    sp_csr_free(&c->A);
    free(c->ref);
    free(c->y);
}

/* Whether k is a GPU SpMV kernel (asserting it is built: these tests run
 * only where a device is). */
static int gpu_spmv_kernel(const sp_kernel *k)
{
    if (!k->needs_gpu || strcmp(k->operation, "spmv"))
        return 0;
    cr_assert(k->prepare && k->upload && k->launch && k->result && k->release,
              "%s is not built into this binary", k->name);
    return 1;
}

/* The harness times every phase (kernels read no clock): prepare and
 * analyse as convert_s, the upload as h2d_s, the result as d2h_s, the
 * release as free_s. Every GPU SpMV kernel at its default axes, through
 * tu_run as the runner drives it; the result checked too. */
Test(gpu_spmv, harness_times_every_phase, .timeout = 120)
{
    gpu_case c;
    gpu_case_open(&c, "laplace2d?n=300");
    const sp_operation *op = sp_operation_find("spmv");
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!gpu_spmv_kernel(k))
            continue;
        sp_params p = {0};
        sp_err err = {{0}};
        tu_run r;
        double s = -1;
        cr_assert_eq(tu_run_prepare(&r, k, &c.pb, &p, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert(r.ph.convert_s > 0 && r.ph.h2d_s > 0, "%s: convert %g s, h2d %g s",
                  k->name, r.ph.convert_s, r.ph.h2d_s);
        cr_assert(r.ph.d2h_s == 0 && r.ph.free_s == 0, "%s: result or release timed early",
                  k->name);
        cr_assert_eq(tu_run_launch(&r, &s, &err), 0, "%s launch: %s", k->name, err.msg);
        memset(c.y, 0xff, c.bytes);
        cr_assert_eq(tu_run_result(&r, c.y, &err), 0, "%s result: %s", k->name, err.msg);
        cr_assert_gt(r.ph.d2h_s, 0, "%s: the result's copy not timed", k->name);
        tu_run_end(&r);
        cr_assert(isfinite(r.ph.free_s) && r.ph.free_s >= 0, "%s: free %g s", k->name,
                  r.ph.free_s);
        double rel = op->error(&c.pb, c.y, c.ref);
        cr_assert_leq(rel, 1e-12, "%s: relative error %g", k->name, rel);
        kernels++;
    }
    cr_assert_geq(kernels, 15, "the 15 GPU SpMV kernels at least");
    gpu_case_close(&c);
}

/* release frees from the states a run can stop in short of a launch:
 * after prepare alone (host only: nothing on the device yet), and after
 * prepare, upload and analyse without a launch or a result (tu_run_prepare,
 * then tu_run_end). Twice each; then a whole run in the same process
 * still gives the right y. */
Test(gpu_spmv, release_without_a_launch, .timeout = 120)
{
    gpu_case c;
    gpu_case_open(&c, "denserow?rows=4000&cols=5000&per_row=4&dense=5000");
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!gpu_spmv_kernel(k))
            continue;
        sp_params p = {0};
        sp_err err = {{0}};
        for (int round = 0; round < 2; round++) {
            void *state = NULL;
            cr_assert_eq(k->prepare(&c.pb, &p, &state, &err), 0, "%s: %s", k->name, err.msg);
            cr_assert_not_null(state, "%s: prepare made no state", k->name);
            k->release(state);
            tu_run r;
            cr_assert_eq(tu_run_prepare(&r, k, &c.pb, &p, &err), 0, "%s: %s", k->name,
                         err.msg);
            tu_run_end(&r);
            cr_assert(r.ph.h2d_s > 0 && r.ph.free_s >= 0, "%s: h2d %g s, free %g s", k->name,
                      r.ph.h2d_s, r.ph.free_s);
        }
        double rel = batched_error(k, &c.pb, c.ref, c.y, c.bytes, 1);
        cr_assert_leq(rel, 1e-12, "%s after the releases: relative error %g", k->name, rel);
    }
    gpu_case_close(&c);
}

/* An upload that fails halfway: a matrix that claims nnz = -1 asks for
 * 2^64 - 4 bytes of column indices after x, y and rowptr are on the
 * device (the shared upload makes the arrays in the order prepare
 * recorded them). The harness reports the upload, release frees what was
 * made, the CUDA context stays sound (the failed allocation is not left as
 * its last error) and the kernel then runs correctly in this process.
 * Every GPU kernel of the CSR format (the upload and release are the same
 * code for all). Not in quick mode: under compute-sanitizer (the quick
 * passes of tests/gpu/run.sh) a failing CUDA call is itself an error. */
Test(gpu_spmv, release_after_a_failed_upload, .timeout = 120)
{
    if (getenv("SPSWEEP_GPU_TEST_QUICK"))
        return;
    gpu_case c;
    gpu_case_open(&c, "laplace2d?n=100");
    sp_csr bad = c.A;
    bad.nnz = -1;
    sp_problem pb = c.pb;
    pb.A = &bad;
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!gpu_spmv_kernel(k) || strcmp(k->format, "csr"))
            continue;
        sp_params p = {0};
        sp_err err = {{0}};
        tu_run r;
        cr_assert_eq(tu_run_prepare(&r, k, &pb, &p, &err), -1, "%s: upload passed", k->name);
        cr_assert_not_null(strstr(err.msg, "upload"), "%s: %s", k->name, err.msg);
        cr_assert_not_null(r.state, "%s: prepare passed, its state is kept", k->name);
        tu_run_end(&r);
        char reason[256];
        cr_assert_eq(sp_gpu_healthy_here(reason, sizeof reason), 0, "%s: %s", k->name, reason);
        double rel = batched_error(k, &c.pb, c.ref, c.y, c.bytes, 1);
        cr_assert_leq(rel, 1e-12, "%s after a failed upload: relative error %g", k->name, rel);
        kernels++;
    }
    cr_assert_geq(kernels, 5, "the CSR kernels: scalar, vector, sub-warp, merge, hybrid");
    gpu_case_close(&c);
}
