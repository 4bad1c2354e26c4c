/*
 * test_harness.c — the harness owns the clock (runner/exec/harness.h): a kernel
 * of known length (a spin) is measured as that length one launch a sample
 * and batched; a batch fills min_sample_time; a cold sample flushes and is
 * never batched; a kernel with a reset gets it before every sample and one
 * launch a sample; the GPU clock refuses politely without a GPU.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../runner/exec/harness.h"
#include "testutil.h"

typedef struct spin_state {
    double seconds;         /* each launch spins this long */
    int launches, resets;
    int launches_since_reset;
    int max_since_reset;    /* the most launches between two resets */
} spin_state;

static int spin_launch(void *state, const sp_exec *ex, sp_err *err)
{
    spin_state *s = state;
    (void)err;
    cr_assert_null(ex->stream, "a CPU kernel gets no stream");
    tu_spin(s->seconds);
    s->launches++;
    s->launches_since_reset++;
    if (s->launches_since_reset > s->max_since_reset)
        s->max_since_reset = s->launches_since_reset;
    return 0;
}

static int spin_reset(void *state, const sp_exec *ex, sp_err *err)
{
    spin_state *s = state;
    (void)ex, (void)err;
    s->resets++;
    s->launches_since_reset = 0;
    return 0;
}

static const sp_kernel spin = {.name = "test_spin", .operation = "spmv", .backend = "test",
                               .launch = spin_launch};

/* One sample of `batch` launches through the harness, checked against the
 * two bounds that hold however busy the machine is: never less than the
 * spins themselves, never more than the wall time around the whole call
 * (which also holds the harness's own work). Returns the per-launch time. */
static double bounded_sample(sp_harness *h, spin_state *s, int batch)
{
    sp_err err;
    double t, t0 = sp_seconds();
    cr_assert_eq(sp_harness_sample(h, s, batch, &t, &err), 0, "%s", err.msg);
    double outer = (sp_seconds() - t0) / batch;
    cr_assert(t >= s->seconds, "%d launches of a %g s spin measured %g s each", batch,
              s->seconds, t);
    cr_assert(t <= outer, "measured %g s a launch, more than the %g s the call took", t,
              outer);
    return t;
}

Test(harness, a_spin_of_known_length_is_measured_as_that, .timeout = 30)
{
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &spin, 0, 1, &err), 0, "%s", err.msg);
    spin_state s = {.seconds = 1e-3};
    for (int i = 0; i < 5; i++)
        bounded_sample(&h, &s, 1);
    cr_assert_eq(s.launches, 5);
    s.seconds = 1e-4;
    for (int i = 0; i < 5; i++)
        bounded_sample(&h, &s, 20);
    cr_assert_eq(s.launches, 5 + 5 * 20, "every launch of every batch ran");
    sp_harness_close(&h);
}

Test(harness, batch_fills_min_sample_time, .timeout = 30)
{
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &spin, 0, 1, &err), 0, "%s", err.msg);
    spin_state s = {.seconds = 50e-6};
    int batch = 0;
    cr_assert_eq(sp_harness_batch(&h, &s, 2e-3, &batch, &err), 0, "%s", err.msg);
    /* 2 ms / 50 us = 40 launches; the spin may run long, never short */
    cr_assert(batch >= 20 && batch <= 44, "batch %d for 50 us at 2 ms", batch);
    double per;
    cr_assert_eq(sp_harness_sample(&h, &s, batch, &per, &err), 0, "%s", err.msg);
    cr_assert(per * batch >= 1e-3, "a sample of %d x %g s", batch, per);
    /* a kernel longer than min_sample_time is not batched */
    s.seconds = 3e-3;
    cr_assert_eq(sp_harness_batch(&h, &s, 2e-3, &batch, &err), 0, "%s", err.msg);
    cr_assert_eq(batch, 1);
    cr_assert_eq(sp_harness_sample(&h, &s, 0, &per, &err), -1, "batch 0 is refused");
    cr_assert_eq(sp_harness_sample(&h, &s, SP_BATCH_MAX + 1, &per, &err), -1);
    sp_harness_close(&h);
}

Test(harness, a_kernel_with_a_reset_gets_it_before_every_sample, .timeout = 30)
{
    sp_kernel k = spin;
    k.reset = spin_reset;
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &k, 0, 1, &err), 0, "%s", err.msg);
    spin_state s = {.seconds = 10e-6};
    int batch = 0;
    cr_assert_eq(sp_harness_batch(&h, &s, 1e-3, &batch, &err), 0, "%s", err.msg);
    cr_assert_eq(batch, 1, "an in-place kernel is one launch a sample");
    cr_assert_eq(sp_harness_launch(&h, &s, &err), 0, "%s", err.msg);
    for (int i = 0; i < 5; i++)
        bounded_sample(&h, &s, 1);
    cr_assert_eq(s.resets, 6, "one reset per warm-up launch and per sample");
    cr_assert_eq(s.max_since_reset, 1);
    sp_harness_close(&h);
}

