/*
 * test_gpu_harness.c — the harness's GPU clock against a kernel of known
 * length: one thread spinning on the GPU's global timer (sp_gpu_spin). One
 * launch a sample and batched, the per-launch time must be the spin's
 * length, never less, and more only by the launch gaps; the phases of a
 * GPU kernel are timed around its own steps.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runner/exec/harness.h"

typedef struct spin_state {
    double seconds;
    int launches;
} spin_state;

static int spin_launch(void *state, const sp_exec *ex, sp_err *err)
{
    spin_state *s = state;
    cr_assert_not_null(ex->stream, "a GPU kernel gets the harness's stream");
    s->launches++;
    return sp_gpu_spin(ex->stream, s->seconds, err);
}

static const sp_kernel gpu_spin = {.name = "test_gpu_spin", .operation = "spmv",
                                   .backend = "test", .needs_gpu = 1,
                                   .launch = spin_launch};

/* The median of n per-launch times of `batch` launches of a spin. */
static double median_sample(sp_harness *h, spin_state *s, int batch, int n)
{
    double t[16];
    sp_err err;
    for (int i = 0; i < n; i++)
        cr_assert_eq(sp_harness_sample(h, s, batch, &t[i], &err), 0, "%s", err.msg);
    for (int i = 1; i < n; i++)         /* insertion sort: n is small */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    return t[n / 2];
}

/* Under compute-sanitizer (run.sh sets SPSWEEP_GPU_TEST_QUICK) every
 * launch is instrumented and slowed: the lower bounds still hold, the upper
 * ones do not. */
static int timed_exactly(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") == NULL;
}

Test(gpu_harness, a_spin_of_known_length_is_measured_as_that, .timeout = 60)
{
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &gpu_spin, 0, 1, &err), 0, "%s", err.msg);
    spin_state s = {.seconds = 1e-3};
    cr_assert_eq(sp_harness_launch(&h, &s, &err), 0, "%s", err.msg);      /* warm-up */
    /* one launch a sample: 1 ms, plus at most the events' and a launch's
     * few microseconds */
    double one = median_sample(&h, &s, 1, 9);
    cr_assert(one >= 0.999e-3 && (one <= 1.03e-3 || !timed_exactly()),
              "1 ms spin measured %g s", one);
    /* batched short spins: each 20 us, queued back to back; a batch's gaps
     * between kernels are a few us at most */
    s.seconds = 20e-6;
    double per = median_sample(&h, &s, 50, 9);
    cr_assert(per >= 19.9e-6 && (per <= 25e-6 || !timed_exactly()),
              "20 us spins batched by 50 measured %g s", per);
    /* the calibrated batch of a 20 us spin fills 0.5 ms */
    int batch = 0;
    cr_assert_eq(sp_harness_batch(&h, &s, 0.5e-3, &batch, &err), 0, "%s", err.msg);
    cr_assert(batch >= 1 && batch <= 26 && (batch >= 20 || !timed_exactly()),
              "batch %d for 20 us at 0.5 ms", batch);
    sp_harness_close(&h);
}

/* A GPU kernel without an upload is refused before its prepare runs: its
 * host-only prepare could not have put anything on the device. */
static int prepared;
static int spin_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    (void)pb, (void)p, (void)err;
    static spin_state s;
    prepared++;
    *state = &s;
    return 0;
}

Test(gpu_harness, a_gpu_kernel_needs_an_upload)
{
    sp_kernel k = gpu_spin;
    sp_harness h;
    sp_err err = {{0}};
    sp_phases ph = {0, 0, 0, 0};
    void *state = NULL;
    k.prepare = spin_prepare;
    cr_assert_eq(sp_harness_open(&h, &k, 0, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_harness_prepare(&h, NULL, NULL, &state, &ph, &err), -1);
    cr_assert(strstr(err.msg, "not built") && strstr(err.msg, "no upload"), "%s", err.msg);
    cr_assert_eq(prepared, 0, "refused before prepare");
    sp_harness_close(&h);
}
