/*
 * energy_window.c — a GPU energy window aligned to the steps of the energy
 * counter (see energy_window.h for why).
 */
#include "energy_window.h"

/* Run samples until the counter moves from *mj; then *mj is its new
 * value. Launches run go into *launches. 1 when it moved, 0 when it did
 * not within SP_ENERGY_EDGE_WAIT_S (or could not be read), -1 on a failed
 * sample. */
static int to_step(const sp_energy_probe *p, unsigned long long *mj, int64_t *launches,
                   sp_err *err)
{
    double t0 = p->now(p->ctx);
    unsigned long long v = *mj;
    while (p->now(p->ctx) - t0 < SP_ENERGY_EDGE_WAIT_S) {
        if (p->sample(p->ctx, launches, err))
            return -1;
        if (p->read(p->ctx, &v))
            return 0;
        if (v != *mj)
            return *mj = v, 1;
    }
    return 0;
}

int sp_energy_window(const sp_energy_probe *p, double seconds, double *joules,
                     int64_t *launches, double *span, sp_err *err)
{
    unsigned long long e0, e1;
    int64_t before = 0, n = 0;
    *joules = 0, *launches = 0, *span = 0;
    if (p->read(p->ctx, &e0))
        return 0;
    int rc = to_step(p, &e0, &before, err);       /* the start: a step */
    if (rc <= 0)
        return rc;
    double t0 = p->now(p->ctx);
    e1 = e0;
    while (p->now(p->ctx) - t0 < seconds) {      /* at least `seconds` of launches */
        if (p->sample(p->ctx, &n, err))
            return -1;
        if (p->read(p->ctx, &e1))
            return 0;
    }
    rc = to_step(p, &e1, &n, err);                /* the end: the next step */
    if (rc <= 0 || e1 < e0)                       /* went back: reset or wrapped */
        return rc < 0 ? -1 : 0;
    *span = p->now(p->ctx) - t0;
    *joules = (double)(e1 - e0) / 1000.0;
    *launches = n;
    return 0;
}
