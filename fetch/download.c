/*
 * download.c — sp_download_all: the libcurl multi loop that runs up to
 * `jobs` transfers at once, and the scheduling around it (fresh items,
 * retries waiting out their backoff, final results and on_done).
 *
 * The loop never sleeps on a retry: a waiting item only has a due time,
 * and curl_multi_poll's timeout is cut to the earliest one, so other
 * transfers keep running meanwhile.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "download_impl.h"

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init_once(void)
{
    global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

void sp_download_global_init(void)
{
    pthread_once(&global_once, global_init_once);
}

/* The caller's options with every zero field at its default. */
static sp_dl_opts resolve_opts(const sp_dl_opts *in)
{
    sp_dl_opts o = in ? *in : (sp_dl_opts){.progress = -1};
    if (o.jobs <= 0)
        o.jobs = 4;
    o.retries = o.retries == 0 ? 4 : o.retries < 0 ? 0 : o.retries;
    if (o.retry_delay_s <= 0)
        o.retry_delay_s = 1.0;
    if (o.retry_delay_max_s <= 0)
        o.retry_delay_max_s = 60.0;
    if (o.retry_delay_max_s < o.retry_delay_s)
        o.retry_delay_max_s = o.retry_delay_s;
    if (o.connect_timeout_s <= 0)
        o.connect_timeout_s = 30;
    if (o.stall_bytes <= 0)
        o.stall_bytes = 1024;
    if (o.stall_time_s <= 0)
        o.stall_time_s = 60;
    return o;
}

/* Reset an item's outputs and give it its .part path. */
static int xfer_init(dl_xfer *x, sp_dl_item *it, sp_err *err)
{
    memset(x, 0, sizeof *x);
    x->item = it;
    it->ok = it->not_found = it->resumed = it->attempts = it->unreachable = 0;
    it->http_code = 0;
    it->size = -1;
    it->error[0] = '\0';
    if (!it->url || !it->label || (!it->head_only && !it->dest))
        return sp_fail(err, "download item %s: url, label and dest are required",
                       it->label ? it->label : "(unlabelled)");
    if (it->head_only)
        return 0;
    size_t len = strlen(it->dest) + sizeof ".part";
    x->part_path = malloc(len);
    if (!x->part_path)
        return sp_fail(err, "%s: out of memory", it->label);
    snprintf(x->part_path, len, "%s.part", it->dest);
    return 0;
}

static void run_free(dl_run *r)
{
    for (int i = 0; r->x && i < r->n; i++) {
        dl_xfer_release(r, &r->x[i]);
        free(r->x[i].part_path);
    }
    free(r->x);
    if (r->multi)
        curl_multi_cleanup(r->multi);
}

/* Everything sp_download_all needs before the first transfer. */
static int run_init(dl_run *r, sp_dl_item *items, int n, const sp_dl_opts *opts, sp_err *err)
{
    memset(r, 0, sizeof *r);
    r->o = resolve_opts(opts);
    r->n = n;
    r->t0 = sp_seconds();
    r->rng = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
    sp_download_global_init();
    if (global_rc != CURLE_OK)
        return sp_fail(err, "download: curl_global_init: %s", curl_easy_strerror(global_rc));
    r->x = calloc((size_t)n + 1, sizeof *r->x);
    if (!r->x)
        return sp_fail(err, "download: out of memory for %d items", n);
    for (int i = 0; i < n; i++)
        if (xfer_init(&r->x[i], &items[i], err) < 0)
            return -1;
    r->multi = curl_multi_init();
    if (!r->multi)
        return sp_fail(err, "download: curl_multi_init failed");
    /* Reuse connections to the same host up to `jobs` of them. */
    curl_multi_setopt(r->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)r->o.jobs);
    return 0;
}

