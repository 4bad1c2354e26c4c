/*
 * download_result.c — what the end of an attempt means: complete, retry,
 * restart from zero, or fail; with the cause in words. Also settles the
 * .part accordingly (commit, keep for resume, or discard).
 */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "download_impl.h"

static int is_file_url(const dl_xfer *x)
{
    return strncasecmp(x->item->url, "file:", 5) == 0;
}

/* Drop what the .part holds, keeping the file open for appending. */
static void truncate_part(dl_xfer *x)
{
    if (fflush(x->part) != 0 || ftruncate(fileno(x->part), 0) != 0)
        x->write_errno = errno ? errno : EIO;
}

/* Judge the current response once its headers are in: is its body the
 * file's data, and where in the .part does it start? A 200 to a range
 * request (the server ignored it) restarts the .part from zero; a 206 must
 * start exactly where we asked. file:// honours the range itself. */
void dl_decide_body(dl_xfer *x)
{
    curl_off_t cl = -1;
    x->body_decided = 1;
    x->body_ok = 0;
    if (curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK)
        cl = -1;
    x->body_len = cl;
    if (x->status == 0 && is_file_url(x)) {
        x->body_start = x->offset;
    } else if (x->status == 206) {
        if (x->range_start != x->offset) {
            x->range_bad = 1;
            return;
        }
        x->body_start = x->offset;
    } else if (x->status >= 200 && x->status < 300) {
        if (x->offset > 0)
            truncate_part(x);
        x->body_start = 0;
    } else {
        return;
    }
    x->body_ok = 1;
    if (x->body_start > 0)
        x->item->resumed = 1;
}

static enum dl_outcome cause(dl_xfer *x, enum dl_outcome out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Set x->cause and return out, so every branch below is one line. */
static enum dl_outcome cause(dl_xfer *x, enum dl_outcome out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->cause, sizeof x->cause, fmt, ap);
    va_end(ap);
    return out;
}

/* A write to the .part failed: not retryable (the disk will not have
 * grown in a second); the .part stays for a later resume. */
static enum dl_outcome write_failure(dl_xfer *x)
{
    int e = x->write_errno;
    if (e == ENOSPC || e == EDQUOT)
        return cause(x, DL_FAIL, "disk full writing %s (%s)", x->part_path, strerror(e));
    return cause(x, DL_FAIL, "cannot write %s: %s", x->part_path, strerror(e));
}

/* The libcurl text for a failed transfer: its error buffer, or the code's
 * generic message when the buffer is empty. */
static const char *curl_text(const dl_xfer *x, CURLcode rc)
{
    return x->curl_msg[0] ? x->curl_msg : curl_easy_strerror(rc);
}

/* Did this attempt's connection (to the server or a proxy) come up? */
static int connected(const dl_xfer *x)
{
    curl_off_t t = 0;
    return curl_easy_getinfo(x->easy, CURLINFO_CONNECT_TIME_T, &t) == CURLE_OK && t > 0;
}

/* A transfer that failed below HTTP: retry what a network hiccup causes,
 * fail the rest. A failed lookup or connection marks the attempt
 * unreachable (download.h: stop_unreachable). */
static enum dl_outcome transport_failure(dl_run *r, dl_xfer *x, CURLcode rc)
{
    const char *t = curl_text(x, rc);
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        /* No overall timeout is set: a timeout once connected is a stall. */
        if (strstr(t, "too slow") || x->status > 0 || x->received > 0)
            return cause(x, DL_RETRY, "transfer stalled: less than %ld bytes/s for %ld s",
                         r->o.stall_bytes, r->o.stall_time_s);
        x->unreachable = !connected(x);
        return cause(x, DL_RETRY, "connection timed out (%s)", t);
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
        return cause(x, DL_RETRY, "connection reset or broken (%s)", t);
    case CURLE_GOT_NOTHING:
        return cause(x, DL_RETRY, "connection closed without a reply (%s)", t);
    case CURLE_PARTIAL_FILE:
        return cause(x, DL_RETRY, "body cut short after %lld bytes (%s)",
                     (long long)(x->body_start + x->received), t);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        x->unreachable = 1;
        return cause(x, DL_RETRY, "cannot connect (%s)", t);
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return cause(x, DL_RETRY, "cannot connect (%s)", t);
    case CURLE_FILE_COULDNT_READ_FILE:
        x->item->not_found = 1;
        return cause(x, DL_FAIL, "not in the collection (cannot read %s)", x->item->url);
    case CURLE_BAD_DOWNLOAD_RESUME:
    case CURLE_RANGE_ERROR:
        return cause(x, DL_RESTART, "cannot resume at %lld bytes (%s)", (long long)x->offset, t);
    default:
        return cause(x, DL_FAIL, "%s", t);
    }
}

