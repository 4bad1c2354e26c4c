/*
 * limits.h — the largest values a config may give the harness and the
 * measuring child, checked when the config is read (runner/plan/config.c,
 * axis.c) and again where they are used (runner/exec/harness.c,
 * runner/exec/measure_machine.c). Here, at the bottom of runner/, so the
 * plan checks them without including the wings above it.
 */
#ifndef SP_LIMITS_H
#define SP_LIMITS_H

/* Most launches one sample may batch: a 1 µs kernel at a 0.5 ms sample
 * needs 500; the cap only bounds a kernel that does nothing. */
#define SP_BATCH_MAX 100000

/* Most GPU energy windows one round measures (`energy_windows`). */
#define SP_ENERGY_WINDOWS_MAX 16

#endif
