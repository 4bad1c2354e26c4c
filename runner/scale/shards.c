/*
 * shards.c — is shard i/N of a sweep complete? For `spsweep merge
 * --shards`: a shard is complete when its database exists, its latest
 * sweep is shard i/N with status 'done', and it covers every (matrix,
 * combination) pair that shard i/N of the plan holds.
 *
 * The plan is deterministic (runner/plan/select.c), so the pairs are computed
 * again here from the config text the shard stored with its sweep, not
 * trusted from the shard's own counts: a database that stopped early, was
 * copied half-written or comes from another plan is caught.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/store.h"
#include "../plan/select.h"
#include "shards.h"

/* Count the pairs of the worklist that the shard database covers. */
static int count_covered(const char *db, int64_t sweep_id, const sp_config *cfg,
                         const sp_plan *plan, const sp_worklist *wl, int *covered,
                         sp_err *err)
{
    sp_pair_key *keys = calloc((size_t)wl->n + 1, sizeof *keys);
    char (*axes)[256] = calloc((size_t)wl->n + 1, sizeof *axes);
    int rc = -1;
    if (!keys || !axes)
        sp_fail(err, "out of memory checking %s", db);
    else {
        for (int i = 0; i < wl->n; i++) {
            const sp_combo *c = &plan->combos[wl->w[i].combo];
            sp_params_json(&c->params, axes[i], sizeof axes[i]);
            keys[i] = (sp_pair_key){cfg->matrices[wl->w[i].matrix].text, c->kernel->name,
                                    axes[i]};
        }
        rc = sp_store_count_covered(db, sweep_id, keys, wl->n, covered, err);
    }
    free(keys);
    free(axes);
    return rc;
}

/* Expected and covered pairs of shard index/count of the stored config. */
static int measure(const char *db, const sp_shard_info *info, const char *cache_dir,
                   sp_shard_state *out, sp_err *err)
{
    sp_config cfg;
    sp_plan plan = {0};
    sp_worklist wl = {0};
    if (sp_config_parse(info->config_path, info->config_text, NULL, &cfg, err))
        return -1;
    int rc = 0;
    if (cache_dir && !(free(cfg.cache_dir), cfg.cache_dir = strdup(cache_dir)))
        rc = sp_fail(err, "out of memory");
    sp_prefetch_opts po = {.resolve_only = 1, .quiet = 1};
    sp_sweep_opts so = {.shard_index = out->index, .shard_count = out->count};
    if (rc == 0 && (sp_sweep_prefetch(&cfg, &po, err) || sp_plan_expand(&cfg, &plan, err) ||
                    sp_select(&cfg, &plan, &so, &wl, err) ||
                    count_covered(db, info->sweep_id, &cfg, &plan, &wl, &out->covered, err)))
        rc = -1;
    out->expected = wl.n;
    sp_worklist_free(&wl);
    sp_plan_free(&plan);
    sp_config_free(&cfg);
    return rc;
}

/* Decide the state of one shard from its database. */
static void judge(const sp_shard_info *info, sp_shard_state *out)
{
    int want = out->count > 1 ? out->index : 0, of = out->count > 1 ? out->count : 0;
    if (info->shard_index != want || info->shard_count != of)
        snprintf(out->why, sizeof out->why, "it holds shard %d/%d, not %d/%d",
                 info->shard_index, info->shard_count, out->index, out->count);
    else if (strcmp(info->status, "done") != 0)
        snprintf(out->why, sizeof out->why, "sweep status '%s', %d of %d combinations",
                 info->status, out->covered, out->expected);
    else if (out->covered < out->expected)
        snprintf(out->why, sizeof out->why, "%d of %d combinations", out->covered,
                 out->expected);
    else
        out->complete = 1;
}

/* Check shard index/count in db. -1 only when out of memory or when the
 * config cannot be re-planned; a missing or unreadable database is a
 * state (incomplete, with the reason), not an error. */
int sp_shard_check(const char *db, int index, int count, const char *cache_dir,
                   sp_shard_state *out, sp_err *err)
{
    memset(out, 0, sizeof *out);
    out->index = index, out->count = count;
    if (access(db, F_OK) != 0) {
        out->missing = 1;
        snprintf(out->why, sizeof out->why, "%s absent", db);
        return 0;
    }
    sp_shard_info info;
    sp_err e;
    if (sp_store_shard_info(db, &info, &e)) {
        snprintf(out->why, sizeof out->why, "%.480s", e.msg);
        return 0;
    }
    int rc = measure(db, &info, cache_dir, out, err);
    if (rc == 0)
        judge(&info, out);
    sp_shard_info_free(&info);
    return rc;
}
