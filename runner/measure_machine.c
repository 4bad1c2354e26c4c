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
    if (!m->gpu)
        return 0;
    sp_machine_state now;
    sp_machine_read_gpu_bus(&now, m->bus);
    if (!now.has_reasons)
        return 0;
    return (now.reasons & ~SP_NVML_REASONS_BENIGN) ? (int32_t)SP_MACHINE_THROTTLED : 0;
}

/* One window; a window the counter could not measure is not kept. */
static int energy_window(sp_run_machine *m, sp_harness *h, void *state, int batch,
                         double seconds, sp_err *err)
{
    sp_machine_state e0, e1;
    sp_machine_read_gpu_bus(&e0, m->bus);
    if (!e0.has_energy)
        return 0;
    int64_t launches = 0;
    double t0 = sp_seconds(), s;
    while (sp_seconds() - t0 < seconds) {
        if (sp_harness_sample(h, state, batch, &s, err))
            return sp_fail_prefix(err, "energy window %d", m->energy_windows + 1);
        launches += batch;
    }
    sp_machine_read_gpu_bus(&e1, m->bus);
    double j = sp_machine_energy_j(&e0, &e1);
    if (isfinite(j) && launches > 0) {
        m->energy_j[m->energy_windows] = j;
        m->energy_launches[m->energy_windows++] = launches;
    }
    return 0;
}

int sp_run_machine_energy(sp_run_machine *m, sp_harness *h, void *state, int batch,
                          double seconds, int windows, sp_err *err)
{
    if (!m->gpu || !(seconds > 0))
        return 0;
    windows = windows < 1 ? 1 : windows > SP_ENERGY_WINDOWS_MAX ? SP_ENERGY_WINDOWS_MAX : windows;
    for (int w = 0; w < windows; w++)
        if (energy_window(m, h, state, batch, seconds, err))
            return -1;
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
