/*
 * fetch.c — bring SuiteSparse matrices into the cache, verified.
 *
 * For every item: take its lock (a busy lock means another process is
 * fetching it: wait for that one at the end, then reuse its result); reuse
 * a cached .mtx whose SHA-256 matches its manifest; otherwise download the
 * archive (download.c: several at once, retried, resumed) and, as each
 * download completes, hand it to an unpack worker that extracts the .mtx
 * (unpack.c: streamed, checked, atomic), hashes archive and matrix, writes
 * the manifest and converts the matrix to the binary CSR cache. Whatever
 * fails leaves no .mtx behind; the other items still complete.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/clock.h"
#include "download.h"
#include "fetch.h"
#include "matrix.h"
#include "sha256.h"
#include "unpack.h"

typedef struct fetch_run {
    const sp_fetch_opts *o;
    FILE *log;
    char root[1024], base[1024];
    sp_fetch_item *items;
    /* unpack queue: item indices, filled by the download loop */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int *queue, head, tail, closing;
    sp_dl_item *dls;            /* dls[i] belongs to items[dl_index[i]] */
    int *dl_index;
} fetch_run;

/* Remove the cached files of p (matrix, CSR cache, manifest). */
static void remove_cached(const sp_ss_paths *p)
{
    unlink(p->mtx);
    unlink(p->csr);
    unlink(p->manifest);
}

/* Is the matrix already here and intact? Sets it->state to CACHED, or
 * leaves it PENDING after removing whatever cannot be trusted. */
static void check_cached(fetch_run *R, sp_fetch_item *it, const sp_ss_paths *p)
{
    sp_err e;
    int m = sp_manifest_read(p->manifest, &it->manifest, &e);
    int have_mtx = access(p->mtx, R_OK) == 0;
    if (m == 1 && !have_mtx)
        return;                                 /* simply not fetched yet */
    if (m == 0 && have_mtx) {
        if (R->o->no_verify) {
            it->state = SP_FETCH_CACHED;        /* trusted as it is */
            return;
        }
        if (sp_manifest_verify(&it->manifest, p->mtx, &e) == 0) {
            sp_utc_now(it->verified_at, sizeof it->verified_at);
            it->state = SP_FETCH_CACHED;
            return;
        }
    } else if (m == 1) {
        snprintf(e.msg, sizeof e.msg, "%.900s has no manifest", p->mtx);
    } else if (m == 0) {
        snprintf(e.msg, sizeof e.msg, "%.900s is missing", p->mtx);
    }
    if (!R->o->quiet)
        fprintf(R->log, "spsweep: %s: cached copy unusable (%s); fetching again\n", it->label,
                e.msg);
    remove_cached(p);
}

/* Paths, directory and lock of one item; CACHED when already here. */
static int claim(fetch_run *R, sp_fetch_item *it, int wait)
{
    sp_ss_paths p;
    sp_err e;
    if (sp_ss_paths_make(R->root, it->group, it->name, &p, &e) || sp_mkdir_p(p.dir, &e)) {
        it->state = SP_FETCH_FAILED;
        snprintf(it->error, sizeof it->error, "%s: %.800s", it->label, e.msg);
        return 0;
    }
    snprintf(it->mtx_path, sizeof it->mtx_path, "%s", p.mtx);
    int rc = sp_lock_take(p.lock, wait, &it->lock_fd, &e);
    if (rc < 0) {
        it->state = SP_FETCH_FAILED;
        snprintf(it->error, sizeof it->error, "%s: %.800s", it->label, e.msg);
        return 0;
    }
    if (rc == 1) {
        it->deferred = 1;
        if (!R->o->quiet)
            fprintf(R->log, "spsweep: %s: another fetch is bringing it in; waiting for it\n",
                    it->label);
        return 0;
    }
    it->deferred = 0;
    check_cached(R, it, &p);
    return 0;
}

/* The archive of a downloaded item becomes a verified .mtx + manifest. */
static void finish_item(fetch_run *R, sp_fetch_item *it, const sp_dl_item *dl)
{
    sp_ss_paths p;
    sp_err e;
    sp_manifest *m = &it->manifest;
    sp_unpack_result ur;
    sp_unpack_opts uo = {.max_bytes = R->o->max_bytes, .all_files = R->o->all_files};
    sp_ss_paths_make(R->root, it->group, it->name, &p, &e);
    memset(m, 0, sizeof *m);
    snprintf(m->source, sizeof m->source, "suitesparse:%s", it->label);
    snprintf(m->url, sizeof m->url, "%s", dl->url);
    if (sp_unpack_suitesparse(p.archive, it->name, it->label, p.dir, &uo, &ur, &e)) {
        unlink(p.archive);      /* damaged: the next fetch downloads it afresh */
        goto failed;
    }
    snprintf(m->archive_sha256, sizeof m->archive_sha256, "%s", ur.archive_sha256);
    m->archive_bytes = (int64_t)ur.archive_bytes;
    m->mtx_bytes = (int64_t)ur.mtx_bytes;
    snprintf(m->mtx_sha256, sizeof m->mtx_sha256, "%s", ur.mtx_sha256);
    sp_utc_now(m->fetched_at, sizeof m->fetched_at);
    if (sp_manifest_write(p.manifest, m, &e)) {
        remove_cached(&p);
        goto failed;
    }
    if (!R->o->keep_archives)
        unlink(p.archive);
    snprintf(it->verified_at, sizeof it->verified_at, "%s", m->fetched_at);
    sp_mm_opts mm = {.quiet = 1, .threads = R->o->read_threads};
    if (!R->o->no_convert && sp_csr_cache_build(p.mtx, p.csr, &mm, &e))
        snprintf(it->warning, sizeof it->warning, "fetched, but not converted: %.450s", e.msg);
    it->state = SP_FETCH_DONE;
    return;
failed:
    it->state = SP_FETCH_FAILED;
    snprintf(it->error, sizeof it->error, "%s", e.msg);
}

