/*
 * fetch_list.c — `spsweep fetch --list`: what a fetch would bring in, with
 * the index's shape of each matrix, whether it is cached (and its size) or
 * missing (and the archive size the server reports: HEAD requests, several
 * at once, for the missing ones only), without downloading anything.
 * Offline it still lists everything, the sizes of the missing unknown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "download.h"
#include "fetch.h"

/* "12.3 MB" style, or "?" when unknown. */
static void human(int64_t bytes, char *buf, size_t len)
{
    if (bytes < 0)
        snprintf(buf, len, "?");
    else if (bytes < 1000000)
        snprintf(buf, len, "%.1f kB", bytes / 1e3);
    else if (bytes < 1000000000)
        snprintf(buf, len, "%.1f MB", bytes / 1e6);
    else
        snprintf(buf, len, "%.2f GB", bytes / 1e9);
}

/* HEAD the archive of every item with want[i] set; sizes[i] = -1 where
 * unknown, -2 on a 404. An unreachable collection is marked (offline.c)
 * and leaves every size unknown. */
static void head_sizes(sp_fetch_item *items, int n, const char *want, const sp_fetch_opts *o,
                       int64_t *sizes)
{
    char base[1024];
    sp_ss_base_url(o->base_url, base, sizeof base);
    char (*urls)[1200] = calloc((size_t)n, sizeof *urls);
    sp_dl_item *dl = calloc((size_t)n, sizeof *dl);
    int *of = calloc((size_t)n, sizeof *of);
    int m = 0;
    if (!urls || !dl || !of || sp_fetch_known_unreachable(base, NULL, 0))
        goto out;
    for (int i = 0; i < n; i++) {
        if (!want[i] || snprintf(urls[m], sizeof urls[m], "%s/MM/%s/%s.tar.gz", base,
                                 items[i].group, items[i].name) >= (int)sizeof urls[m])
            continue;           /* its size stays unknown */
        dl[m] = (sp_dl_item){.url = urls[m], .dest = NULL, .label = items[i].label,
                             .head_only = 1};
        of[m++] = i;
    }
    sp_dl_opts d = {.jobs = o->jobs > 0 ? o->jobs : 8, .retries = 1, .retry_delay_s = 0.2,
                    .connect_timeout_s = 10, .stall_time_s = 10, .quiet = 1,
                    .stop_unreachable = 1};
    sp_err err;
    if (m == 0 || sp_download_all(dl, m, &d, &err) < 0)
        goto out;
    for (int k = 0; k < m; k++) {
        if (dl[k].ok)
            sizes[of[k]] = dl[k].size;
        else if (dl[k].not_found)
            sizes[of[k]] = -2;
        else if (dl[k].unreachable && dl[k].attempts > 0 &&
                 !sp_fetch_known_unreachable(base, NULL, 0)) {
            const char *c = dl[k].error + strlen(dl[k].label);
            sp_fetch_mark_unreachable(base, *c == ':' ? c + 2 : dl[k].error);
        }
    }
out:
    free(urls);
    free(dl);
    free(of);
}

/* Is the item in the cache (matrix and manifest)? Its .mtx size into *bytes. */
static int cached(const char *root, const sp_fetch_item *it, int64_t *bytes)
{
    sp_ss_paths p;
    sp_manifest m;
    sp_err e;
    *bytes = -1;
    if (it->unresolved || sp_ss_paths_make(root, it->group, it->name, &p, &e) ||
        access(p.mtx, F_OK) != 0 || sp_manifest_read(p.manifest, &m, &e) != 0)
        return 0;
    *bytes = m.mtx_bytes;
    return 1;
}

/* One line of the table. */
static void list_line(FILE *out, const sp_fetch_item *it, const char *status, const char *size,
                      const char *kind)
{
    if (it->in_index)
        fprintf(out, "%-40s %10lld %10lld %12lld  %-10s %-10s %s\n", it->label,
                (long long)it->entry.rows, (long long)it->entry.cols, (long long)it->entry.nnz,
                status, size, kind);
    else
        fprintf(out, "%-40s %10s %10s %12s  %-10s %-10s %s\n", it->label, "?", "?", "?", status,
                size, kind);
}

