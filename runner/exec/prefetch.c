/*
 * prefetch.c — the fetch step of a sweep. Before the first combination
 * runs: the config's `select` becomes suitesparse: sources, group-less
 * names are resolved against the index, and every SuiteSparse matrix that
 * is not in the cache is fetched. A matrix that cannot be had (offline,
 * 404, damaged archive) keeps its source with the reason in
 * src->unavailable: the sweep records it and runs on the rest. Offline,
 * the first refused connection says so in one line and the rest fail at
 * once, not tried (fetch/offline.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/fetch.h"
#include "datasets.h"
#include "sweep.h"

/* Does any suitesparse: source lack its group? */
static int wants_index(const sp_config *cfg)
{
    if (cfg->fetch.select)
        return 1;
    for (int i = 0; i < cfg->nmatrices; i++)
        if (cfg->matrices[i].kind == SP_SRC_SUITESPARSE && !strchr(cfg->matrices[i].path, '/'))
            return 1;
    return 0;
}

/* Rewrite src as suitesparse:Group/Name. */
static void canonical(sp_source *src, const sp_fetch_item *it)
{
    char text[300];
    snprintf(text, sizeof text, "suitesparse:%s", it->label);
    sp_err e;
    sp_source fresh;
    if (sp_source_parse(text, &fresh, &e) == 0) {
        snprintf(fresh.unavailable, sizeof fresh.unavailable, "%s", src->unavailable);
        *src = fresh;
    }
}

/* The selection's matrices become sources (those not listed already). */
static int add_selection(sp_config *cfg, sp_ss_index *ix, FILE *log, sp_err *err)
{
    sp_fetch_item *sel;
    int ns;
    if (!ix) {
        fprintf(log, "spsweep: warning: select = %s: no SuiteSparse index, so no matrices "
                "selected\n", cfg->fetch.select);
        return 0;
    }
    if (sp_fetch_resolve(ix, NULL, 0, cfg->fetch.select, cfg->fetch.limit, &sel, &ns, err))
        return -1;
    sp_source *grown = realloc(cfg->matrices, (size_t)(cfg->nmatrices + ns) * sizeof *grown);
    if (!grown && ns > 0) {
        free(sel);
        return sp_fail(err, "out of memory");
    }
    cfg->matrices = grown;
    for (int i = 0; i < ns; i++) {
        sp_source s;
        memset(&s, 0, sizeof s);
        canonical(&s, &sel[i]);
        int dup = 0;
        for (int j = 0; j < cfg->nmatrices && !dup; j++)
            dup = !strcmp(cfg->matrices[j].text, s.text);
        if (!dup)
            cfg->matrices[cfg->nmatrices++] = s;
    }
    fprintf(log, "select = %s: %d matri%s\n", cfg->fetch.select, ns, ns == 1 ? "x" : "ces");
    free(sel);
    return 0;
}

/* Resolve each suitesparse: source on its own, so one unknown name marks
 * only itself unavailable. items[k] <-> source index map[k]. */
static int resolve_sources(sp_config *cfg, sp_ss_index *ix, sp_fetch_item *items, int *map,
                           int *n)
{
    *n = 0;
    for (int i = 0; i < cfg->nmatrices; i++) {
        sp_source *src = &cfg->matrices[i];
        if (src->kind != SP_SRC_SUITESPARSE || src->unavailable[0])
            continue;
        const char *name = src->path;
        sp_fetch_item *one;
        int got;
        sp_err e;
        if (sp_fetch_resolve(ix, &name, 1, NULL, 0, &one, &got, &e)) {
            snprintf(src->unavailable, sizeof src->unavailable, "%.500s", e.msg);
            continue;
        }
        canonical(src, one);
        items[*n] = *one;
        map[(*n)++] = i;
        free(one);
    }
    return 0;
}

int sp_sweep_prefetch(sp_config *cfg, const sp_prefetch_opts *po, sp_err *err)
{
    FILE *log = po->log ? po->log : stderr;
    sp_fetch_opts o = {.cache_dir = cfg->cache_dir, .base_url = cfg->fetch.base_url,
                       .jobs = cfg->fetch.jobs, .progress = -1,
                       .read_threads = cfg->read_threads,
                       .quiet = po->quiet, .log = log};
    sp_ss_index *ix = NULL;
    sp_err ierr;
    char base[1024];
    sp_ss_base_url(o.base_url, base, sizeof base);
    if (wants_index(cfg) && sp_fetch_index(&o, &ix, &ierr)) {
        if (sp_fetch_known_unreachable(base, NULL, 0))  /* the one line said why */
            fprintf(log, "spsweep: warning: no SuiteSparse index (the collection cannot be "
                    "reached: above)\n");
        else
            fprintf(log, "spsweep: warning: %s\n", ierr.msg);
    }
    int rc = cfg->fetch.select ? add_selection(cfg, ix, log, err) : 0;
    sp_fetch_item *items = calloc((size_t)cfg->nmatrices + 1, sizeof *items);
    int *map = calloc((size_t)cfg->nmatrices + 1, sizeof *map);
    int n = 0;
    if (!rc && (!items || !map))
        rc = sp_fail(err, "out of memory");
    if (!rc)
        rc = resolve_sources(cfg, ix, items, map, &n);
    sp_ss_index_free(ix);
    if (!rc && n > 0 && !po->resolve_only) {
        int failed = sp_fetch_run(items, n, &o, err);
        if (failed < 0)
            rc = -1;
        else
            sp_record_datasets(cfg->database, items, n, log);
        for (int k = 0; k < n && failed > 0; k++)
            if (items[k].state == SP_FETCH_FAILED)
                snprintf(cfg->matrices[map[k]].unavailable,
                         sizeof cfg->matrices[0].unavailable, "could not be fetched: %.480s",
                         items[k].error);
    }
    free(items);
    free(map);
    return rc;
}
