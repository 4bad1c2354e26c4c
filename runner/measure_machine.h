/*
 * measure_machine.h — the machine around one run's samples, as the
 * measuring child sees it (runner/measure_machine.c over
 * runner/machine.h): a reading before the repetitions and one after,
 * judged into the run's flags and GPU energy, and for a GPU kernel the
 * throttle reasons after every sample, so a sample taken while the GPU was
 * held back is flagged.
 */
#ifndef SP_MEASURE_MACHINE_H
#define SP_MEASURE_MACHINE_H

#include "harness.h"
#include "isolate.h"
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
/* The GPU's energy per launch, in `windows` windows one after another:
 * in each, `batch` launches a sample, back to back with no reading
 * between them, for at least seconds, between two readings of NVML's
 * energy counter (the counter moves in steps of milliseconds to tens of
 * them, so a window is long; the samples themselves are too short and
 * have readings between them). Several windows give the energy an
 * interval (db/stats.c). Fills m->energy_*; nothing without a counter. */
int sp_run_machine_energy(sp_run_machine *m, sp_harness *h, void *state, int batch,
                          double seconds, int windows, sp_err *err);
/* Read the state after the repetitions and judge the run into w. */
void sp_run_machine_end(sp_run_machine *m, sp_wire_machine *w);

#endif