Test(harness, cold_samples_flush_and_are_never_batched, .timeout = 30)
{
    sp_harness h;
    sp_err err;
    cr_assert_eq(sp_harness_open(&h, &spin, 1, 2, &err), 0, "%s", err.msg);
    cr_assert_not_null(h.flush, "a cold CPU run has a flush buffer");
    cr_assert_geq(h.flush_words * sizeof *h.flush, (size_t)64 << 20);
    cr_assert_geq(h.flush_words * sizeof *h.flush, 2 * sp_llc_bytes());
    spin_state s = {.seconds = 10e-6};
    int batch = 0;
    cr_assert_eq(sp_harness_batch(&h, &s, 1e-3, &batch, &err), 0, "%s", err.msg);
    cr_assert_eq(batch, 1);
    uint64_t before = h.flush[h.flush_words / 2];
    double t;
    cr_assert_eq(sp_harness_sample(&h, &s, 1, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(h.flush[h.flush_words / 2], before + 1, "the flush touched the buffer");
    cr_assert(t >= 10e-6 && t < 5e-3, "the flush is outside the timed launch: %g s", t);
    sp_harness_close(&h);
}

/* A GPU kernel without a GPU: the harness says why instead of crashing. */
Test(harness, gpu_clock_without_a_gpu_says_why)
{
    sp_gpu_info g;
    char why[256];
    if (sp_gpu_probe(&g, why, sizeof why))
        cr_skip_test("a GPU is present");
    sp_kernel k = spin;
    k.needs_gpu = 1;
    sp_harness h;
    sp_err err = {{0}};
    cr_assert_eq(sp_harness_open(&h, &k, 0, 1, &err), -1);
    cr_assert_neq(err.msg[0], 0);
    sp_harness_close(&h);
}

/* The last-level cache is found (sysfs) and plausible. */
Test(harness, last_level_cache_size)
{
    size_t llc = sp_llc_bytes();
    cr_assert(llc == 0 || (llc >= ((size_t)256 << 10) && llc <= ((size_t)64 << 30)),
              "LLC %zu bytes", llc);
}

/* ---- phases: the harness times the kernel's own steps ------------------ */

/* A kernel whose steps take known times: prepare spins 3 ms, result 1 ms
 * (no phase for a CPU kernel), release 2 ms; it records the steps in order. */
static char steps[64];
static void step(const char *s)
{
    strncat(steps, s, sizeof steps - strlen(steps) - 1);
}
static int phased_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    (void)pb, (void)p, (void)err;
    step("P");
    tu_spin(3e-3);
    static spin_state s = {.seconds = 1e-5};
    *state = &s;
    return 0;
}
static int phased_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    (void)state, (void)out, (void)ex, (void)err;
    step("R");
    tu_spin(1e-3);
    return 0;
}
static void phased_release(void *state)
{
    (void)state;
    step("F");
    tu_spin(2e-3);
}
static int refusing_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    (void)pb, (void)p;
    step("P");
    *state = &steps;        /* a partial state: release must still see it */
    return sp_fail(err, "refused on purpose");
}
static void on_stage(void *ctx, const char *name)
{
    (void)ctx;
    step(name[0] == 'p' ? "p" : name[0] == 'r' && name[2] == 's' ? "r" : "f");
}

Test(harness, every_phase_is_timed_by_the_harness, .timeout = 30)
{
    sp_kernel k = spin;
    k.prepare = phased_prepare, k.result = phased_result, k.release = phased_release;
    sp_harness h;
    sp_err err;
    sp_phases ph = {0, 0, 0, 0};
    void *state = NULL;
    steps[0] = 0;
    cr_assert_eq(sp_harness_open(&h, &k, 0, 1, &err), 0, "%s", err.msg);
    h.on_stage = on_stage;
    double t0 = sp_seconds();
    cr_assert_eq(sp_harness_prepare(&h, NULL, NULL, &state, &ph, &err), 0, "%s", err.msg);
    double prep_wall = sp_seconds() - t0;
    cr_assert_not_null(state);
    cr_assert(ph.convert_s >= 3e-3 && ph.convert_s <= prep_wall, "convert %g s, wall %g s",
              ph.convert_s, prep_wall);
    cr_assert_eq(ph.h2d_s, 0, "a CPU kernel has no upload");
    cr_assert_eq(sp_harness_result(&h, state, NULL, &ph, &err), 0, "%s", err.msg);
    cr_assert_eq(ph.d2h_s, 0, "a CPU kernel's result is no transfer");
    t0 = sp_seconds();
    sp_harness_release(&h, state, &ph);
    double rel_wall = sp_seconds() - t0;
    cr_assert(ph.free_s >= 2e-3 && ph.free_s <= rel_wall, "free %g s, wall %g s", ph.free_s,
              rel_wall);
    cr_assert_str_eq(steps, "pPrRfF", "each step announced, then run: %s", steps);
    /* phases add up: a second prepare adds to convert_s */
    double before = ph.convert_s;
    cr_assert_eq(sp_harness_prepare(&h, NULL, NULL, &state, &ph, &err), 0, "%s", err.msg);
    cr_assert_geq(ph.convert_s, before + 3e-3);
    sp_harness_close(&h);
}

Test(harness, a_failed_prepare_leaves_its_state_for_release, .timeout = 30)
{
    sp_kernel k = spin;
    k.prepare = refusing_prepare, k.release = phased_release;
    sp_harness h;
    sp_err err = {{0}};
    sp_phases ph = {0, 0, 0, 0};
    void *state = NULL;
    steps[0] = 0;
    cr_assert_eq(sp_harness_open(&h, &k, 0, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_harness_prepare(&h, NULL, NULL, &state, &ph, &err), -1);
    cr_assert(strstr(err.msg, "prepare") && strstr(err.msg, "refused on purpose"), "%s",
              err.msg);
    cr_assert_eq(state, (void *)&steps, "the partial state is handed back");
    sp_harness_release(&h, state, &ph);
    cr_assert_str_eq(steps, "PF");
    /* a kernel without a prepare is not built */
    k.prepare = NULL;
    cr_assert_eq(sp_harness_prepare(&h, NULL, NULL, &state, &ph, &err), -1);
    cr_assert(strstr(err.msg, "not built"), "%s", err.msg);
    sp_harness_close(&h);
}
