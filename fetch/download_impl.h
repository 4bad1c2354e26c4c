/*
 * download_impl.h — state shared by the download engine's files
 * (download.c: the loop and scheduling; download_xfer.c: one attempt;
 * download_result.c: what an attempt's end means; download_progress.c:
 * log lines and the progress bar). Not for callers: they use download.h.
 */
#ifndef SP_DOWNLOAD_IMPL_H
#define SP_DOWNLOAD_IMPL_H

#include <curl/curl.h>
#include <stdarg.h>

#include "../core/clock.h"
#include "download.h"

enum dl_state { DL_QUEUED, DL_ACTIVE, DL_WAITING, DL_DONE };

/* What the end of one attempt means for the item. */
enum dl_outcome {
    DL_COMPLETE, /* body complete (or HEAD answered): finish the item */
    DL_RETRY,    /* transient: try again after the backoff delay */
    DL_RESTART,  /* the .part is unusable (416, bad range): discard, restart once */
    DL_FAIL      /* final: the item fails with its cause */
};

/* One item's transfer state, across its attempts. */
typedef struct dl_xfer {
    sp_dl_item *item;
    enum dl_state state;
    CURL *easy;           /* while active */
    FILE *part;           /* "<dest>.part", appended to, while active */
    char *part_path;
    int64_t offset;       /* bytes already in .part when this attempt began: the Range start */
    int64_t body_start;   /* where this response's body lands in .part: offset for 206, else 0 */
    int64_t body_len;     /* this response's Content-Length, -1 unknown */
    int64_t range_start;  /* from Content-Range "bytes A-B/T": A, -1 none */
    int64_t range_total;  /* ... T, -1 none or "*" */
    int64_t received;     /* body bytes written in this attempt */
    int64_t run_bytes;    /* body bytes received over every attempt of this run */
    long status;          /* status line of the response being received, 0 none */
    int body_decided;     /* the current response's body has been judged */
    int body_ok;          /* ... and it is the file's data (not an error page) */
    int range_bad;        /* a 206 that does not start where we asked */
    int write_errno;      /* a failed write to .part (disk full), else 0 */
    int retries_used;
    int unreachable;      /* this attempt never reached a server (DNS, refused, connect timeout) */
    int skipped;          /* failed by stop_unreachable without an attempt of its own */
    int restarted;        /* the .part was discarded once already */
    double t_first;       /* when the first attempt began */
    double t_attempt;     /* when this attempt began */
    double next_at;       /* DL_WAITING: when to try again */
    char cause[400];      /* last failure, without the label */
    char curl_msg[CURL_ERROR_SIZE];
} dl_xfer;

/* One sp_download_all call. */
typedef struct dl_run {
    sp_dl_opts o;         /* with the defaults filled in */
    CURLM *multi;
    dl_xfer *x;
    int n;
    int next_fresh;       /* first item never started */
    int active;
    int finished, failed;
    int reached;          /* some attempt of this run reached a server */
    int stopped;          /* stop_unreachable: the rest was failed as not tried */
    double t0;
    unsigned rng;         /* backoff jitter (rand_r) */
    FILE *log;
    int bar;              /* redrawn status area (else plain lines) */
    int label_width;      /* the status area's label column */
    int bar_lines;        /* lines the status area now occupies on screen */
    double last_draw;
} dl_run;

/* Seconds on the monotonic clock. */

/* download_xfer.c */
int dl_attempt_start(dl_run *r, dl_xfer *x);
int dl_part_close(dl_xfer *x, int durable);
int dl_part_commit(dl_xfer *x);
void dl_xfer_release(dl_run *r, dl_xfer *x);

/* download_result.c */
enum dl_outcome dl_judge(dl_run *r, dl_xfer *x, CURLcode rc);
void dl_decide_body(dl_xfer *x);
void dl_drop_empty_part(const dl_xfer *x);

/* download_progress.c */
void dl_progress_begin(dl_run *r);
void dl_log(dl_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dl_log_plain(dl_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dl_log_done(dl_run *r, const dl_xfer *x);
void dl_progress_tick(dl_run *r, int force);
void dl_progress_end(dl_run *r);
void dl_format_bytes(char *buf, size_t len, int64_t bytes);

#endif
