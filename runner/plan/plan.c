/*
 * plan.c — the plan: for every kernel of the config, the Cartesian product
 * of its axis values (the same for every matrix), in config order with the
 * last axis varying fastest, then of the harness axes its section sweeps
 * (batch, then cache, then blocking: slowest of all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* Values of a harness axis the section may leave out (then one: [sweep]'s). */
static int harness_n(const sp_axis_values *a)
{
    return a->n > 0 ? a->n : 1;
}

/* Number of combinations of one kernel, refusing absurd products. */
static int spec_count(const sp_kernel_spec *ks, long *count, sp_err *err)
{
    long n = (long)harness_n(&ks->cache) * harness_n(&ks->batch) * harness_n(&ks->blocking);
    for (int a = 0; a < ks->kernel->naxes; a++) {
        n *= ks->axes[a].n;
        if (n > 10000000)
            return sp_fail(err, "kernel '%s': more than 10^7 axis combinations",
                           ks->kernel->name);
    }
    *count = n;
    return 0;
}

static void push_param(sp_params *p, const char *name, long value)
{
    p->name[p->n] = name;
    p->value[p->n++] = value;
}

/* Axes a kernel may gain without changing what a config that leaves them
 * out means: `precision` at double, `memory` at device and `scan_threads`
 * at chunks (the kernel's choice before the axis existed). Such an axis,
 * left out by the section at its default, is not carried by the
 * combination (kernels read the default when it is absent), so the kernel
 * keeps its axes JSON, its database rows' meaning and its configs' plan
 * hashes; the views read a missing precision as double. */
static const struct {
    const char *axis;
    long dflt;
} implicit_axes[] = {
    {SP_AXIS_PRECISION, SP_DOUBLE},
    {SP_AXIS_MEMORY, SP_MEMORY_DEVICE},
    {SP_AXIS_SCAN_THREADS, SP_SCAN_THREADS_CHUNKS},
};

static int implicit_default(const sp_kernel_spec *ks, int a, long v)
{
    if (ks->axis_text[a] || ks->axes[a].n != 1)
        return 0;
    for (size_t i = 0; i < sizeof implicit_axes / sizeof *implicit_axes; i++)
        if (!strcmp(ks->kernel->axes[a].name, implicit_axes[i].axis))
            return v == implicit_axes[i].dflt;
    return 0;
}

/* Fill combination number idx (mixed radix over the axes) of one kernel;
 * its max_fill the section's, else sweep_max_fill ([sweep]'s). */
static void spec_combo(const sp_kernel_spec *ks, long idx, double sweep_max_fill, sp_combo *c)
{
    const sp_kernel *k = ks->kernel;
    long v[SP_MAX_AXES];
    c->kernel = k;
    c->max_fill = ks->max_fill < 0 ? sweep_max_fill : ks->max_fill;
    for (int a = k->naxes - 1; a >= 0; a--) {
        int n = ks->axes[a].n;
        v[a] = ks->axes[a].v[idx % n];
        idx /= n;
    }
    c->params.n = 0;
    for (int a = 0; a < k->naxes; a++)
        if (!implicit_default(ks, a, v[a]))
            push_param(&c->params, k->axes[a].name, v[a]);
    long b = idx % harness_n(&ks->batch), ca = idx / harness_n(&ks->batch);
    long bl = ca / harness_n(&ks->cache);
    if (ks->cache.n)            /* after the kernel's axes: cache, batch, blocking */
        push_param(&c->params, SP_AXIS_CACHE, ks->cache.v[ca % ks->cache.n]);
    if (ks->batch.n)
        push_param(&c->params, SP_AXIS_BATCH, ks->batch.v[b]);
    if (ks->blocking.n)
        push_param(&c->params, SP_AXIS_BLOCKING, ks->blocking.v[bl % ks->blocking.n]);
}

/* One parameter as JSON or text: harness axes (cold, auto) and word axes
 * (single) by name. */
static const char *named_value(const char *name, long v, char *buf, size_t len, int json)
{
    const char *word = sp_axis_word(name, v);
    if (word)
        snprintf(buf, len, json ? "\"%s\"" : "%s", word);
    else if (!strcmp(name, SP_AXIS_CACHE))
        snprintf(buf, len, json ? "\"%s\"" : "%s", v ? "cold" : "warm");
    else if (!strcmp(name, SP_AXIS_BLOCKING))
        snprintf(buf, len, json ? "\"%s\"" : "%s", v ? "on" : "off");
    else if (!strcmp(name, SP_AXIS_BATCH) && v == 0)
        snprintf(buf, len, json ? "\"auto\"" : "auto");
    else
        snprintf(buf, len, "%ld", v);
    return buf;
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
            spec_combo(&cfg->kernels[i], j, cfg->max_fill, &plan->combos[plan->ncombos++]);
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
    char v[32];
    size_t n = (size_t)snprintf(buf, len, "{");
    for (int a = 0; a < p->n && n < len; a++)
        n += (size_t)snprintf(buf + n, len - n, "%s\"%s\":%s", a ? "," : "", p->name[a],
                              named_value(p->name[a], p->value[a], v, sizeof v, 1));
    if (n < len)
        snprintf(buf + n, len - n, "}");
}

void sp_params_text(const sp_params *p, char *buf, size_t len)
{
    char v[32];
    size_t n = 0;
    buf[0] = 0;
    for (int a = 0; a < p->n && n < len; a++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", a ? " " : "", p->name[a],
                              named_value(p->name[a], p->value[a], v, sizeof v, 0));
    if (p->n == 0)
        snprintf(buf, len, "-");
}
