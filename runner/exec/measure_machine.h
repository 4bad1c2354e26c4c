/*
 * measure_machine.h — the machine around one run's samples, as the
 * measuring child sees it (runner/exec/measure_machine.c over
 * runner/exec/machine.h): a reading before the repetitions and one after,
 * judged into the run's flags and GPU energy, and for a GPU kernel the
 * throttle reasons after every sample, so a sample taken while the GPU was
 * held back is flagged.
 */
#ifndef SP_MEASURE_MACHINE_H
#define SP_MEASURE_MACHINE_H

#include "harness.h"
#include "../isolate/isolate.h"
#include "machine.h"

typedef struct sp_run_machine {
    int gpu;                    /* a GPU kernel whose device NVML can name */
    char bus[32];               /* its PCI bus id */
    int threads;                /* the run's CPU threads */
    sp_machine_state before, after;
    int energy_windows;         /* measured so far */
    double energy_j[SP_ENERGY_WINDOWS_MAX];
    int64_t energy_launches[SP_ENERGY_WINDOWS_MAX];
} sp_run_machine;

/* Read the state before the repetitions (the harness's device for a GPU
 * kernel). */
void sp_run_machine_begin(sp_run_machine *m, const sp_harness *h, int threads);
/* SP_MACHINE_THROTTLED when the GPU reports a throttle reason now; 0 for
 * CPU kernels and when it cannot tell. */
int32_t sp_run_machine_sample(sp_run_machine *m);
/* The GPU's energy per launch, in `windows` windows one after another,
 * each at least `seconds` long between two steps of NVML's energy counter
 * (runner/exec/energy_window.h: the counter moves every few tens of ms, and a
 * window timed by the clock alone catches a varying number of steps).
 * Launches run back to back in samples of at least SP_ENERGY_SAMPLE_S
 * (batched from the run's per-launch time launch_s), the counter read
 * between samples. Several windows give the energy an interval
 * (db/stats.c). Fills m->energy_*; nothing without a counter, and nothing
 * for a cold run or a kernel with a reset (their untimed flushes and
 * resets would count as the launches' energy). */
#define SP_ENERGY_SAMPLE_S 2e-3
int sp_run_machine_energy(sp_run_machine *m, sp_harness *h, void *state, int batch,
                          double launch_s, double seconds, int windows, sp_err *err);
/* Read the state after the repetitions and judge the run into w. */
void sp_run_machine_end(sp_run_machine *m, sp_wire_machine *w);

#endif
