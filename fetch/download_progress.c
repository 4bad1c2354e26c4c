/*
 * download_progress.c — what the download engine tells the user. On a
 * terminal: a status area redrawn at most ten times a second (one line per
 * running or waiting file, then an overall line) with permanent lines
 * (finished, retried, failed files) printed above it. Elsewhere (a log
 * file, a pipe): plain lines only, one per start, retry, finish, failure.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "download_impl.h"

enum { MAX_FILE_LINES = 12, LINE_MAX_BYTES = 512 };

void dl_format_bytes(char *buf, size_t len, int64_t bytes)
{
    static const char *unit[] = {"B", "kB", "MB", "GB", "TB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%lld B", (long long)bytes);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
}

/* "m:ss" or "h:mm:ss"; "--" when unknown. */
static void format_eta(char *buf, size_t len, double s)
{
    if (s < 0 || s > 360000) {
        snprintf(buf, len, "--");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

void dl_progress_begin(dl_run *r)
{
    r->log = r->o.log ? r->o.log : stderr;
    const char *term = getenv("TERM");
    if (r->o.quiet)
        r->bar = 0;
    else if (r->o.progress >= 0)
        r->bar = r->o.progress > 0;
    else
        r->bar = isatty(fileno(r->log)) && !(term && strcmp(term, "dumb") == 0);
    r->label_width = 8;
    for (int i = 0; i < r->n; i++) {
        int w = (int)strlen(r->x[i].item->label);
        if (w > r->label_width)
            r->label_width = w < 40 ? w : 40;
    }
}

/* Erase the status area (the cursor sits just below it). */
static void clear_area(dl_run *r)
{
    if (r->bar_lines > 0)
        fprintf(r->log, "\r\033[%dA\033[J", r->bar_lines);
    r->bar_lines = 0;
}

static void vlog(dl_run *r, const char *fmt, va_list ap)
{
    if (r->o.quiet)
        return;
    if (r->bar)
        clear_area(r);
    vfprintf(r->log, fmt, ap);
    fputc('\n', r->log);
    fflush(r->log);
    if (r->bar)
        dl_progress_tick(r, 1);
}

/* A permanent line, in both modes. */
void dl_log(dl_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(r, fmt, ap);
    va_end(ap);
}

/* A line only plain mode prints: on a terminal the status area shows it. */
void dl_log_plain(dl_run *r, const char *fmt, ...)
{
    if (r->bar)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(r, fmt, ap);
    va_end(ap);
}

/* "HB/x: 1.2 MB in 0.3 s, 4.0 MB/s" for a finished item. */
void dl_log_done(dl_run *r, const dl_xfer *x)
{
    char size[32], rate[32];
    const sp_dl_item *it = x->item;
    if (it->head_only) {
        dl_format_bytes(size, sizeof size, it->size);
        dl_log(r, "%s: %s", it->label, it->size >= 0 ? size : "size unknown");
        return;
    }
    double t = sp_seconds() - x->t_first;
    dl_format_bytes(size, sizeof size, it->size);
    dl_format_bytes(rate, sizeof rate, t > 0 ? (int64_t)((double)x->run_bytes / t) : 0);
    dl_log(r, "%s: %s in %.1f s, %s/s%s", it->label, size, t, rate,
           it->resumed ? " (resumed)" : "");
}

/* Total bytes of the file x is fetching, -1 while unknown. */
static int64_t xfer_total(const dl_xfer *x)
{
    if (x->range_total >= 0)
        return x->range_total;
    return x->body_decided && x->body_len >= 0 ? x->body_start + x->body_len : -1;
}

/* Bytes per second of x's current attempt. */
static double xfer_rate(const dl_xfer *x, double now)
{
    double dt = now - x->t_attempt;
    return dt > 0 ? (double)x->received / dt : 0;
}

/* One status line for a running or waiting item. */
static void file_line(const dl_run *r, const dl_xfer *x, double now, char *buf, size_t len)
{
    const char *label = x->item->label;
    int w = r->label_width;
    if (x->state == DL_WAITING) {
        if (x->next_at > now)
            snprintf(buf, len, "  %-*s retry %d/%d in %.1f s (%s)", w, label, x->retries_used,
                     r->o.retries, x->next_at - now, x->cause);
        else
            snprintf(buf, len, "  %-*s retry %d/%d waits for a free slot (%s)", w, label,
                     x->retries_used, r->o.retries, x->cause);
        return;
    }
    char got[32], total[32], rate[32], eta[32];
    int64_t have = x->body_start + x->received, all = xfer_total(x);
    double bps = xfer_rate(x, now);
    dl_format_bytes(got, sizeof got, have);
    dl_format_bytes(total, sizeof total, all);
    dl_format_bytes(rate, sizeof rate, (int64_t)bps);
    format_eta(eta, sizeof eta, all >= 0 && bps > 0 ? (double)(all - have) / bps : -1);
    snprintf(buf, len, "  %-*s %10s / %-10s %10s/s  ETA %s", w, label, got,
             all >= 0 ? total : "?", rate, eta);
}

/* The overall line: files, bytes, the current total rate, and an ETA once
 * every remaining file's size is known. */
static void overall_line(const dl_run *r, double now, char *buf, size_t len)
{
    int64_t bytes = 0, left = 0;
    double bps = 0;
    int known = 1;
    for (int i = 0; i < r->n; i++) {
        const dl_xfer *x = &r->x[i];
        bytes += x->run_bytes;
        if (x->state == DL_DONE)
            continue;
        int64_t all = x->state == DL_ACTIVE ? xfer_total(x) : -1;
        if (all < 0)
            known = 0;
        else
            left += all - (x->body_start + x->received);
        if (x->state == DL_ACTIVE)
            bps += xfer_rate(x, now);
    }
    char got[32], rate[32], eta[32], failed[32] = "";
    dl_format_bytes(got, sizeof got, bytes);
    dl_format_bytes(rate, sizeof rate, (int64_t)bps);
    format_eta(eta, sizeof eta, known && bps > 0 ? (double)left / bps : -1);
    if (r->failed)
        snprintf(failed, sizeof failed, ", %d failed", r->failed);
    snprintf(buf, len, "  %d/%d files%s  %s  %s/s  ETA %s", r->finished, r->n, failed, got, rate,
             eta);
}

/* Terminal width, 80 when unknown. */
static int columns(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
        return ws.ws_col;
    return 80;
}

/* Print one area line cut to the terminal width (a wrapped line would
 * throw off the cursor-up count). */
static void area_line(dl_run *r, char *line, int width)
{
    if ((int)strlen(line) >= width)
        line[width - 1] = '\0';
    fprintf(r->log, "%s\033[K\n", line);
    r->bar_lines++;
}

void dl_progress_tick(dl_run *r, int force)
{
    double now = sp_seconds();
    if (!r->bar || r->o.quiet || (!force && now - r->last_draw < 0.1))
        return;
    r->last_draw = now;
    int width = columns(r->log), shown = 0, hidden = 0;
    char line[LINE_MAX_BYTES];
    clear_area(r);
    for (int i = 0; i < r->n; i++) {
        const dl_xfer *x = &r->x[i];
        if (x->state != DL_ACTIVE && x->state != DL_WAITING)
            continue;
        if (shown++ >= MAX_FILE_LINES) {
            hidden++;
            continue;
        }
        file_line(r, x, now, line, sizeof line);
        area_line(r, line, width);
    }
    if (hidden) {
        snprintf(line, sizeof line, "  ... and %d more", hidden);
        area_line(r, line, width);
    }
    overall_line(r, now, line, sizeof line);
    area_line(r, line, width);
    fflush(r->log);
}

/* Clear the status area; for several items, one summary line. */
void dl_progress_end(dl_run *r)
{
    if (r->o.quiet)
        return;
    if (r->bar)
        clear_area(r);
    if (r->n > 1) {
        int64_t bytes = 0;
        for (int i = 0; i < r->n; i++)
            bytes += r->x[i].run_bytes;
        double dt = sp_seconds() - r->t0;
        char got[32], rate[32];
        dl_format_bytes(got, sizeof got, bytes);
        dl_format_bytes(rate, sizeof rate, dt > 0 ? (int64_t)((double)bytes / dt) : 0);
        fprintf(r->log, "fetched %d of %d files: %s in %.1f s, %s/s%s\n", r->n - r->failed,
                r->n, got, dt, rate, r->failed ? " (see the errors above)" : "");
    }
    fflush(r->log);
}
