/*
 * measure_steps.c — a run's timed steps (measure_steps.h): the per-sample
 * step times of a `steps = 1` sweep, per name, and their medians for the
 * database. The median, as for the samples themselves: a step's typical
 * time, robust to the odd slow launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure_steps.h"
#include "../../db/stats.h"

/* Room for cap samples in every series. */
static int grow(sp_step_series *s, int cap, sp_err *err)
{
    for (int k = 0; k < s->n; k++) {
        double *v = realloc(s->v[k], (size_t)cap * sizeof *v);
        if (!v)
            return sp_fail(err, "out of memory for %d step times", cap);
        s->v[k] = v;
    }
    s->cap = cap;
    return 0;
}

/* The series of step `name`, made (zeros for the samples before) when new. */
static int slot_of(sp_step_series *s, const char *name, sp_err *err)
{
    for (int k = 0; k < s->n; k++)
        if (!strcmp(s->name[k], name))
            return k;
    if (s->n == SP_MAX_STEPS)
        return sp_fail(err, "more than %d step names in one run", SP_MAX_STEPS);
    double *v = calloc((size_t)(s->cap ? s->cap : 1), sizeof *v);
    if (!v)
        return sp_fail(err, "out of memory for the step '%s'", name);
    s->name[s->n] = name, s->v[s->n] = v;
    return s->n++;
}

int sp_step_series_push(sp_step_series *s, const sp_steps *st, sp_err *err)
{
    if (s->count == s->cap && grow(s, s->cap ? 2 * s->cap : 64, err))
        return -1;
    for (int k = 0; k < s->n; k++)
        s->v[k][s->count] = 0;
    for (int i = 0; i < st->n; i++) {
        int k = slot_of(s, st->name[i], err);
        if (k < 0)
            return -1;
        if (!s->cap || s->count >= s->cap) /* a new series made before the first grow */
            return sp_fail(err, "step series out of step");
        s->v[k][s->count] = st->seconds[i];
    }
    s->count++;
    return 0;
}

int sp_step_series_json(const sp_step_series *s, char *json, size_t len)
{
    if (s->n == 0 || s->count == 0 || len < 3)
        return -1;
    double *scratch = malloc((size_t)s->count * sizeof *scratch);
    if (!scratch)
        return -1;
    size_t at = 0;
    json[at++] = '{';
    for (int k = 0; k < s->n; k++) {
        int w = snprintf(json + at, len - at, "%s\"%s\":%.9g", k ? "," : "", s->name[k],
                         sp_median(s->v[k], s->count, scratch));
        if (w < 0 || (size_t)w >= len - at) {
            free(scratch);
            return -1;
        }
        at += (size_t)w;
    }
    free(scratch);
    if (at + 2 > len)
        return -1;
    json[at++] = '}';
    json[at] = 0;
    return 0;
}

void sp_step_series_free(sp_step_series *s)
{
    for (int k = 0; k < s->n; k++)
        free(s->v[k]);
    memset(s, 0, sizeof *s);
}
