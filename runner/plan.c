/*
 * plan.c — the plan: for every kernel of the config, the Cartesian product
 * of its axis values (the same for every matrix), in config order with the
 * last axis varying fastest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

/* Number of combinations of one kernel, refusing absurd products. */
static int spec_count(const sp_kernel_spec *ks, long *count, sp_err *err)
{
    long n = 1;
    for (int a = 0; a < ks->kernel->naxes; a++) {
        n *= ks->axes[a].n;
        if (n > 10000000)
            return sp_fail(err, "kernel '%s': more than 10^7 axis combinations",
                           ks->kernel->name);
    }
    *count = n;
    return 0;
}

/* Fill combination number idx (mixed radix over the axes) of one kernel. */
static void spec_combo(const sp_kernel_spec *ks, long idx, sp_combo *c)
{
    const sp_kernel *k = ks->kernel;
    c->kernel = k;
    c->params.n = k->naxes;
    for (int a = k->naxes - 1; a >= 0; a--) {
        int n = ks->axes[a].n;
        c->params.name[a] = k->axes[a].name;
        c->params.value[a] = ks->axes[a].v[idx % n];
        idx /= n;
    }
}

int sp_plan_expand(const sp_config *cfg, sp_plan *plan, sp_err *err)
{
    memset(plan, 0, sizeof *plan);
    long total = 0;
    for (int i = 0; i < cfg->nkernels; i++) {
        long n = 0;
        if (spec_count(&cfg->kernels[i], &n, err))
            return -1;
        total += n;
    }
    plan->combos = calloc((size_t)(total ? total : 1), sizeof *plan->combos);
    if (!plan->combos)
        return sp_fail(err, "out of memory expanding a plan of %ld combinations", total);
    for (int i = 0; i < cfg->nkernels; i++) {
        long n = 0;
        spec_count(&cfg->kernels[i], &n, err);
        for (long j = 0; j < n; j++)
            spec_combo(&cfg->kernels[i], j, &plan->combos[plan->ncombos++]);
    }
    return 0;
}

void sp_plan_free(sp_plan *plan)
{
    free(plan->combos);
    memset(plan, 0, sizeof *plan);
}

void sp_params_json(const sp_params *p, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "{");
    for (int a = 0; a < p->n && n < len; a++)
        n += (size_t)snprintf(buf + n, len - n, "%s\"%s\":%ld", a ? "," : "", p->name[a],
                              p->value[a]);
    if (n < len)
        snprintf(buf + n, len - n, "}");
}

void sp_params_text(const sp_params *p, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int a = 0; a < p->n && n < len; a++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%ld", a ? " " : "", p->name[a],
                              p->value[a]);
    if (p->n == 0)
        snprintf(buf, len, "-");
}
