/*
 * fetch_index.c — keep the collection's index (ssstats.csv) in the cache,
 * fresh within 30 days, and turn names and selections into fetch items.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "download.h"
#include "fetch.h"

/* Download the index to csv.new, check that it loads, then rename it over
 * csv: a failed or garbled download never replaces a good index. */
static int download_index(const char *base, const char *csv, const sp_fetch_opts *o,
                          sp_err *err)
{
    char url[1200], fresh[1200], part[1300];
    if (snprintf(url, sizeof url, "%s/files/ssstats.csv", base) >= (int)sizeof url ||
        snprintf(fresh, sizeof fresh, "%s.new", csv) >= (int)sizeof fresh ||
        snprintf(part, sizeof part, "%s.part", fresh) >= (int)sizeof part)
        return sp_fail(err, "%s: path or URL too long", csv);
    unlink(part);   /* a stale partial index must not be resumed into a new one */
    char cause[400], host[256];
    if (sp_fetch_known_unreachable(base, cause, sizeof cause)) {
        sp_dl_url_host(base, host, sizeof host);
        return sp_fail(err, "SuiteSparse index: not tried: cannot connect to %s", host);
    }
    sp_dl_item it = {.url = url, .dest = fresh, .label = "SuiteSparse index"};
    sp_dl_opts dl = {.jobs = 1, .retries = o->retries, .retry_delay_s = o->retry_delay_s,
                     .stall_time_s = o->stall_time_s, .connect_timeout_s = o->connect_timeout_s,
                     .progress = 0, .log = o->log, .quiet = o->quiet, .stop_unreachable = 1};
    if (sp_download_all(&it, 1, &dl, err) < 0)
        return -1;
    if (!it.ok && it.unreachable) {
        const char *c = strchr(it.error, ':');
        sp_fetch_mark_unreachable(base, c ? c + 2 : it.error);
        sp_fetch_hint_once(base, "index not downloaded", o->log);
    }
    if (!it.ok)
        return sp_fail(err, "%s", it.error);
    sp_ss_index *probe;
    int skipped;
    if (sp_ss_index_load(fresh, NULL, &skipped, &probe, err)) {
        unlink(fresh);
        return sp_fail_prefix(err, "downloaded index %s unusable", url);
    }
    int size = sp_ss_index_size(probe);
    sp_ss_index_free(probe);
    if (size == 0) {
        unlink(fresh);
        return sp_fail(err, "%s: the downloaded index lists no matrices", url);
    }
    if (rename(fresh, csv) != 0)
        return sp_fail(err, "%s: %s", csv, strerror(errno));
    return 0;
}

/* True when the file at path exists and is younger than max_age seconds. */
static int is_fresh(const char *path, long max_age, int *exists)
{
    struct stat st;
    *exists = stat(path, &st) == 0;
    return *exists && time(NULL) - st.st_mtime < max_age;
}

int sp_fetch_index(const sp_fetch_opts *o, sp_ss_index **ix, sp_err *err)
{
    char root[1024], dir[1100], csv[1200], lock[1200], base[1024];
    *ix = NULL;
    if (sp_cache_root(o->cache_dir, root, sizeof root, err))
        return -1;
    snprintf(dir, sizeof dir, "%s/suitesparse", root);
    snprintf(csv, sizeof csv, "%s/ssstats.csv", dir);
    snprintf(lock, sizeof lock, "%s/.ssstats.lock", dir);
    sp_ss_base_url(o->base_url, base, sizeof base);
    if (sp_mkdir_p(dir, err))
        return -1;
    int exists, fd;
    FILE *log = o->log ? o->log : stderr;
    if (o->refresh || !is_fresh(csv, SP_SS_INDEX_MAX_AGE_S, &exists)) {
        if (sp_lock_take(lock, 1, &fd, err))
            return -1;
        sp_err derr;
        /* another process may have refreshed it while we waited */
        if ((o->refresh || !is_fresh(csv, 60, &exists)) &&
            download_index(base, csv, o, &derr)) {
            is_fresh(csv, 0, &exists);
            if (!exists) {
                sp_lock_release(fd);
                *err = derr;
                return sp_fail_prefix(err, "no SuiteSparse index (tried %s/files/ssstats.csv)",
                                      base);
            }
            fprintf(log, "spsweep: warning: index not refreshed (%s); using the cached %s\n",
                    derr.msg, csv);
        }
        sp_lock_release(fd);
    }
    int skipped = 0;
    if (sp_ss_index_load(csv, log, &skipped, ix, err))
        return -1;
    if (skipped)
        fprintf(log, "spsweep: warning: %s: %d malformed line%s skipped\n", csv, skipped,
                skipped == 1 ? "" : "s");
    return 0;
}

