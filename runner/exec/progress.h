/* progress.h — the sweep's progress line and ETA (runner/exec/progress.c). */
#ifndef SP_PROGRESS_H
#define SP_PROGRESS_H

#include <stdio.h>
#include "../../kernels/kernel.h"

typedef struct sp_progress {
    FILE *out;
    int live;                   /* rewrite one line in place (a terminal) */
    int n;
    double cost_total, cost_done;
    double t0;
} sp_progress;

void sp_duration_text(double s, char *buf, size_t len);
void sp_progress_start(sp_progress *p, FILE *out, int live, int n, double cost);
void sp_progress_show(sp_progress *p, int k, const char *matrix, const char *kernel,
                      const char *axes);
void sp_progress_done(sp_progress *p, double cost);
void sp_progress_clear(sp_progress *p);
/* A timestamped mark on stderr when SPSWEEP_PROFILE is set (progress.c). */
void sp_profile_mark(const char *what);

#endif
