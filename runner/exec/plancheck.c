/*
 * plancheck.c — what to say about a plan before anything runs, once, on
 * stderr and at the top of the dry run (`spsweep plan`):
 *   - file: sources that cannot be read, named by their config line as
 *     config errors are (the sweep still records each as a matrix it could
 *     not load, and runs the rest);
 *   - a plan large enough to be a mistake (an axis range written too wide
 *     multiplies into millions of runs), with its size and estimated time
 *     (runner/plan/cost.c), so a month of runs never starts without a word.
 * Only what this process would run counts (after --only and --shard).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"
#include "../plan/select.h"

/* A plan is large past either: 10^5 runs is more than anyone reads as a
 * table, half a day more than anyone starts by accident. */
#define LARGE_PLAN_RUNS 100000
#define LARGE_PLAN_S (12 * 3600.0)

/* Do a and b write to the same file (one terminal, or 2>&1)? */
static int same_file(FILE *a, FILE *b)
{
    struct stat sa, sb;
    return fstat(fileno(a), &sa) == 0 && fstat(fileno(b), &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* One warning on stderr, and as a comment line of the plan when there is
 * one that stderr does not reach already. */
static void __attribute__((format(printf, 2, 3))) warn(FILE *plan_out, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "spsweep: warning: %s\n", msg);
    if (plan_out && !same_file(plan_out, stderr))
        fprintf(plan_out, "# warning: %s\n", msg);
}

/* The file: sources of the selection that cannot be read. */
static void unreadable_files(const sp_config *cfg, const sp_worklist *wl, FILE *plan_out)
{
    for (int i = 0; i < wl->n; i++) {
        int m = wl->w[i].matrix;
        const sp_source *src = &cfg->matrices[m];
        if ((i > 0 && wl->w[i - 1].matrix == m) || src->kind != SP_SRC_FILE ||
            access(src->path, R_OK) == 0)
            continue;           /* the list is matrix-major: each matrix once */
        const char *why = strerror(errno);
        int line = sp_config_source_line(cfg, m);
        if (line)
            warn(plan_out, "%s:%d: %s: %s", cfg->path, line, src->text, why);
        else
            warn(plan_out, "%s: %s: %s", cfg->path, src->text, why);
    }
}

static void large_plan(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                       FILE *plan_out)
{
    if (wl->n <= LARGE_PLAN_RUNS && wl->total_cost <= LARGE_PLAN_S)
        return;
    char took[32];
    int nloads = 0;
    double load = 0;
    sp_shape *sh = malloc((size_t)(cfg->nmatrices + 1) * sizeof *sh);
    if (sh) {
        sp_estimate_config_shapes(cfg, sh);
        load = sp_estimate_loads(cfg, plan, wl, sh, &nloads);
        free(sh);
    }
    sp_duration_text(wl->total_cost + load, took, sizeof took);
    warn(plan_out, "large plan: %d runs (of %d matrices x %d combinations), estimated %s "
         "(runner/plan/cost.c, matrix loads included): check the axis ranges, or run a part "
         "with --only or --shard", wl->n, cfg->nmatrices, plan->ncombos, took);
}

void sp_plan_warn(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                  FILE *plan_out)
{
    unreadable_files(cfg, wl, plan_out);
    large_plan(cfg, plan, wl, plan_out);
}
