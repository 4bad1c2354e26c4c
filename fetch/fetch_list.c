/*
 * fetch_list.c — `spsweep fetch --list`: what a fetch would bring in, with
 * the index's shape of each matrix, whether it is cached, and the archive
 * size the server reports (HEAD requests, several at once), without
 * downloading anything.
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

/* HEAD every item's archive; sizes[i] = -1 where unknown. */
static void head_sizes(sp_fetch_item *items, int n, const sp_fetch_opts *o, int64_t *sizes)
{
    char base[1024];
    sp_ss_base_url(o->base_url, base, sizeof base);
    char (*urls)[1200] = calloc((size_t)n, sizeof *urls);
    sp_dl_item *dl = calloc((size_t)n, sizeof *dl);
    for (int i = 0; i < n; i++)
        sizes[i] = -1;
    if (!urls || !dl)
        goto out;
    for (int i = 0; i < n; i++) {
        if (snprintf(urls[i], sizeof urls[i], "%s/MM/%s/%s.tar.gz", base, items[i].group,
                     items[i].name) >= (int)sizeof urls[i])
            goto out;           /* sizes stay unknown */
        dl[i] = (sp_dl_item){.url = urls[i], .dest = NULL, .label = items[i].label,
                             .head_only = 1};
    }
    sp_dl_opts d = {.jobs = o->jobs > 0 ? o->jobs : 8, .retries = 1, .retry_delay_s = 0.2,
                    .connect_timeout_s = 10, .stall_time_s = 10, .quiet = 1};
    sp_err err;
    if (sp_download_all(dl, n, &d, &err) < 0)
        goto out;
    for (int i = 0; i < n; i++) {
        if (dl[i].ok)
            sizes[i] = dl[i].size;
        else if (dl[i].not_found)
            sizes[i] = -2;
    }
out:
    free(urls);
    free(dl);
}

int sp_fetch_list(sp_fetch_item *items, int n, const sp_fetch_opts *o, int with_sizes,
                  FILE *out, sp_err *err)
{
    char root[1024];
    if (sp_cache_root(o->cache_dir, root, sizeof root, err))
        return -1;
    int64_t *sizes = calloc((size_t)(n ? n : 1), sizeof *sizes);
    if (!sizes)
        return sp_fail(err, "out of memory");
    for (int i = 0; i < n; i++)
        sizes[i] = -1;
    if (with_sizes && n > 0)
        head_sizes(items, n, o, sizes);
    fprintf(out, "%-40s %10s %10s %12s  %-10s %-8s %s\n", "matrix", "rows", "cols", "nnz",
            "archive", "cached", "kind");
    int64_t total = 0, todo = 0;
    for (int i = 0; i < n; i++) {
        sp_fetch_item *it = &items[i];
        sp_ss_paths p;
        int cached = sp_ss_paths_make(root, it->group, it->name, &p, err) == 0 &&
                     access(p.mtx, F_OK) == 0 && access(p.manifest, F_OK) == 0;
        char size[32];
        if (sizes[i] == -2)
            snprintf(size, sizeof size, "missing");
        else
            human(sizes[i], size, sizeof size);
        if (sizes[i] >= 0) {
            total += sizes[i];
            todo += cached ? 0 : sizes[i];
        }
        if (it->in_index)
            fprintf(out, "%-40s %10lld %10lld %12lld  %-10s %-8s %s\n", it->label,
                    (long long)it->entry.rows, (long long)it->entry.cols,
                    (long long)it->entry.nnz, size, cached ? "yes" : "no", it->entry.kind);
        else
            fprintf(out, "%-40s %10s %10s %12s  %-10s %-8s %s\n", it->label, "?", "?", "?",
                    size, cached ? "yes" : "no", "(not in the index)");
    }
    char t1[32], t2[32];
    human(total, t1, sizeof t1);
    human(todo, t2, sizeof t2);
    fprintf(out, "%d matri%s, archives %s in all, %s to download\n", n, n == 1 ? "x" : "ces",
            t1, t2);
    free(sizes);
    return 0;
}