/* Split "Group/Name" into the item; Name alone needs the index. */
static int resolve_name(sp_ss_index *ix, const char *text, sp_fetch_item *it, sp_err *err)
{
    const char *gname = strncmp(text, "suitesparse:", 12) ? text : text + 12;
    const char *slash = strchr(gname, '/');
    memset(it, 0, sizeof *it);
    it->lock_fd = -1;
    if (ix) {
        if (sp_ss_index_lookup(ix, gname, &it->entry, err))
            return -1;
        it->in_index = 1;
        snprintf(it->group, sizeof it->group, "%s", it->entry.group);
        snprintf(it->name, sizeof it->name, "%s", it->entry.name);
    } else {
        if (!slash)
            return sp_fail(err, "%s: a name without its group needs the SuiteSparse index, "
                           "which is not available; write Group/Name", text);
        size_t gl = (size_t)(slash - gname);
        if (!sp_ss_name_ok(gname, gl) || !sp_ss_name_ok(slash + 1, strlen(slash + 1)) ||
            gl >= sizeof it->group || strlen(slash + 1) >= sizeof it->name)
            return sp_fail(err, "%s: expected Group/Name (letters, digits, '_', '-', '.')",
                           text);
        snprintf(it->group, sizeof it->group, "%.*s", (int)gl, gname);
        snprintf(it->name, sizeof it->name, "%s", slash + 1);
    }
    snprintf(it->label, sizeof it->label, "%s/%s", it->group, it->name);
    return 0;
}

/* Append it unless the same Group/Name is already there. */
static int add_item(sp_fetch_item **items, int *n, int *cap, const sp_fetch_item *it,
                    sp_err *err)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*items)[i].label, it->label))
            return 0;
    if (*n == *cap) {
        int ncap = *cap ? 2 * *cap : 16;
        sp_fetch_item *grown = realloc(*items, (size_t)ncap * sizeof *grown);
        if (!grown)
            return sp_fail(err, "out of memory");
        *items = grown;
        *cap = ncap;
    }
    (*items)[(*n)++] = *it;
    return 0;
}

int sp_fetch_resolve(sp_ss_index *ix, const char *const *names, int nnames,
                     const char *select, long limit, sp_fetch_item **items, int *n,
                     sp_err *err)
{
    *items = NULL;
    *n = 0;
    int cap = 0, rc = 0;
    sp_fetch_item it;
    for (int i = 0; i < nnames && !rc; i++)
        rc = resolve_name(ix, names[i], &it, err) || add_item(items, n, &cap, &it, err);
    if (!rc && select) {
        sp_ss_entry *sel = NULL;
        int ns = 0;
        if (!ix)
            rc = sp_fail(err, "--select needs the SuiteSparse index, which is not available");
        else
            rc = sp_ss_index_select(ix, select, limit, &sel, &ns, err);
        for (int i = 0; i < ns && !rc; i++) {
            memset(&it, 0, sizeof it);
            it.lock_fd = -1;
            it.in_index = 1;
            it.entry = sel[i];
            snprintf(it.group, sizeof it.group, "%s", sel[i].group);
            snprintf(it.name, sizeof it.name, "%s", sel[i].name);
            snprintf(it.label, sizeof it.label, "%s/%s", it.group, it.name);
            rc = add_item(items, n, &cap, &it, err);
        }
        free(sel);
    }
    if (rc) {
        free(*items);
        *items = NULL;
        *n = 0;
    }
    return rc ? -1 : 0;
}
