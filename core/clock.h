/*
 * clock.h — the one wall clock of the pipeline: monotonic seconds, for the
 * harness's CPU samples and its phases, the fetcher's timings and the
 * sweep's own (kernels do not time themselves: runner/exec/harness.c).
 */
#ifndef SP_CLOCK_H
#define SP_CLOCK_H

#include <time.h>

/* Monotonic wall clock in seconds: the harness's CPU clock and its
 * phases' clock (kernels do not time themselves). */
static inline double sp_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
