/*
 * measure_machine.c — the machine around one run's samples (see
 * measure_machine.h). Both readings come from the process that ran the
 * kernel, as machine.h's judgement of others' CPU time wants. The GPU is
 * named to NVML by its PCI bus id, since NVML ignores CUDA_VISIBLE_DEVICES.
 * The per-sample reading happens between samples, outside the clock.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "energy_window.h"
#include "measure_machine.h"

void sp_run_machine_begin(sp_run_machine *m, const sp_harness *h, int threads)
{
    memset(m, 0, sizeof *m);
    m->threads = threads > 0 ? threads : 1;
    m->gpu = h->gpu && sp_gpu_clock_bus_id(h->clock, m->bus, (int)sizeof m->bus) == 0;
    sp_machine_read_bus(&m->before, m->gpu ? m->bus : NULL, NULL, 0);
}

int32_t sp_run_machine_sample(sp_run_machine *m)
{
    unsigned long long reasons;
    if (!m->gpu || sp_machine_gpu_reasons(m->bus, &reasons))
        return 0;
    return (reasons & ~SP_NVML_REASONS_BENIGN) ? (int32_t)SP_MACHINE_THROTTLED : 0;
}

/* The harness and the run as an energy probe (energy_window.h). */
typedef struct energy_ctx {
    sp_run_machine *m;
    sp_harness *h;
    void *state;
    int batch;
} energy_ctx;

static int probe_sample(void *ctx, int64_t *launches, sp_err *err)
{
    energy_ctx *c = ctx;
    double s;
    if (sp_harness_sample(c->h, c->state, c->batch, &s, err))
        return -1;
    *launches += c->batch;
    return 0;
}

static int probe_read(void *ctx, unsigned long long *mj)
{
    return sp_machine_gpu_energy_mj(((energy_ctx *)ctx)->m->bus, mj);
}

static double probe_now(void *ctx)
{
    (void)ctx;
    return sp_seconds();
}

/* Launches a sample in the windows: the run's batch, grown so a sample
 * lasts SP_ENERGY_SAMPLE_S (the counter is read between samples, and the
 * GPU idles meanwhile). */
static int window_batch(int batch, double launch_s)
{
    if (!(launch_s > 0))
        return batch;
    double want = ceil(SP_ENERGY_SAMPLE_S / launch_s);
    return want > batch ? (want < SP_BATCH_MAX ? (int)want : SP_BATCH_MAX) : batch;
}

int sp_run_machine_energy(sp_run_machine *m, sp_harness *h, void *state, int batch,
                          double launch_s, double seconds, int windows, sp_err *err)
{
    /* A cold run flushes the L2 before every launch, a kernel with a reset
     * restores its input: both are GPU work the counter cannot tell from
     * the launches' (cold merge CSR read 825 mJ a launch against 470 warm
     * on an H200), so they get no energy. */
    if (!m->gpu || !(seconds > 0) || h->cold || h->k->reset)
        return 0;
    energy_ctx c = {m, h, state, window_batch(batch, launch_s)};
    sp_energy_probe p = {probe_sample, probe_read, probe_now, &c};
    windows = windows < 1 ? 1 : windows > SP_ENERGY_WINDOWS_MAX ? SP_ENERGY_WINDOWS_MAX : windows;
    for (int w = 0; w < windows; w++) {
        double j, span;
        int64_t n;
        if (sp_energy_window(&p, seconds, &j, &n, &span, err))
            return sp_fail_prefix(err, "energy window %d", w + 1);
        if (n > 0 && j > 0) {
            m->energy_j[m->energy_windows] = j;
            m->energy_launches[m->energy_windows++] = n;
        }
    }
    return 0;
}

void sp_run_machine_end(sp_run_machine *m, sp_wire_machine *w)
{
    memset(w, 0, sizeof *w);
    sp_machine_read_bus(&m->after, m->gpu ? m->bus : NULL, NULL, 0);
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    sp_machine_verdict v;
    sp_machine_judge(&m->before, &m->after, m->threads, nproc > 0 ? (int)nproc : 1, &v);
    w->flags = v.flags;
    w->energy_windows = m->energy_windows;
    memcpy(w->energy_j, m->energy_j, sizeof w->energy_j);
    memcpy(w->energy_launches, m->energy_launches, sizeof w->energy_launches);
    sp_machine_describe(&v, w->describe, sizeof w->describe);
    if (sp_machine_json(&m->before, w->before, sizeof w->before) >= (int)sizeof w->before)
        strcpy(w->before, "{}");
    if (sp_machine_json(&m->after, w->after, sizeof w->after) >= (int)sizeof w->after)
        strcpy(w->after, "{}");
}
