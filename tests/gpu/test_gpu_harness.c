/*
 * test_gpu_harness.c — the harness's GPU clock against a kernel of known
 * length: one thread spinning on the GPU's global timer (sp_gpu_spin). One
 * launch a sample and batched, the per-launch time must be the spin's
 * length, never less, and more only by the launch gaps; the phases of a
 * GPU kernel are timed around its own steps. These tests need the GPU
 * alone: run them with --jobs 1 and no other GPU process (tests/gpu/run.sh
 * runs them in a pass of their own).
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

/* ---- the blocking kernel (`blocking = on`) ---------------------------------- */

/* A launch that spends host time before its GPU work and hands it to the
 * GPU at once, as a library call does that runs tens of microseconds of
 * host logic around a small kernel and polls its stream. */
typedef struct host_bound {
    double host_s, gpu_s;
    int sync;           /* then wait for the device, as a synchronising call does */
} host_bound;

static int host_bound_launch(void *state, const sp_exec *ex, sp_err *err)
{
    host_bound *s = state;
    double t0 = sp_seconds();
    while (sp_seconds() - t0 < s->host_s)
        ;
    if (sp_gpu_spin(ex->stream, s->gpu_s, err) || sp_gpu_stream_submit(ex->stream, err))
        return -1;
    return s->sync ? sp_gpu_clock_device_sync(NULL, err) : 0;
}

static const sp_kernel gpu_host_bound = {.name = "test_gpu_host_bound", .operation = "spmv",
                                         .backend = "test", .needs_gpu = 1,
                                         .launch = host_bound_launch};

/* The median of 9 samples of `batch` launches each. */
static double median_of(sp_harness *h, void *state, int batch)
{
    double t[9];
    sp_err err;
    for (int i = 0; i < 9; i++)
        cr_assert_eq(sp_harness_sample(h, state, batch, &t[i], &err), 0, "%s", err.msg);
    for (int i = 1; i < 9; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    return t[4];
}

/* Unblocked, a batch of host-bound launches is timed at the host's issue
 * rate (40 us a launch); behind the blocking kernel every launch is queued
 * before the first runs, and the sample is the GPU's 3 us spins. */
Test(gpu_harness, blocking_times_the_gpu_work_not_the_hosts_issue_rate, .timeout = 60)
{
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &gpu_host_bound, 0, 1, &err), 0, "%s", err.msg);
    host_bound s = {.host_s = 40e-6, .gpu_s = 3e-6};
    cr_assert_eq(sp_harness_launch(&h, &s, &err), 0, "%s", err.msg);
    double open = median_of(&h, &s, 40);
    cr_assert_geq(open, 38e-6, "unblocked: the host's 40 us a launch, measured %g s (another "
                  "process on the GPU delays the start event: run this suite alone, --jobs 1, "
                  "as tests/gpu/run.sh does)", open);
    h.blocking = SP_BLOCKING_ON;
    double blocked = median_of(&h, &s, 40);
    cr_assert_eq(h.blocking, SP_BLOCKING_ON, "nothing waited for the device");
    cr_assert(blocked >= 2.9e-6 && (blocked <= 10e-6 || !timed_exactly()),
              "blocked: 3 us spins back to back, measured %g s (unblocked %g s)", blocked, open);
    /* a long kernel is what it is either way: 1 ms within 3 % */
    host_bound one = {.host_s = 0, .gpu_s = 1e-3};
    double ms = median_of(&h, &one, 1);
    cr_assert(ms >= 0.999e-3 && (ms <= 1.03e-3 || !timed_exactly()), "1 ms spin: %g s", ms);
    sp_harness_close(&h);
}

/* A launch that waits for the device would wait for the blocking kernel
 * forever: the blocking kernel gives up after SP_BLOCKING_TIMEOUT_S, the
 * harness takes that sample again without it and keeps going without it,
 * and says so (TIMEOUT); no sample holds the wait, and the process does
 * not wait for that kernel again. */
Test(gpu_harness, a_launch_that_waits_for_the_device_times_the_block_out, .timeout = 60)
{
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &gpu_host_bound, 0, 1, &err), 0, "%s", err.msg);
    host_bound s = {.host_s = 0, .gpu_s = 5e-6, .sync = 1};
    h.blocking = SP_BLOCKING_ON;
    double t0 = sp_seconds(), first = 0;
    cr_assert_eq(sp_harness_sample(&h, &s, 3, &first, &err), 0, "%s", err.msg);
    double took = sp_seconds() - t0;
    cr_assert_eq(h.blocking, SP_BLOCKING_TIMEOUT);
    cr_assert_geq(took, SP_BLOCKING_TIMEOUT_S, "the first sample waited for the timeout");
    cr_assert_lt(took, SP_BLOCKING_TIMEOUT_S + 5, "and no longer: %g s", took);
    cr_assert(first >= 5e-6 && first < 5e-3, "the sample was taken again: %g s", first);
    t0 = sp_seconds();
    double next = median_of(&h, &s, 3);
    cr_assert_lt(sp_seconds() - t0, SP_BLOCKING_TIMEOUT_S, "later samples do not block");
    cr_assert(next >= 5e-6 && next < 5e-3, "%g s", next);
    sp_harness_close(&h);
    /* the next run of that kernel in this process goes without at once */
    cr_assert_eq(sp_harness_open(&h, &gpu_host_bound, 0, 1, &err), 0, "%s", err.msg);
    h.blocking = SP_BLOCKING_ON;
    t0 = sp_seconds();
    cr_assert_eq(sp_harness_sample(&h, &s, 3, &first, &err), 0, "%s", err.msg);
    cr_assert_lt(sp_seconds() - t0, SP_BLOCKING_TIMEOUT_S, "no second wait");
    cr_assert_eq(h.blocking, SP_BLOCKING_TIMEOUT, "and the run says why");
    sp_harness_close(&h);
    /* an error between the block and the stop lets the stream go at once
     * (another kernel: this one is known to wait) */
    static const sp_kernel other = {.name = "test_gpu_host_bound_2", .operation = "spmv",
                                    .backend = "test", .needs_gpu = 1,
                                    .launch = host_bound_launch};
    cr_assert_eq(sp_harness_open(&h, &other, 0, 1, &err), 0, "%s", err.msg);
    h.blocking = SP_BLOCKING_ON;
    host_bound bad = {.host_s = 0, .gpu_s = 20};     /* sp_gpu_spin refuses > 10 s */
    t0 = sp_seconds();
    cr_assert_eq(sp_harness_sample(&h, &bad, 2, &first, &err), -1);
    cr_assert(strstr(err.msg, "launch 1 of 2"), "%s", err.msg);
    cr_assert_eq(sp_harness_launch(&h, &s, &err), 0, "%s", err.msg);
    cr_assert_lt(sp_seconds() - t0, SP_BLOCKING_TIMEOUT_S, "the stream was let go at once");
    sp_harness_close(&h);
}