/* Unpack worker: take finished downloads off the queue until it closes. */
static void *unpack_worker(void *arg)
{
    fetch_run *R = arg;
    for (;;) {
        pthread_mutex_lock(&R->mu);
        while (R->head == R->tail && !R->closing)
            pthread_cond_wait(&R->cv, &R->mu);
        if (R->head == R->tail) {
            pthread_mutex_unlock(&R->mu);
            return NULL;
        }
        int k = R->queue[R->head++];
        pthread_mutex_unlock(&R->mu);
        sp_fetch_item *it = &R->items[R->dl_index[k]];
        double t0 = sp_seconds();
        finish_item(R, it, &R->dls[k]);
        it->seconds += sp_seconds() - t0;
    }
}

/* Download-loop callback: a failed download is final, a complete one goes
 * to the unpack workers. */
static void on_download_done(sp_dl_item *dl, void *ctx)
{
    fetch_run *R = ctx;
    int k = (int)(dl - R->dls);
    sp_fetch_item *it = &R->items[R->dl_index[k]];
    if (!dl->ok) {
        it->state = SP_FETCH_FAILED;
        it->not_found = dl->not_found;
        it->unreachable = dl->unreachable;
        snprintf(it->error, sizeof it->error, "%s", dl->error);
        return;
    }
    pthread_mutex_lock(&R->mu);
    R->queue[R->tail++] = k;
    pthread_cond_signal(&R->cv);
    pthread_mutex_unlock(&R->mu);
}

/* How many unpack workers: as many as downloads at once, at most the
 * cores, at most 4 (each may hold a large matrix in memory). */
static int worker_count(int jobs)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int w = jobs < cores ? jobs : (int)cores;
    return w < 1 ? 1 : w > 4 ? 4 : w;
}

/* The collection is known to be unreachable (offline.c): the PENDING,
 * non-deferred items fail at once, not tried. */
static void fail_unreachable(fetch_run *R, int n)
{
    char host[256];
    sp_dl_url_host(R->base, host, sizeof host);
    for (int i = 0; i < n; i++) {
        sp_fetch_item *it = &R->items[i];
        if (it->state != SP_FETCH_PENDING || it->deferred)
            continue;
        it->state = SP_FETCH_FAILED;
        it->unreachable = 1;
        snprintf(it->error, sizeof it->error, "%s: not tried: cannot connect to %s", it->label,
                 host);
    }
}

/* After the downloads: the first item that could not reach the collection
 * marks it unreachable for the rest of the process, with its cause. */
static void note_unreachable(fetch_run *R, int m)
{
    for (int k = 0; k < m; k++) {
        const sp_dl_item *dl = &R->dls[k];
        if (dl->ok || !dl->unreachable || dl->attempts == 0)
            continue;
        size_t skip = strlen(dl->label);
        const char *cause = strncmp(dl->error, dl->label, skip) == 0 && dl->error[skip] == ':'
                                ? dl->error + skip + 2 : dl->error;
        sp_fetch_mark_unreachable(R->base, cause);
        return;
    }
}

