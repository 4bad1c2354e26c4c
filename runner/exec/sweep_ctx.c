/*
 * sweep_ctx.c — the executor's shared context (sweep_ctx.h): the signal
 * counter and the log, which both the loop over matrices (sweep.c) and one
 * combination (sweep_combo.c) use. Here rather than in sweep.c, so that
 * sweep.c calls sweep_combo.c and sweep_combo.c calls neither back: the
 * executor reads top-down, one way.
 */
#include <stdarg.h>
#include <stdio.h>

#include "sweep_ctx.h"

volatile sig_atomic_t sp_sweep_interrupted;

void sp_sweep_say(const run_ctx *rc, const char *fmt, ...)
{
    if (!rc->o || !rc->o->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(rc->o->log, fmt, ap);
    va_end(ap);
    fflush(rc->o->log);
}