int sp_fetch_list(sp_fetch_item *items, int n, const sp_fetch_opts *o, int with_sizes,
                  FILE *out, sp_err *err)
{
    char root[1024], base[1024];
    if (sp_cache_root(o->cache_dir, root, sizeof root, err))
        return -1;
    sp_ss_base_url(o->base_url, base, sizeof base);
    int64_t *sizes = calloc((size_t)(n ? n : 1), sizeof *sizes);
    int64_t *have = calloc((size_t)(n ? n : 1), sizeof *have);
    char *here = calloc((size_t)(n ? n : 1), 1), *want = calloc((size_t)(n ? n : 1), 1);
    if (!sizes || !have || !here || !want) {
        free(sizes), free(have), free(here), free(want);
        return sp_fail(err, "out of memory");
    }
    int nwant = 0;
    for (int i = 0; i < n; i++) {
        sizes[i] = -1;
        here[i] = (char)cached(root, &items[i], &have[i]);
        want[i] = (char)(with_sizes && !here[i] && !items[i].unresolved);
        nwant += want[i];
    }
    if (nwant > 0)
        head_sizes(items, n, want, o, sizes);
    fprintf(out, "%-40s %10s %10s %12s  %-10s %-10s %s\n", "matrix", "rows", "cols", "nnz",
            "status", "size", "kind");
    int ncached = 0, nmissing = 0, nunknown = 0, nabsent = 0, nunresolved = 0;
    int64_t cached_bytes = 0, todo = 0;
    for (int i = 0; i < n; i++) {
        sp_fetch_item *it = &items[i];
        char size[32];
        const char *kind = it->in_index ? it->entry.kind : "(no index)";
        if (it->unresolved) {
            nunresolved++;
            const char *why = strncmp(it->error, it->label, strlen(it->label)) == 0 &&
                                      it->error[strlen(it->label)] == ':'
                                  ? it->error + strlen(it->label) + 2 : it->error;
            list_line(out, it, "unresolved", "?", why);
        } else if (here[i]) {
            ncached++;
            cached_bytes += have[i] > 0 ? have[i] : 0;
            human(have[i], size, sizeof size);
            list_line(out, it, "cached", size, kind);
        } else if (sizes[i] == -2) {
            nabsent++;
            list_line(out, it, "missing", "404", "(not in the collection: HTTP 404)");
        } else {
            nmissing++;
            human(sizes[i], size, sizeof size);
            if (sizes[i] >= 0)
                todo += sizes[i];
            else
                nunknown++;
            list_line(out, it, "missing", size, kind);
        }
    }
    char t1[32], t2[32];
    human(cached_bytes, t1, sizeof t1);
    human(todo, t2, sizeof t2);
    int nm = n - nunresolved;
    fprintf(out, "%d matri%s: %d cached", nm, nm == 1 ? "x" : "ces", ncached);
    if (ncached)
        fprintf(out, " (%s)", t1);
    fprintf(out, ", %d missing", nmissing);
    if (nmissing && nunknown == nmissing)
        fprintf(out, " (archive sizes unknown)");
    else if (nmissing)
        fprintf(out, " (archives %s to download%s)", t2, nunknown ? ", some of unknown size" : "");
    if (nabsent)
        fprintf(out, ", %d not in the collection", nabsent);
    if (nunresolved)
        fprintf(out, "; %d name%s not resolved", nunresolved, nunresolved == 1 ? "" : "s");
    fprintf(out, "\n");
    if (nunknown && with_sizes)
        sp_fetch_hint_once(base, "archive sizes unknown", stderr);
    free(sizes), free(have), free(here), free(want);
    return 0;
}
