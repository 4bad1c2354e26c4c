/*
 * test_energy.c — GPU energy windows aligned to the counter's steps
 * (runner/exec/energy_window.h), on a simulated GPU: samples of known length
 * and power, and a counter that moves only every `period` seconds, as
 * NVML's does on the H100. A window timed by the clock alone would catch
 * a varying number of steps; the aligned one gives the energy per launch
 * to within a sample on each side, whatever the phase of the counter.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../runner/exec/energy_window.h"

typedef struct sim {
    double t;           /* simulated seconds */
    double sample_s;    /* one sample's duration */
    int per_sample;     /* launches in a sample */
    double watts;       /* power while launching */
    double period;      /* the counter moves every period seconds */
    double phase;       /* ... at phase + k·period */
    int fail_after;     /* a sample fails after this many (0: never) */
    int samples, reads;
    int frozen;         /* the counter never moves */
} sim;

static int sim_sample(void *ctx, int64_t *launches, sp_err *err)
{
    sim *s = ctx;
    if (s->fail_after && s->samples >= s->fail_after)
        return sp_fail(err, "launch failed on purpose");
    s->t += s->sample_s;
    s->samples++;
    *launches += s->per_sample;
    return 0;
}

/* Energy up to the counter's last step before now, in mJ. */
static int sim_read(void *ctx, unsigned long long *mj)
{
    sim *s = ctx;
    s->reads++;
    double steps = s->frozen ? 0 : floor((s->t - s->phase) / s->period);
    double at = s->phase + steps * s->period;
    *mj = (unsigned long long)llround((at > 0 ? at : 0) * s->watts * 1000.0);
    return 0;
}

static double sim_now(void *ctx)
{
    return ((sim *)ctx)->t;
}

Test(energy, aligned_windows_read_the_energy_per_launch_at_any_phase)
{
    /* 2 ms samples of 40 launches at 480 W: 24 mJ a launch; the counter
     * steps every 62 ms; windows of 0.25 s, at 20 phases of the counter */
    const double truth = 480.0 * 2e-3 / 40;
    for (int k = 0; k < 20; k++) {
        sim s = {.t = 10.0, .sample_s = 2e-3, .per_sample = 40, .watts = 480,
                 .period = 0.062, .phase = k * 0.0031};
        sp_energy_probe p = {sim_sample, sim_read, sim_now, &s};
        double j, span;
        int64_t n;
        sp_err err;
        cr_assert_eq(sp_energy_window(&p, 0.25, &j, &n, &span, &err), 0, "%s", err.msg);
        cr_assert_gt(n, 0);
        cr_assert(span >= 0.25 && span < 0.25 + 0.062 + 2 * 2e-3, "span %g s", span);
        /* the energy between two steps over the launches between their
         * detections: off by at most one sample on each side */
        double per = j / (double)n, tol = 2 * 2e-3 / 0.25;
        cr_assert(fabs(per / truth - 1) <= tol, "phase %d: %g J a launch, truth %g", k, per,
                  truth);
    }
}

Test(energy, a_counter_that_never_moves_gives_no_window)
{
    sim s = {.t = 1.0, .sample_s = 1e-3, .per_sample = 1, .watts = 300, .period = 0.05,
             .frozen = 1};
    sp_energy_probe p = {sim_sample, sim_read, sim_now, &s};
    double j = -1, span = -1;
    int64_t n = -1;
    sp_err err;
    cr_assert_eq(sp_energy_window(&p, 0.25, &j, &n, &span, &err), 0);
    cr_assert_eq(n, 0, "no step, no window");
    cr_assert(s.t - 1.0 <= SP_ENERGY_EDGE_WAIT_S + 2e-3, "gave up after %g s", s.t - 1.0);
}

Test(energy, a_failing_sample_fails_the_window)
{
    sim s = {.t = 1.0, .sample_s = 1e-3, .per_sample = 1, .watts = 300, .period = 0.05,
             .fail_after = 100};
    sp_energy_probe p = {sim_sample, sim_read, sim_now, &s};
    double j, span;
    int64_t n;
    sp_err err = {{0}};
    cr_assert_eq(sp_energy_window(&p, 0.25, &j, &n, &span, &err), -1);
    cr_assert(strstr(err.msg, "on purpose"), "%s", err.msg);
}