/* Download the PENDING, non-deferred items, unpacking as they arrive. */
static int download_pending(fetch_run *R, int n, sp_err *err)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        m += R->items[i].state == SP_FETCH_PENDING && !R->items[i].deferred;
    if (m == 0)
        return 0;
    if (sp_fetch_known_unreachable(R->base, NULL, 0)) {
        fail_unreachable(R, n);
        return 0;
    }
    char (*urls)[1200] = calloc((size_t)m, sizeof *urls);
    char (*dests)[1100] = calloc((size_t)m, sizeof *dests);
    R->dls = calloc((size_t)m, sizeof *R->dls);
    R->dl_index = calloc((size_t)m, sizeof *R->dl_index);
    R->queue = calloc((size_t)m, sizeof *R->queue);
    R->head = R->tail = R->closing = 0;
    int rc = 0;
    if (!urls || !dests || !R->dls || !R->dl_index || !R->queue) {
        rc = sp_fail(err, "out of memory");
        goto out;
    }
    for (int i = 0, k = 0; i < n; i++) {
        sp_fetch_item *it = &R->items[i];
        if (it->state != SP_FETCH_PENDING || it->deferred)
            continue;
        sp_ss_paths p;
        sp_ss_paths_make(R->root, it->group, it->name, &p, err);
        if (snprintf(urls[k], sizeof urls[k], "%s/MM/%s/%s.tar.gz", R->base, it->group,
                     it->name) >= (int)sizeof urls[k] ||
            snprintf(dests[k], sizeof dests[k], "%s", p.archive) >= (int)sizeof dests[k]) {
            rc = sp_fail(err, "%s: URL or path too long", it->label);
            goto out;
        }
        R->dls[k] = (sp_dl_item){.url = urls[k], .dest = dests[k], .label = it->label};
        R->dl_index[k++] = i;
    }
    const sp_fetch_opts *o = R->o;
    sp_dl_opts dl = {.jobs = o->jobs, .retries = o->retries, .retry_delay_s = o->retry_delay_s,
                     .stall_time_s = o->stall_time_s, .connect_timeout_s = o->connect_timeout_s,
                     .progress = o->progress, .log = R->log, .quiet = o->quiet,
                     .stop_unreachable = 1, .on_done = on_download_done, .ctx = R};
    int nw = worker_count(o->jobs > 0 ? o->jobs : 4);
    pthread_t tid[4];
    int started = 0;
    for (; started < nw; started++)
        if (pthread_create(&tid[started], NULL, unpack_worker, R))
            break;
    if (started == 0)
        rc = sp_fail(err, "cannot start an unpack thread");
    else if (sp_download_all(R->dls, m, &dl, err) < 0)
        rc = -1;
    else
        note_unreachable(R, m);
    pthread_mutex_lock(&R->mu);
    R->closing = 1;
    pthread_cond_broadcast(&R->cv);
    pthread_mutex_unlock(&R->mu);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
out:
    free(urls), free(dests), free(R->dls), free(R->dl_index), free(R->queue);
    R->dls = NULL, R->dl_index = NULL, R->queue = NULL;
    return rc;
}

/* The progress line of an item that is here: cached or fetched now. */
static void report_here(fetch_run *R, const sp_fetch_item *it)
{
    const sp_manifest *m = &it->manifest;
    if (it->state == SP_FETCH_CACHED)
        fprintf(R->log, "  cached   %-36s %10.1f MB  %s\n", it->label, m->mtx_bytes / 1e6,
                it->verified_at[0] ? "sha256 verified" : "not re-verified (--no-verify)");
    else
        fprintf(R->log, "  fetched  %-36s %10.1f MB  archive %.1f MB, sha256 %.12s\n",
                it->label, m->mtx_bytes / 1e6, m->archive_bytes / 1e6, m->mtx_sha256);
}

/* One line per item: what happened. Quiet drops the progress lines, never
 * a reason: failures and warnings are printed whatever the options. The
 * items that could not reach the collection share one line: the hint
 * (offline.c), or a pointer to it when it was printed before. */
static void report_items(fetch_run *R, int n)
{
    int unreachable = 0;
    for (int i = 0; i < n; i++) {
        const sp_fetch_item *it = &R->items[i];
        if (it->state == SP_FETCH_FAILED && it->unreachable)
            unreachable++;
        else if (it->state == SP_FETCH_FAILED)
            fprintf(R->log, "  FAILED   %s\n", it->error);
        else if (!R->o->quiet)
            report_here(R, it);
        if (it->warning[0])
            fprintf(R->log, "  warning  %s: %s\n", it->label, it->warning);
    }
    if (unreachable == 0)
        return;
    char what[80];
    snprintf(what, sizeof what, "%d matri%s not fetched", unreachable,
             unreachable == 1 ? "x" : "ces");
    if (!sp_fetch_hint_once(R->base, what, R->log))
        fprintf(R->log, "  FAILED   %s: the collection at %s cannot be reached (said above)\n",
                what, R->base);
}

int sp_fetch_run(sp_fetch_item *items, int n, const sp_fetch_opts *o, sp_err *err)
{
    fetch_run R = {.o = o, .log = o->log ? o->log : stderr, .items = items};
    if (sp_cache_root(o->cache_dir, R.root, sizeof R.root, err))
        return -1;
    sp_ss_base_url(o->base_url, R.base, sizeof R.base);
    pthread_mutex_init(&R.mu, NULL);
    pthread_cond_init(&R.cv, NULL);
    for (int i = 0; i < n; i++) {
        items[i].lock_fd = -1;
        items[i].state = SP_FETCH_PENDING;
        claim(&R, &items[i], 0);
    }
    int rc = download_pending(&R, n, err);
    /* items another process held: wait for it, then reuse or fetch here */
    for (int i = 0; i < n && !rc; i++)
        if (items[i].deferred)
            claim(&R, &items[i], 1);
    if (!rc)
        rc = download_pending(&R, n, err);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        sp_lock_release(items[i].lock_fd);
        items[i].lock_fd = -1;
        failed += items[i].state == SP_FETCH_FAILED;
    }
    pthread_mutex_destroy(&R.mu);
    pthread_cond_destroy(&R.cv);
    if (rc)
        return -1;
    report_items(&R, n);
    return failed;
}
