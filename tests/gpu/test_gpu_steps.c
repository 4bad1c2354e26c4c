/*
 * test_gpu_steps.c — the steps of a GPU launch as sub-phases (`steps = 1`)
 * and ScanTrans's `scan_threads` axis, on a GPU (without one the binary
 * prints one line and skips, tests/gpu/main.c):
 *   - a fake kernel spinning known lengths between its marks: each step
 *     measured as its spin, the steps adding up to the sample (the marks
 *     are CUDA events the harness records on its own stream);
 *   - transpose_cuda_scantrans with steps on: its four steps (histogram,
 *     vertical_scan, prefix_sum, write_back) in order, adding up to the
 *     sample, and the transposition still exact;
 *   - every scan_threads value (auto, the occupancy API's choice; chunks;
 *     counts from 1 up, not multiples of 32, more chunks than nonzeros)
 *     exact on the awkward matrices and on generated ones.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../runner/exec/harness.h"
#include "../spmv_cases.h"

/* Under compute-sanitizer (SPSWEEP_GPU_TEST_QUICK) launches are slowed:
 * the lower bounds hold, the upper ones do not. */
static int timed_exactly(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") == NULL;
}

typedef struct spin_steps {
    double first, second;
} spin_steps;

static int marked_spins(void *state, const sp_exec *ex, sp_err *err)
{
    spin_steps *s = state;
    sp_exec_mark(ex, "first");
    if (sp_gpu_spin(ex->stream, s->first, err))
        return -1;
    sp_exec_mark(ex, "second");
    return sp_gpu_spin(ex->stream, s->second, err);
}

static const sp_kernel spins = {.name = "test_gpu_steps", .operation = "transpose",
                                .backend = "test", .needs_gpu = 1, .launch = marked_spins};

Test(gpu_steps, spins_between_marks_are_measured_as_their_steps, .timeout = 60)
{
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &spins, 0, 1, &err), 0, "%s", err.msg);
    sp_harness_time_steps(&h);
    spin_steps s = {1e-3, 2e-3};
    cr_assert_eq(sp_harness_launch(&h, &s, &err), 0, "%s", err.msg);
    /* each step at least its spin in every sample, the two adding up to
     * the sample; and in every sample that was not held up (at most 10 %
     * over the 3 ms of spinning: GPU tests run side by side, and a sample
     * may wait for another context's time slice), each step at most 0.2 ms
     * over its spin: the time is put on the step it was spent in */
    int clean = 0;
    for (int rep = 0; rep < 7; rep++) {
        double t = 0;
        cr_assert_eq(sp_harness_sample(&h, &s, 1, &t, &err), 0, "%s", err.msg);
        cr_assert_eq(h.steps.n, 2);
        cr_assert_str_eq(h.steps.name[0], "first");
        cr_assert_str_eq(h.steps.name[1], "second");
        double a = h.steps.seconds[0], b = h.steps.seconds[1];
        cr_assert(a >= 0.999e-3, "1 ms step: %g s", a);
        cr_assert(b >= 1.999e-3, "2 ms step: %g s", b);
        cr_assert_float_eq(a + b, t, 1e-9, "the steps add up to the sample (%g + %g, %g)", a,
                           b, t);
        if (t > 3.3e-3 || !timed_exactly())
            continue;
        clean++;
        cr_assert(a <= 1.2e-3 && b <= 2.2e-3, "1 + 2 ms steps: %g + %g s", a, b);
    }
    if (!clean)
        cr_log_warn("gpu_steps: every sample was held up; the steps' upper bounds untested");
    sp_harness_close(&h);
}

/* ScanTrans's four steps on a matrix of its study's kind, at two unit
 * counts, and its result still the serial one. */
