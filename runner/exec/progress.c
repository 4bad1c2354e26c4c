/*
 * progress.c — where a sweep stands. On a terminal, one line rewritten in
 * place before each combination: "[k/n] matrix kernel axes  ETA 3m05s";
 * the result lines scroll above it. Elsewhere (a pipe, a log file) only the
 * result lines. The ETA spreads the time spent so far over the estimated
 * cost done so far (nnz x runs, runner/plan/cost.c) and applies that rate to the
 * cost left: it adapts to the machine, and to matrices of different sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../kernels/kernel.h"
#include "progress.h"

/* "45s", "3m05s", "2h07m". */
void sp_duration_text(double s, char *buf, size_t len)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t < 60)
        snprintf(buf, len, "%lds", t);
    else if (t < 3600)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
}

void sp_progress_start(sp_progress *p, FILE *out, int live, int n, double cost)
{
    *p = (sp_progress){.out = out, .live = live && out, .n = n, .cost_total = cost,
                       .t0 = sp_seconds()};
}

/* The ETA text, "?" before anything finished. */
static void eta(const sp_progress *p, char *buf, size_t len)
{
    if (p->cost_done <= 0) {
        snprintf(buf, len, "?");
        return;
    }
    double rate = (sp_seconds() - p->t0) / p->cost_done;
    sp_duration_text(rate * (p->cost_total - p->cost_done), buf, len);
}

/* Before combination k (1-based): the live line. */
void sp_progress_show(sp_progress *p, int k, const char *matrix, const char *kernel,
                      const char *axes)
{
    if (!p->live)
        return;
    char left[32];
    eta(p, left, sizeof left);
    fprintf(p->out, "\r\033[K[%d/%d] %.40s %s %s  ETA %s", k, p->n, matrix, kernel, axes,
            left);
    fflush(p->out);
}

/* A combination of estimated cost finished; clear the live line so the
 * result line can take its place. */
void sp_progress_done(sp_progress *p, double cost)
{
    p->cost_done += cost;
    sp_progress_clear(p);
}

void sp_progress_clear(sp_progress *p)
{
    if (!p->live)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
}

/* SPSWEEP_PROFILE set (to anything but 0): one line on stderr per mark,
 * "profile PID WHAT SECONDS" on the monotonic clock, so the marks of a
 * worker and of the sweep process that feeds it line up
 * (bench/profile_marks.py adds up the time between consecutive marks). */
void sp_profile_mark(const char *what)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("SPSWEEP_PROFILE");
        on = v && *v && strcmp(v, "0") != 0;
    }
    if (on)
        fprintf(stderr, "profile %ld %s %.6f\n", (long)getpid(), what, sp_seconds());
}
