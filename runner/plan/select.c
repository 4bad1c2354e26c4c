/*
 * select.c — which (matrix, combination) pairs of the plan this process
 * runs: all, or those --only names (kernel=GLOB, matrix=GLOB on the source
 * text or the short name), then this shard's share of them.
 *
 * Shards are balanced by an estimated cost in seconds, known before any
 * matrix is loaded (runner/plan/cost.c: nnz from the source, the index or the
 * generator's parameters), and split by matrix where they can
 * (runner/plan/split.c): every process loads only the matrices of its own
 * pairs. The partition depends only on the plan, so the N shards cover it
 * exactly once. The selection keeps plan order (matrix-major), so a
 * shard loads each of its matrices once.
 *
 * Pairs whose operation cannot take the workload (spmv on a keys: source)
 * are not part of any selection: sp_select_unfit counts them and says why,
 * once, for the log and the dry run.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_plan.h"
#include "select.h"

/* Can the kernel's operation take this source's workload kind? */
static int fits(const sp_source *src, const sp_kernel *k)
{
    return sp_operation_accepts(sp_operation_find(k->operation), sp_source_workload(src));
}

/* Pairs of the plan left out because the operation cannot take the
 * workload; why: the first such operation and kind, and the count. */
int sp_select_unfit(const sp_config *cfg, const sp_plan *plan, char *why, size_t len)
{
    int n = 0;
    const sp_kernel *first = NULL;
    const sp_source *fsrc = NULL;
    for (int m = 0; m < cfg->nmatrices; m++)
        for (int c = 0; c < plan->ncombos; c++)
            if (!fits(&cfg->matrices[m], plan->combos[c].kernel) && n++ == 0)
                first = plan->combos[c].kernel, fsrc = &cfg->matrices[m];
    if (why && len)
        why[0] = '\0';
    if (n && why)
        snprintf(why, len, "%d run%s left out: an operation cannot take the workload "
                 "(e.g. %s on %s: %s takes no %s workloads)", n, n == 1 ? "" : "s",
                 first->name, fsrc->name, first->operation,
                 sp_source_workload(fsrc) == SP_WL_KEYS ? "key" : "matrix");
    return n;
}

/* Does the pair pass --only? */
static int wanted(const sp_sweep_opts *o, const sp_source *src, const sp_kernel *k)
{
    if (!fits(src, k))
        return 0;
    if (o && o->only_kernel && fnmatch(o->only_kernel, k->name, 0) != 0)
        return 0;
    if (o && o->only_matrix && fnmatch(o->only_matrix, src->text, 0) != 0 &&
        fnmatch(o->only_matrix, src->name, 0) != 0)
        return 0;
    return 1;
}

/* The pairs this process runs, in plan order, with their costs. */
int sp_select(const sp_config *cfg, const sp_plan *plan, const sp_sweep_opts *o,
              sp_worklist *wl, sp_err *err)
{
    memset(wl, 0, sizeof *wl);
    int shards = o ? o->shard_count : 0;
    if (shards && (o->shard_index < 1 || o->shard_index > shards))
        return sp_fail(err, "--shard %d/%d: expected i/N with 1 <= i <= N", o->shard_index,
                       shards);
    size_t cap = (size_t)cfg->nmatrices * (size_t)plan->ncombos;
    wl->w = malloc((cap ? cap : 1) * sizeof *wl->w);
    if (!wl->w)
        return sp_fail(err, "out of memory selecting from a plan of %zu runs", cap);
    sp_shape *sh = malloc((size_t)(cfg->nmatrices + 1) * sizeof *sh);
    double *load_s = malloc((size_t)(cfg->nmatrices + 1) * sizeof *load_s);
    if (!sh || !load_s) {
        free(sh), free(load_s), sp_worklist_free(wl);
        return sp_fail(err, "out of memory selecting from a plan of %zu runs", cap);
    }
    sp_estimate_config_shapes(cfg, sh);
    for (int m = 0; m < cfg->nmatrices; m++) {
        load_s[m] = sp_estimate_load_s(sh[m].nnz);
        for (int c = 0; c < plan->ncombos; c++) {
            const sp_combo *cb = &plan->combos[c];
            sp_run_cost rc;
            if (!wanted(o, &cfg->matrices[m], cb->kernel))
                continue;
            sp_estimate_run(&sh[m], cfg, cb->kernel, &cb->params, cb->max_fill, &rc);
            wl->w[wl->n++] = (sp_work){m, c, m * plan->ncombos + c, rc.total, 0};
        }
    }
    int rc = sp_advise_select(cfg, plan, wl, err);
    rc = rc ? rc : shards > 1 ? sp_shard_keep(wl, load_s, o->shard_index, shards, err) : 0;
    free(sh);
    free(load_s);
    if (rc) {
        sp_worklist_free(wl);
        return -1;
    }
    for (int i = 0; i < wl->n; i++)
        wl->total_cost += wl->w[i].cost;
    return 0;
}

void sp_worklist_free(sp_worklist *wl)
{
    free(wl->w);
    sp_advised_free(wl->advised);
    memset(wl, 0, sizeof *wl);
}