/* The transfer ended cleanly: judge the final status and, for a body,
 * whether every byte the server announced arrived. */
static enum dl_outcome status_result(dl_xfer *x)
{
    long st = x->status;
    const char *url = x->item->url;
    if (st == 0 && is_file_url(x))
        st = 200;
    if (st == 404) {
        x->item->not_found = 1;
        return cause(x, DL_FAIL, "not in the collection (HTTP 404 for %s)", url);
    }
    if (st == 416 && x->offset > 0)
        return cause(x, DL_RESTART, "HTTP 416 for a range from %lld bytes", (long long)x->offset);
    if (st == 429 || (st >= 500 && st < 600))
        return cause(x, DL_RETRY, "HTTP %ld", st);
    if (st < 200 || st >= 300)
        return cause(x, DL_FAIL, "HTTP %ld for %s", st, url);
    if (x->item->head_only)
        return DL_COMPLETE;
    if (!x->body_decided)
        dl_decide_body(x); /* an empty body never reached on_body */
    if (x->write_errno)
        return write_failure(x);
    int64_t got = x->body_start + x->received;
    if (x->body_len >= 0 && x->received != x->body_len)
        return cause(x, DL_RETRY, "body cut short: %lld of %lld bytes",
                     (long long)x->received, (long long)x->body_len);
    if (x->range_total >= 0 && got != x->range_total)
        return cause(x, DL_RESTART, "%lld bytes but the server announced %lld",
                     (long long)got, (long long)x->range_total);
    return DL_COMPLETE;
}

static enum dl_outcome classify(dl_run *r, dl_xfer *x, CURLcode rc)
{
    if (x->write_errno)
        return write_failure(x);
    if (x->range_bad)
        return cause(x, DL_RESTART, "asked for bytes from %lld, got a range from %lld",
                     (long long)x->offset, (long long)x->range_start);
    if (rc != CURLE_OK)
        return transport_failure(r, x, rc);
    return status_result(x);
}

/* Remove the .part when it holds nothing worth resuming. */
void dl_drop_empty_part(const dl_xfer *x)
{
    struct stat st;
    if (x->part_path && stat(x->part_path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
        unlink(x->part_path);
}

/* Make the .part match the outcome: committed to dest, discarded, or
 * closed and kept for a resume. Closing can itself fail (the last buffered
 * bytes hit a full disk), which turns the outcome into that failure. */
static enum dl_outcome settle(dl_xfer *x, enum dl_outcome out)
{
    sp_dl_item *it = x->item;
    if (it->head_only) {
        if (out == DL_COMPLETE)
            it->size = x->body_len >= 0 ? x->body_len : -1;
        return out;
    }
    if (out == DL_COMPLETE) {
        if (dl_part_commit(x) < 0)
            return x->write_errno ? write_failure(x) : DL_FAIL;
        it->size = x->body_start + x->received;
        return out;
    }
    if (dl_part_close(x, 0) < 0 && out != DL_FAIL)
        out = write_failure(x);
    if (out == DL_RESTART)
        unlink(x->part_path);
    else
        dl_drop_empty_part(x); /* the next attempt, if any, makes a new one */
    return out;
}

void sp_dl_url_host(const char *url, char *out, size_t len)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t n = strcspn(p, "/?#");
    const char *at = memchr(p, '@', n);
    if (at) {
        n -= (size_t)(at + 1 - p);
        p = at + 1;
    }
    snprintf(out, len, "%.*s", (int)n, p);
}

enum dl_outcome dl_judge(dl_run *r, dl_xfer *x, CURLcode rc)
{
    long code = 0;
    x->unreachable = 0;
    if (curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code > 0)
        x->item->http_code = code;
    if (x->item->head_only && rc == CURLE_OK && !x->body_decided) {
        curl_off_t cl = -1;
        curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
        x->body_len = cl;
    }
    enum dl_outcome out = settle(x, classify(r, x, rc));
    if (!x->unreachable)
        r->reached = 1;
    return out;
}
