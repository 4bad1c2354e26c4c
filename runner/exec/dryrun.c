/*
 * dryrun.c — `spsweep plan` and `spsweep sweep --dry-run`: what this
 * process would run (after --only and --shard), under a header naming the
 * columns, one line per run with the entries its kernel's format stores
 * and its estimated seconds; then the count and the estimated time split
 * into what it is made of (runner/plan/cost.c): loading the matrices,
 * converting them to the kernels' formats, host<->device copies, the timed
 * repetitions and each run's process. Nothing is loaded, run or written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan/advise_plan.h"
#include "progress.h"
#include "../plan/select.h"

/* The parts of a list's estimate, summed over its runs. */
typedef struct plan_sum {
    double run, convert, transfer, timed, total;
    int capped;                 /* runs estimated at their timeout */
    int refused;                /* runs estimated refused by max_fill */
    int guessed;                /* padded-format runs on matrices of unknown structure */
} plan_sum;

/* Is k's format padded (its stored entries depend on the structure)? */
static int padded(const sp_kernel *k)
{
    static const char *const formats[] = {"dia", "ell", "hll"};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (k->format && !strcmp(k->format, formats[i]))
            return 1;
    return 0;
}

int sp_sweep_print_plan(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                        FILE *out, sp_err *err)
{
    char why[512];
    if (sp_select_unfit(cfg, plan, why, sizeof why))
        fprintf(out, "# %s\n", why);
    sp_shape *sh = malloc((size_t)(cfg->nmatrices + 1) * sizeof *sh);
    if (!sh)
        return sp_fail(err, "out of memory estimating the plan");
    sp_estimate_config_shapes(cfg, sh);
    plan_sum sum = {0};
    sp_advised_print(cfg, plan, wl->advised, out);
    fprintf(out, "matrix\tkernel\taxes\tstored_entries\tseconds\n");
    for (int i = 0; i < wl->n; i++) {
        const sp_work *w = &wl->w[i];
        const sp_combo *cb = &plan->combos[w->combo];
        char axes[256];
        sp_run_cost c;
        sp_estimate_run(&sh[w->matrix], cfg, cb->kernel, &cb->params, cb->max_fill, &c);
        sum.run += c.run, sum.convert += c.convert, sum.transfer += c.transfer;
        sum.timed += c.timed, sum.total += c.total;
        sum.capped += c.capped;
        sum.refused += c.refused;
        sum.guessed += padded(cb->kernel) && !sh[w->matrix].known;
        sp_params_text(&cb->params, axes, sizeof axes);
        fprintf(out, "%s\t%s\t%s\t%.3g\t%.3g\n", cfg->matrices[w->matrix].text,
                cb->kernel->name, axes, c.stored, c.total);
    }
    int nloads;
    double load = sp_estimate_loads(cfg, plan, wl, sh, &nloads);
    free(sh);
    char reps[32], took[32];
    snprintf(reps, sizeof reps, cfg->auto_reps ? "auto (>= %d)" : "%d", cfg->repetitions);
    sp_duration_text(sum.total + load, took, sizeof took);
    fprintf(out, "# %d of %d runs (%d matrices x %d combinations), %s repetitions + %d "
            "warm-up each, %d round%s\n", wl->n, cfg->nmatrices * plan->ncombos * cfg->rounds,
            cfg->nmatrices, plan->ncombos, reps, cfg->warmup, cfg->rounds,
            cfg->rounds == 1 ? "" : "s");
    fprintf(out, "# estimated %.3g s%s%s%s: loading matrices %.3g s (%d load%s), converting "
            "to the kernels' formats %.3g s, host<->device copies %.3g s, warm-up and timed "
            "repetitions %.3g s, run processes, checks and storing %.3g s\n",
            sum.total + load, sum.total + load >= 60 ? " (" : "",
            sum.total + load >= 60 ? took : "", sum.total + load >= 60 ? ")" : "", load, nloads, nloads == 1 ? "" : "s", sum.convert,
            sum.transfer, sum.timed, sum.run);
    fprintf(out, "# (runner/plan/cost.c: orders of magnitude from each matrix's nonzeros and the "
            "entries each kernel's format stores, ELL, HLL, SELL and DIA padding included; "
            "not a model of any kernel");
    if (sum.capped)
        fprintf(out, "; %d run%s counted at %s timeout of %g s", sum.capped,
                sum.capped == 1 ? "" : "s", sum.capped == 1 ? "its" : "their", cfg->timeout_s);
    if (sum.refused)
        fprintf(out, "; %d run%s of DIA or ELL on generated matrices counted as refused: "
                "%s layout would store more than max_fill times the nonzeros, and the sweep "
                "skips %s before converting", sum.refused, sum.refused == 1 ? "" : "s",
                sum.refused == 1 ? "its" : "their", sum.refused == 1 ? "it" : "them");
    if (sum.guessed)
        fprintf(out, "; %d run%s of padded formats on file: or suitesparse: matrices, whose "
                "structure is unknown before loading, estimated as if their nonzeros were "
                "scattered: an upper bound for banded matrices", sum.guessed,
                sum.guessed == 1 ? "" : "s");
    fprintf(out, ")\n");
    return 0;
}
