/*
 * dryrun.c — `spsweep sweep --dry-run`: what this process would run (after
 * --only and --shard), one line per run with its estimated seconds, and the
 * totals. Nothing is loaded, run or written.
 */
#include <stdio.h>

#include "select.h"

int sp_sweep_print_plan(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                        FILE *out, sp_err *err)
{
    (void)err;
    char why[512];
    if (sp_select_unfit(cfg, plan, why, sizeof why))
        fprintf(out, "# %s\n", why);
    for (int i = 0; i < wl->n; i++) {
        const sp_work *w = &wl->w[i];
        char axes[256];
        sp_params_text(&plan->combos[w->combo].params, axes, sizeof axes);
        fprintf(out, "%s\t%s\t%s\t%.3g\n", cfg->matrices[w->matrix].text,
                plan->combos[w->combo].kernel->name, axes, w->cost);
    }
    char reps[32];
    snprintf(reps, sizeof reps, cfg->auto_reps ? "auto (>= %d)" : "%d", cfg->repetitions);
    fprintf(out, "# %d of %d runs (%d matrices x %d combinations), %s repetitions + %d "
            "warm-up each, estimated %.3g s (runner/cost.c; matrix loads not counted)\n", wl->n,
            cfg->nmatrices * plan->ncombos, cfg->nmatrices, plan->ncombos, reps,
            cfg->warmup, wl->total_cost);
    return 0;
}
