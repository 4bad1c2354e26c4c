/*
 * resume.c — exact resume. A sweep is "the same sweep" when
 *   plan_hash   — XXH3-64 of the plan's meaning: every matrix source (in
 *                 order), every combination (kernel and axis values, in
 *                 order), repetitions (count or auto with max_noise and
 *                 max_time), warm-up, tolerance, timeout, complex policy,
 *                 isolate (one process per combination or per matrix),
 *                 the harness's cache, batch, min_sample_time, rounds and
 *                 seed —
 *                 so comments, key order or spacing in the config do not
 *                 matter, while any change to what is measured does; --only
 *                 and --shard are not part of it (they select from it);
 *   binary_hash — XXH3-64 of the executable's bytes (/proc/self/exe): a
 *                 rebuild with other code or flags is another binary, even
 *                 at the same commit;
 *   shard       — the same i/N (0/0 without --shard),
 * all equal. Re-running then continues the latest such sweep in the same
 * database: every round of every combination it already holds, whatever
 * its status, is skipped (`--new` starts over). Every run is committed in one transaction
 * with its samples (db/store_run.c) and never stored twice, so a sweep
 * killed at any instant resumes with nothing lost or duplicated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../../db/store.h"
#include "resume.h"

/* The canonical text the plan hash is taken over, one item per line. */
static void plan_text(FILE *f, const sp_config *cfg, const sp_plan *plan)
{
    fprintf(f, "spsweep plan 1\nrepetitions %d auto %d max_noise %.17g max_time %.17g\n",
            cfg->repetitions, cfg->auto_reps, cfg->auto_reps ? cfg->max_noise : 0,
            cfg->auto_reps ? cfg->max_time_s : 0);
    fprintf(f, "warmup %d tolerance %.17g timeout %.17g complex %d\n", cfg->warmup,
            cfg->tolerance, cfg->timeout_s, (int)cfg->complex);
    fprintf(f, "isolate %s\n", sp_isolate_name(cfg->isolate));
    fprintf(f, "harness cache %s batch %d min_sample %.17g rounds %d seed %ld energy %.17g\n",
            cfg->cold ? "cold" : "warm", cfg->batch, cfg->min_sample_s, cfg->rounds,
            cfg->seed, cfg->energy_s);
    if (cfg->energy_s > 0)      /* only then: plans without energy keep their hash */
        fprintf(f, "energy_windows %d\n", cfg->energy_windows);
    if (cfg->steps)             /* likewise: one launch a sample changes the samples */
        fprintf(f, "steps %d\n", cfg->steps);
    if (!cfg->blocking)         /* likewise: the blocking kernel changes what a sample is */
        fprintf(f, "blocking off\n");
    for (int m = 0; m < cfg->nmatrices; m++)
        fprintf(f, "matrix %s\n", cfg->matrices[m].text);
    for (int i = 0; i < plan->ncombos; i++) {
        char axes[256];
        sp_params_json(&plan->combos[i].params, axes, sizeof axes);
        fprintf(f, "combo %s %s\n", plan->combos[i].kernel->name, axes);
        /* only where it is not the default: other plans keep their hash */
        if (plan->combos[i].max_fill != SP_MAX_FILL_DEFAULT)
            fprintf(f, "max_fill %.17g\n", plan->combos[i].max_fill);
    }
}

/* XXH3-64 of the plan as 16 hex digits. */
int sp_plan_hash(const sp_config *cfg, const sp_plan *plan, char out[17], sp_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return sp_fail(err, "out of memory hashing the plan");
    plan_text(f, cfg, plan);
    if (fclose(f) || !text) {
        free(text);
        return sp_fail(err, "out of memory hashing the plan");
    }
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(text, len));
    free(text);
    return 0;
}

/* XXH3-64 of /proc/self/exe as 16 hex digits. */
int sp_binary_hash(char out[17], sp_err *err)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    if (!f)
        return sp_fail(err, "cannot read /proc/self/exe to identify the binary");
    XXH3_state_t *h = XXH3_createState();
    int rc = h && XXH3_64bits_reset(h) == XXH_OK ? 0 : -1;
    char buf[1 << 16];
    size_t n;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, f)) > 0)
        rc = XXH3_64bits_update(h, buf, n) == XXH_OK ? 0 : -1;
    if (rc == 0 && ferror(f))
        rc = -1;
    if (rc == 0)
        snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(h));
    XXH3_freeState(h);
    fclose(f);
    return rc ? sp_fail(err, "cannot hash /proc/self/exe") : 0;
}

/* "source\x1fkernel\x1faxes\x1fround", malloc'd. */
static char *make_key(const char *source, const char *kernel, const char *axes, int round)
{
    size_t n = strlen(source) + strlen(kernel) + strlen(axes) + 16;
    char *k = malloc(n);
    if (k)
        snprintf(k, n, "%s\x1f%s\x1f%s\x1f%d", source, kernel, axes, round);
    return k;
}

static int add_key(void *user, const char *source, const char *kernel, const char *axes,
                   int round, sp_err *err)
{
    sp_done_set *d = user;
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 64;
        char **grown = realloc(d->keys, (size_t)cap * sizeof *grown);
        if (!grown)
            return sp_fail(err, "out of memory listing stored runs");
        d->keys = grown;
        d->cap = cap;
    }
    if (!(d->keys[d->n] = make_key(source, kernel, axes, round)))
        return sp_fail(err, "out of memory listing stored runs");
    d->n++;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The (source, kernel, axes, round) of every round sweep_id holds, sorted. */
int sp_done_load(sp_store *st, int64_t sweep_id, sp_done_set *d, sp_err *err)
{
    memset(d, 0, sizeof *d);
    if (sp_store_each_run_key(st, sweep_id, add_key, d, err)) {
        sp_done_free(d);
        return -1;
    }
    if (d->n)
        qsort(d->keys, (size_t)d->n, sizeof *d->keys, cmp_key);
    return 0;
}

/* Is this round of this combination on this matrix stored already? */
int sp_done_has(const sp_done_set *d, const char *source, const sp_combo *c, int round)
{
    if (!d || d->n == 0)
        return 0;
    char axes[256];
    sp_params_json(&c->params, axes, sizeof axes);
    char *key = make_key(source, c->kernel->name, axes, round);
    int found = key && bsearch(&key, d->keys, (size_t)d->n, sizeof *d->keys, cmp_key);
    free(key);
    return found;
}

void sp_done_free(sp_done_set *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->keys[i]);
    free(d->keys);
    memset(d, 0, sizeof *d);
}
