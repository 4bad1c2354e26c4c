/*
 * energy_window.h — the GPU energy of a stretch of back-to-back launches,
 * read from a counter that moves in steps (runner/exec/energy_window.c).
 *
 * NVML's total-energy counter is not continuous: on the H100 it moves once
 * every few tens of milliseconds. A window timed by the wall clock catches
 * a varying number of those steps: three 0.25 s windows of the same kernel
 * read 145, 118 and 178 J on the H100 (3, 4 or 5 steps), so the energy per
 * launch carried a ±25 % error that no interval could shrink. A window
 * therefore starts and ends where the counter moves: launches run until it
 * steps (the start), go on for at least `seconds`, and until it steps again
 * (the end); the launches between the two steps are the window's, and so
 * is the energy. What remains is the part of one sample on each side
 * (a sample is a few milliseconds, the window hundreds).
 */
#ifndef SP_ENERGY_WINDOW_H
#define SP_ENERGY_WINDOW_H

#include <stdint.h>
#include "../../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a window needs from the world: run one sample of launches (it adds
 * how many to *launches), read the counter (0 ok; mJ), read a clock (s).
 * The tests give a simulated GPU and counter. */
typedef struct sp_energy_probe {
    int (*sample)(void *ctx, int64_t *launches, sp_err *err);
    int (*read)(void *ctx, unsigned long long *mj);
    double (*now)(void *ctx);
    void *ctx;
} sp_energy_probe;

/* The longest wait for the counter to move before a window gives up (no
 * window: *launches = 0, returns 0): a counter that stands still is not
 * a measurement. */
#define SP_ENERGY_EDGE_WAIT_S 2.0

/* One edge-aligned window of at least `seconds` between two steps of the
 * counter: *joules and *launches between them, *span the clock time
 * between the two steps' detections. 0 (with *launches = 0 when the
 * counter could not be read or did not move), or -1 when a sample failed. */
int sp_energy_window(const sp_energy_probe *p, double seconds, double *joules,
                     int64_t *launches, double *span, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