Test(gpu_steps, scantrans_marks_the_studys_four_steps, .timeout = 120)
{
    static const char *names[] = {"histogram", "vertical_scan", "prefix_sum", "write_back"};
    const sp_kernel *k = sp_kernel_find("transpose_cuda_scantrans");
    const sp_operation *op = sp_operation_find("transpose");
    cr_assert(k && k->prepare && op);
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("random?rows=50000&cols=40000&nnz=1000000&seed=3", &A, &err), 0,
                 "%s", err.msg);
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    void *ref = malloc(op->output_bytes(&pb)), *out = malloc(op->output_bytes(&pb));
    cr_assert(ref && out);
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    static const long units[] = {SP_SCAN_THREADS_CHUNKS, 1000};
    for (int u = 0; u < 2; u++) {
        sp_params p = {.n = 2, .name = {"blocksize", SP_AXIS_SCAN_THREADS},
                       .value = {256, units[u]}};
        sp_harness h;
        sp_phases ph = {0, 0, 0, 0};
        void *state = NULL;
        cr_assert_eq(sp_harness_open(&h, k, 0, 1, &err), 0, "%s", err.msg);
        sp_harness_time_steps(&h);
        cr_assert_eq(sp_harness_prepare(&h, &pb, &p, &state, &ph, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_harness_launch(&h, state, &err), 0, "%s", err.msg);
        double t = 0;
        cr_assert_eq(sp_harness_sample(&h, state, 1, &t, &err), 0, "%s", err.msg);
        cr_assert_eq(h.steps.n, 4);
        double sum = 0;
        for (int i = 0; i < 4; i++) {
            cr_assert_str_eq(h.steps.name[i], names[i]);
            cr_assert_geq(h.steps.seconds[i], 0);
            sum += h.steps.seconds[i];
        }
        cr_assert_float_eq(sum, t, 1e-9, "steps %g, sample %g", sum, t);
        cr_assert_gt(h.steps.seconds[3], 0, "the write back does the scatter");
        memset(out, 0xff, op->output_bytes(&pb));
        cr_assert_eq(sp_harness_result(&h, state, out, &ph, &err), 0, "%s", err.msg);
        cr_assert_eq(op->error(&pb, out, ref), 0.0, "scan_threads %ld", units[u]);
        sp_harness_release(&h, state, &ph);
        sp_harness_close(&h);
    }
    free(ref);
    free(out);
    if (op->teardown)
        op->teardown(&pb);
    sp_csr_free(&A);
}

/* Every scan_threads value, exact on A. auto, the study's choice, makes
 * about max(rows, cols) chunks of cols counts each: on a matrix where that
 * passes the kernel's 4 GiB of counts it is refused (the study's "low
 * mem"), so it is tried only where it fits with room for the occupancy
 * API's rounding. */
static void check_scan_threads(const sp_csr *A, const char *what)
{
    static const long bs[] = {64, 256}, values[] = {SP_SCAN_THREADS_AUTO,
                                                     SP_SCAN_THREADS_CHUNKS, 1, 7, 33, 1000};
    double most = A->rows > A->cols ? A->rows : A->cols;
    int fits = (most + 2048) * ((double)A->cols + 1) * 4 < 3.5e9;
    spmv_axis_override o[2] = {{"blocksize", bs, 2},
                               {SP_AXIS_SCAN_THREADS, values + !fits, 6 - !fits}};
    const sp_kernel *k = sp_kernel_find("transpose_cuda_scantrans");
    cr_assert(k && k->prepare, "transpose_cuda_scantrans is not built into this binary");
    cr_assert_eq(spmv_check_kernel_with(k, o, 2, A, what), 0, "%s: a value refused", what);
}

Test(gpu_steps, every_scan_threads_value_is_exact, .timeout = 600)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_scan_threads(&c.A, c.name);
        spmv_case_free(&c);
    }
    static const char *specs[] = {"random?rows=5000&cols=7000&nnz=100000&seed=4",
                                  "random?rows=20000&cols=300&nnz=50000&seed=5",
                                  "random?rows=1&cols=30000&nnz=29000&seed=6",
                                  "random?rows=3000&cols=1&nnz=2000&seed=7",
                                  "laplace2d?n=101"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[i], &A, &err), 0, "%s: %s", specs[i], err.msg);
        check_scan_threads(&A, specs[i]);
        sp_csr_free(&A);
    }
}