/* The item is final: count it, tell the caller. */
static void item_done(dl_run *r, dl_xfer *x)
{
    sp_dl_item *it = x->item;
    x->state = DL_DONE;
    r->finished++;
    if (it->ok) {
        dl_log_done(r, x);
    } else {
        r->failed++;
        if (!x->skipped)
            dl_log(r, "%s", it->error);     /* the not tried are summed up in one line */
    }
    if (r->o.on_done)
        r->o.on_done(it, r->o.ctx);
}

/* Final failure: the error names the label, the cause and, after retries,
 * how many attempts it took. */
static void item_fail(dl_run *r, dl_xfer *x)
{
    sp_dl_item *it = x->item;
    if (x->item->attempts > 1)
        snprintf(it->error, sizeof it->error, "%s: %s after %d attempts", it->label, x->cause,
                 it->attempts);
    else
        snprintf(it->error, sizeof it->error, "%s: %s", it->label, x->cause);
    it->ok = 0;
    item_done(r, x);
}

/* Backoff before retry number k (1-based): retry_delay_s doubling, times a
 * jitter in [0.9, 1.1] so failures of parallel transfers do not retry in
 * step, capped at retry_delay_max_s. */
static double backoff(dl_run *r, int k)
{
    double d = r->o.retry_delay_s;
    for (int i = 1; i < k && d < r->o.retry_delay_max_s; i++)
        d *= 2;
    d *= 0.9 + 0.2 * (double)rand_r(&r->rng) / RAND_MAX;
    return d < r->o.retry_delay_max_s ? d : r->o.retry_delay_max_s;
}

/* stop_unreachable: x's server cannot be reached, so every item not
 * started or waiting for a retry fails now as not tried (download.h). */
static void stop_rest(dl_run *r, const dl_xfer *x)
{
    char host[256];
    int n = 0;
    sp_dl_url_host(x->item->url, host, sizeof host);
    r->stopped = 1;
    for (int i = 0; i < r->n; i++) {
        dl_xfer *y = &r->x[i];
        if (y == x || !(y->state == DL_WAITING || (y->state == DL_QUEUED && i >= r->next_fresh)))
            continue;
        if (y->state == DL_WAITING) {   /* keep why it waited */
            char was[sizeof y->cause];
            snprintf(was, sizeof was, "%s", y->cause);
            snprintf(y->cause, sizeof y->cause, "%.200s; not retried: cannot connect to %.150s",
                     was, host);
        } else {
            snprintf(y->cause, sizeof y->cause, "not tried: cannot connect to %.150s", host);
        }
        y->item->unreachable = 1;
        y->skipped = 1;                 /* no log line of its own (item_done) */
        item_fail(r, y);
        n++;
    }
    r->next_fresh = r->n;
    if (n > 0)
        dl_log(r, "%s cannot be reached: %d more file%s not tried", host, n, n == 1 ? "" : "s");
}

/* With stop_unreachable: fail at once rather than retry. Before any
 * attempt of the run reached a server, an unreachable one is not retried;
 * once the run is stopped, nothing is. */
static int no_retry(const dl_run *r, const dl_xfer *x)
{
    return r->o.stop_unreachable && (r->stopped || (x->unreachable && !r->reached));
}

/* Decide what happens to x after an attempt ended with outcome. */
static void after_attempt(dl_run *r, dl_xfer *x, enum dl_outcome out)
{
    if (out == DL_COMPLETE) {
        x->item->ok = 1;
        item_done(r, x);
    } else if (out == DL_RESTART && !x->restarted) {
        x->restarted = 1;
        dl_log(r, "%s: %s; discarding %s and starting over", x->item->label, x->cause,
               x->part_path);
        x->state = DL_WAITING;
        x->next_at = sp_seconds();
    } else if (out == DL_RETRY && x->retries_used < r->o.retries && !no_retry(r, x)) {
        double d = backoff(r, ++x->retries_used);
        dl_log(r, "%s: %s; retry %d/%d in %.1f s", x->item->label, x->cause, x->retries_used,
               r->o.retries, d);
        x->state = DL_WAITING;
        x->next_at = sp_seconds() + d;
    } else {
        x->item->unreachable = x->unreachable;
        item_fail(r, x);
        if (x->unreachable && r->o.stop_unreachable && !r->stopped)
            stop_rest(r, x);
    }
}

