/*
 * measure_steps.h — a run's timed steps (`steps = 1`, runner/exec/measure_steps.c):
 * each sample's steps (sp_steps, from the harness) kept per step name, and
 * their medians as the JSON object run_rounds.steps stores
 * ({"histogram":1.2e-05,"vertical_scan":...}, in the order first marked).
 */
#ifndef SP_MEASURE_STEPS_H
#define SP_MEASURE_STEPS_H

#include "harness.h"

typedef struct sp_step_series {
    int n;                          /* step names seen */
    int count, cap;                 /* samples pushed, room for */
    const char *name[SP_MAX_STEPS];
    double *v[SP_MAX_STEPS];        /* v[step][sample]; 0 where a sample lacked it */
} sp_step_series;

/* Append one sample's steps; a name not seen before gets a series of its
 * own, 0 for the samples before. -1 when out of memory or past
 * SP_MAX_STEPS names. */
int sp_step_series_push(sp_step_series *s, const sp_steps *st, sp_err *err);
/* The median of each step over the samples, as a JSON object into json:
 * 0, or -1 when there is no step or it does not fit in len bytes. */
int sp_step_series_json(const sp_step_series *s, char *json, size_t len);
void sp_step_series_free(sp_step_series *s);

#endif
