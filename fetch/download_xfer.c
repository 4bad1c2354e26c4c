/*
 * download_xfer.c — one attempt of one item: open "<dest>.part" for
 * appending, set up the easy handle (a Range from what is already on disk),
 * take the response's headers and body (the .part file itself: download_part.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "download_impl.h"

/* Parse "bytes A-B/T" (T may be "*") into x->range_start / range_total. */
static void parse_content_range(dl_xfer *x, const char *v)
{
    long long a, b;
    char total[32];
    while (*v == ' ' || *v == '\t')
        v++;
    if (sscanf(v, "bytes %lld-%lld/%31[0-9*]", &a, &b, total) == 3) {
        x->range_start = a;
        x->range_total = total[0] == '*' ? -1 : strtoll(total, NULL, 10);
    }
}

/* Header lines: a status line starts a new response (a redirect, a 100
 * Continue, or the final one), so its body must be judged afresh. */
static size_t on_header(char *buf, size_t size, size_t nitems, void *userdata)
{
    dl_xfer *x = userdata;
    size_t n = size * nitems;
    char line[256];
    size_t k = n < sizeof line - 1 ? n : sizeof line - 1;
    memcpy(line, buf, k);
    line[k] = '\0';
    if (strncmp(line, "HTTP/", 5) == 0) {
        const char *sp = strchr(line, ' ');
        x->status = sp ? strtol(sp + 1, NULL, 10) : 0;
        x->body_decided = x->body_ok = 0;
        x->range_start = x->range_total = -1;
    } else if (strncasecmp(line, "Content-Range:", 14) == 0) {
        parse_content_range(x, line + 14);
    }
    return n;
}

/* Body data. Only a 2xx body is the file; anything else (an error page, a
 * redirect's body) is read and dropped. A failed write stops the transfer
 * with its errno kept for the message. */
static size_t on_body(char *buf, size_t size, size_t nmemb, void *userdata)
{
    dl_xfer *x = userdata;
    size_t n = size * nmemb;
    if (!x->body_decided)
        dl_decide_body(x);
    if (x->write_errno || x->range_bad)
        return 0;
    if (!x->body_ok)
        return n;
    errno = 0;
    if (fwrite(buf, 1, n, x->part) != n) {
        x->write_errno = errno ? errno : EIO;
        return 0;
    }
    x->received += (int64_t)n;
    x->run_bytes += (int64_t)n;
    return n;
}