/* Begin an attempt for x; one that cannot even start is judged at once. */
static void start(dl_run *r, dl_xfer *x)
{
    if (dl_attempt_start(r, x) == 0) {
        x->state = DL_ACTIVE;
        r->active++;
        return;
    }
    dl_xfer_release(r, x);
    dl_drop_empty_part(x);
    after_attempt(r, x, DL_FAIL);
}

/* The waiting item whose retry is due, earliest first; NULL if none. */
static dl_xfer *due_retry(dl_run *r, double now)
{
    dl_xfer *best = NULL;
    for (int i = 0; i < r->n; i++) {
        dl_xfer *x = &r->x[i];
        if (x->state == DL_WAITING && x->next_at <= now && (!best || x->next_at < best->next_at))
            best = x;
    }
    return best;
}

/* Fill free slots: due retries first, then items never started. */
static void start_ready(dl_run *r)
{
    double now = sp_seconds();
    while (r->active < r->o.jobs) {
        dl_xfer *x = due_retry(r, now);
        if (!x && r->next_fresh < r->n)
            x = &r->x[r->next_fresh++];
        if (!x)
            return;
        start(r, x);
    }
}

/* Collect the transfers libcurl has finished and judge each. */
static void drain_finished(dl_run *r)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(r->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        dl_xfer *x = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        CURLcode rc = m->data.result; /* m is invalid after the removal below */
        enum dl_outcome out = dl_judge(r, x, rc);
        dl_xfer_release(r, x);
        r->active--;
        after_attempt(r, x, out);
    }
}

/* Milliseconds curl_multi_poll may wait: with a slot free, until the next
 * retry is due; at most until the next progress redraw. (With every slot
 * busy a due retry waits for a transfer to end, which wakes the poll.) */
static int poll_timeout_ms(dl_run *r)
{
    if (r->active >= r->o.jobs)
        return 100;
    if (r->next_fresh < r->n)
        return 0;
    double now = sp_seconds(), wait = 0.1;
    for (int i = 0; i < r->n; i++)
        if (r->x[i].state == DL_WAITING && r->x[i].next_at - now < wait)
            wait = r->x[i].next_at - now;
    return wait <= 0 ? 0 : (int)(wait * 1000) + 1;
}

/* libcurl's multi handle itself failed: nothing more can run. */
static void abandon_all(dl_run *r, const char *why)
{
    for (int i = 0; i < r->n; i++) {
        dl_xfer *x = &r->x[i];
        if (x->state == DL_DONE)
            continue;
        if (x->state == DL_ACTIVE) {
            dl_part_close(x, 0);
            dl_xfer_release(r, x);
        }
        snprintf(x->cause, sizeof x->cause, "%s", why);
        item_fail(r, x);
    }
}

static void run_loop(dl_run *r)
{
    while (r->finished < r->n) {
        start_ready(r);
        int running;
        CURLMcode mc = curl_multi_perform(r->multi, &running);
        if (mc == CURLM_OK) {
            drain_finished(r);
            dl_progress_tick(r, 0);
            if (r->finished < r->n)
                mc = curl_multi_poll(r->multi, NULL, 0, poll_timeout_ms(r), NULL);
        }
        if (mc != CURLM_OK) {
            char why[200];
            snprintf(why, sizeof why, "curl multi interface failed: %s", curl_multi_strerror(mc));
            abandon_all(r, why);
        }
    }
}

int sp_download_all(sp_dl_item *items, int n, const sp_dl_opts *opts, sp_err *err)
{
    if (n < 0 || (n > 0 && !items))
        return sp_fail(err, "download: bad item list (%d items)", n);
    dl_run r;
    if (run_init(&r, items, n, opts, err) < 0) {
        run_free(&r);
        return -1;
    }
    dl_progress_begin(&r);
    run_loop(&r);
    dl_progress_end(&r);
    run_free(&r);
    return r.failed;
}
