/*
 * download.h — the dataset manager's download engine: many files over
 * HTTP(S) or file:// at once (libcurl multi interface), with retries,
 * resume and progress.
 *
 * Each item's data goes to "<dest>.part"; only a complete body (status
 * 200/206 and, when the server sent one, the byte count agreeing with
 * Content-Length / Content-Range) is fsync'ed and renamed to dest, so dest
 * never holds a partial file. A .part left by an earlier attempt or run is
 * resumed with a Range request; a 200 answer to it restarts from zero, a
 * 416 discards it and restarts once.
 *
 * Retried with exponential backoff (retry_delay_s doubling up to
 * retry_delay_max_s, with jitter), scheduled inside the transfer loop so a
 * waiting item never holds up the others: timeouts and stalls, resets and
 * other receive/send errors, bodies cut short, empty replies, refused
 * connections, failed DNS lookups and TLS handshakes, HTTP 5xx and 429.
 * Never retried: 404 (not_found), other 4xx, write errors (disk full: the
 * .part stays for a later resume).
 *
 * With stop_unreachable (the fetcher's choice), a server that cannot be
 * reached at all ends the run early instead of costing every item its
 * retries: while no attempt of the run has reached a server, a failed DNS
 * lookup, a refused connection or a connect timeout is not retried; the
 * item fails with `unreachable` set, and so does every item not started or
 * waiting for a retry ("not tried" / "not retried: cannot connect to
 * HOST"), with one log line for them all. Once some attempt did reach a server, such a
 * failure is retried as usual (a blip), and stops the rest only when its
 * item runs out of retries.
 *
 * Redirects are followed (at most 10, HTTP(S) only); the proxy environment
 * variables (http_proxy, https_proxy, no_proxy, ...) are honoured, as
 * libcurl does by default; TCP keepalive is on.
 */
#ifndef SP_DOWNLOAD_H
#define SP_DOWNLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SP_VERSION
#define SP_VERSION "0.1"
#endif

typedef struct sp_dl_item {
    /* in */
    const char *url;   /* full URL: https://, http://, file:// */
    const char *dest;  /* final path (its directory must exist); data goes to
                          "<dest>.part", renamed to dest when complete; unused for head_only */
    const char *label; /* e.g. "HB/bcsstk13", in every message and the progress display */
    int head_only;     /* 1: HEAD request only, fill size (for `fetch --list`), no file */
    void *user;        /* caller's pointer, untouched */
    /* out */
    int ok;            /* 1 when dest is complete (head_only: the HEAD succeeded) */
    int not_found;     /* HTTP 404 (or file:// missing): "not in the collection" */
    long http_code;    /* last HTTP status, 0 if none */
    int64_t size;      /* bytes of dest when ok; Content-Length for head_only; -1 unknown */
    int resumed;       /* 1 if any part came through a range request from an existing .part */
    int attempts;      /* transfers tried */
    int unreachable;   /* the server could not be resolved or connected to, by this item or
                          (stop_unreachable) by an earlier one, which stopped the run */
    char error[512];   /* when !ok: "LABEL: cause" */
} sp_dl_item;

typedef struct sp_dl_opts {
    int jobs;                 /* parallel transfers, default 4 (0 = default) */
    int retries;              /* extra attempts after the first on retryable errors, default 4 */
    double retry_delay_s;     /* first backoff delay, doubles each retry (jitter), default 1.0 */
    double retry_delay_max_s; /* default 60 */
    long connect_timeout_s;   /* default 30 */
    long stall_bytes;         /* low-speed limit in bytes/s, default 1024 */
    long stall_time_s;        /* ... sustained this long = stalled (retryable), default 60 */
    int progress;             /* -1 auto (bar only when log is a terminal), 0 log lines, 1 bar */
    FILE *log;                /* messages and progress; NULL = stderr */
    int quiet;                /* no progress or log lines at all, only results in items */
    int stop_unreachable;     /* 1: a server that cannot be reached stops the run (above) */
    /* Called from the calling thread, inside the transfer loop, as each item
     * finishes, ok or not; may be NULL. Lets the caller unpack a finished
     * archive while others still download. */
    void (*on_done)(sp_dl_item *item, void *ctx);
    void *ctx;
} sp_dl_opts;

/* A zero numeric field takes the default above, so a zero-initialised
 * sp_dl_opts means every default but progress (0: plain lines; opts == NULL
 * means auto). retries = -1 (any negative value) means no retry at all.
 * While the progress bar is up, other output to the same terminal
 * (another thread's messages) would be drawn over: route it through the
 * caller until sp_download_all returns, or use plain lines. */

/* Run every item (up to jobs at once) to completion or final failure.
 * Returns the number of failed items (0 = all ok); -1 with err only when
 * nothing could start (bad arguments, curl initialisation failed). */
int sp_download_all(sp_dl_item *items, int n, const sp_dl_opts *opts, sp_err *err);

/* "host:port" of url (its authority without user info, e.g.
 * "sparse.tamu.edu" or "127.0.0.1:9"); for a file:// URL, "". */
void sp_dl_url_host(const char *url, char *out, size_t len);

/* curl_global_init once, thread-safe (pthread_once); called by
 * sp_download_all. */
void sp_download_global_init(void);

#ifdef __cplusplus
}
#endif

#endif