/* Open the .part for appending; offset = what is already there. */
static int open_part(dl_xfer *x)
{
    struct stat st;
    x->offset = stat(x->part_path, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : 0;
    x->part = fopen(x->part_path, "ab");
    if (!x->part) {
        snprintf(x->cause, sizeof x->cause, "cannot open %s: %s", x->part_path, strerror(errno));
        return -1;
    }
    return 0;
}

#define SETOPT(opt, val)                                        \
    do {                                                        \
        if (curl_easy_setopt(e, opt, val) != CURLE_OK) {        \
            snprintf(x->cause, sizeof x->cause, "curl option %s refused", #opt); \
            return -1;                                          \
        }                                                       \
    } while (0)

/* Options every attempt shares: timeouts, stall detection, redirects,
 * protocols, keepalive, and our callbacks. The proxy variables stay
 * honoured (libcurl's default; we never set CURLOPT_PROXY). */
static int set_common(dl_run *r, dl_xfer *x, CURL *e)
{
    SETOPT(CURLOPT_URL, x->item->url);
    SETOPT(CURLOPT_PRIVATE, (void *)x);
    SETOPT(CURLOPT_ERRORBUFFER, x->curl_msg);
    SETOPT(CURLOPT_NOSIGNAL, 1L);
    SETOPT(CURLOPT_USERAGENT, "spsweep/" SP_VERSION);
    SETOPT(CURLOPT_FOLLOWLOCATION, 1L);
    SETOPT(CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500
    SETOPT(CURLOPT_PROTOCOLS_STR, "http,https,file");
    SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    SETOPT(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS | CURLPROTO_FILE));
    SETOPT(CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    SETOPT(CURLOPT_FAILONERROR, 0L);
    SETOPT(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L); /* a proxy's CONNECT reply is not ours */
    SETOPT(CURLOPT_CONNECTTIMEOUT, r->o.connect_timeout_s);
    SETOPT(CURLOPT_LOW_SPEED_LIMIT, r->o.stall_bytes);
    SETOPT(CURLOPT_LOW_SPEED_TIME, r->o.stall_time_s);
    SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
    SETOPT(CURLOPT_TCP_KEEPIDLE, 60L);
    SETOPT(CURLOPT_TCP_KEEPINTVL, 30L);
    SETOPT(CURLOPT_HEADERFUNCTION, on_header);
    SETOPT(CURLOPT_HEADERDATA, (void *)x);
    SETOPT(CURLOPT_WRITEFUNCTION, on_body);
    SETOPT(CURLOPT_WRITEDATA, (void *)x);
    return 0;
}

/* A Range of our own rather than CURLOPT_RESUME_FROM_LARGE: libcurl's
 * resume turns a 200 answer (a server ignoring ranges) into an error, or,
 * when the whole file happens to be as long as the .part, into "already
 * downloaded" with no body at all. With a plain Range every answer reaches
 * dl_judge, which handles 200, 206 and 416 itself. */
static int set_request(dl_xfer *x, CURL *e)
{
    if (x->item->head_only) {
        SETOPT(CURLOPT_NOBODY, 1L);
    } else if (x->offset > 0) {
        char range[40];
        snprintf(range, sizeof range, "%lld-", (long long)x->offset);
        SETOPT(CURLOPT_RANGE, range);
    }
    return 0;
}

/* Reset the per-attempt state and say what is being fetched. */
static void attempt_reset(dl_run *r, dl_xfer *x)
{
    x->item->attempts++;
    x->t_attempt = sp_seconds();
    if (x->item->attempts == 1)
        x->t_first = x->t_attempt;
    x->offset = x->body_start = x->received = 0;
    x->body_len = x->range_start = x->range_total = -1;
    x->status = 0;
    x->body_decided = x->body_ok = x->range_bad = x->write_errno = 0;
    x->cause[0] = x->curl_msg[0] = '\0';
    (void)r;
}

int dl_attempt_start(dl_run *r, dl_xfer *x)
{
    attempt_reset(r, x);
    if (!x->item->head_only && open_part(x) < 0)
        return -1;
    CURL *e = curl_easy_init();
    if (!e) {
        snprintf(x->cause, sizeof x->cause, "curl_easy_init failed");
        return -1;
    }
    x->easy = e;
    if (set_common(r, x, e) < 0 || set_request(x, e) < 0)
        return -1;
    CURLMcode mc = curl_multi_add_handle(r->multi, e);
    if (mc != CURLM_OK) {
        snprintf(x->cause, sizeof x->cause, "curl: %s", curl_multi_strerror(mc));
        return -1;
    }
    if (x->item->head_only)
        dl_log_plain(r, "fetch %s: HEAD %s", x->item->label, x->item->url);
    else if (x->offset > 0)
        dl_log_plain(r, "fetch %s: GET %s, resuming at %lld bytes", x->item->label, x->item->url,
               (long long)x->offset);
    else
        dl_log_plain(r, "fetch %s: GET %s", x->item->label, x->item->url);
    return 0;
}

/* Take the easy handle out of the multi handle and free it; close a .part
 * still open (an attempt that never got going). */
void dl_xfer_release(dl_run *r, dl_xfer *x)
{
    if (x->easy) {
        curl_multi_remove_handle(r->multi, x->easy);
        curl_easy_cleanup(x->easy);
        x->easy = NULL;
    }
    if (x->part)
        dl_part_close(x, 0);
}

