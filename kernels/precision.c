/*
 * precision.c — the `precision` axis as kernels and the harness read it:
 * the value checked, and the tolerance of a run at its precision (the
 * operation states the bound, kernel.h: sp_operation.tolerance).
 */
#include <stdlib.h>

#include "kernel.h"

int sp_precision_param(const sp_params *p, const char *who, sp_precision *prec, sp_err *err)
{
    long v = sp_param(p, SP_AXIS_PRECISION, SP_DOUBLE);
    if (v != SP_DOUBLE && v != SP_SINGLE)
        return sp_fail(err, "%s: precision = %ld, not double (%d) or single (%d)", who, v,
                       SP_DOUBLE, SP_SINGLE);
    *prec = (sp_precision)v;
    return 0;
}

double sp_run_tolerance(const sp_operation *op, const sp_problem *pb, const void *ref,
                        const sp_params *p, double configured)
{
    long v = sp_param(p, SP_AXIS_PRECISION, SP_DOUBLE);
    if (!op || !op->tolerance || (v != SP_DOUBLE && v != SP_SINGLE))
        return configured;      /* a precision prepare refused never reaches a check */
    return op->tolerance(pb, ref, (sp_precision)v, configured);
}

const char *sp_precision_name(sp_precision p)
{
    return p == SP_SINGLE ? "single" : p == SP_DOUBLE ? "double" : "unknown";
}

float *sp_float_copy(const double *d, size_t n)
{
    float *f = malloc((n ? n : 1) * sizeof *f);
    if (!f)
        return NULL;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; i++)
        f[i] = (float)d[i];
    return f;
}
