/*
 * verdict.c — what the way a combination's child ended means for its run
 * (isolate.h): the status stored and the error text, which names the
 * signal or exit status, the stage the child had reached, what it said and
 * the last line it wrote to stderr (e.g. an assertion or a CUDA message).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "isolate.h"

/* The last non-empty line of the child's stderr, into buf. */
static void last_line(const char *tail, char *buf, size_t len)
{
    size_t n = strlen(tail);
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
        n--;
    size_t start = n;
    while (start > 0 && tail[start - 1] != '\n')
        start--;
    snprintf(buf, len, "%.*s", (int)(n - start), tail + start);
}

/* Append "; what: text" to msg when text is not empty. */
static void append(char *msg, size_t len, const char *what, const char *text)
{
    size_t used = strlen(msg);
    if (text[0] && used < len)
        snprintf(msg + used, len - used, "; %s: %s", what, text);
}

/* How the child died, into msg: signal or exit status, and the stage. */
static void death(const sp_child_outcome *o, char *msg, size_t len)
{
    const char *stage = o->stage[0] ? o->stage : "start";
    int ws = o->wait_status;
    if (o->protocol_error)
        snprintf(msg, len, "sent a malformed report during %s", stage);
    else if (WIFSIGNALED(ws))
        snprintf(msg, len, "killed by SIG%s (%s) during %s",
                 sigabbrev_np(WTERMSIG(ws)) ? sigabbrev_np(WTERMSIG(ws)) : "?",
                 strsignal(WTERMSIG(ws)), stage);
    else if (WIFEXITED(ws) && WEXITSTATUS(ws) != 0)
        snprintf(msg, len, "exited with status %d during %s", WEXITSTATUS(ws), stage);
    else
        snprintf(msg, len, "exited without a result during %s", stage);
}

/* The run status an outcome stands for; the error text in msg ("" for ok). */
sp_run_status sp_child_verdict(const sp_child_outcome *o, double timeout_s, char *msg,
                               size_t len)
{
    char line[256];
    msg[0] = 0;
    last_line(o->stderr_tail, line, sizeof line);
    if (o->aborted) {
        snprintf(msg, len, "stopped by a second interrupt during %s", o->stage);
        return SP_RUN_ABORTED;
    }
    if (o->timed_out) {
        snprintf(msg, len, "no result after %g s (timeout) during %s; killed", timeout_s,
                 o->stage[0] ? o->stage : "start");
        append(msg, len, "stderr", line);
        return SP_RUN_TIMEOUT;
    }
    int clean = WIFEXITED(o->wait_status) && WEXITSTATUS(o->wait_status) == 0;
    if (!o->done || !clean || o->protocol_error || o->result.status < 0 ||
        o->result.status > SP_RUN_SKIPPED) {
        death(o, msg, len);
        append(msg, len, "it said", o->message);
        append(msg, len, "stderr", line);
        return SP_RUN_CRASHED;
    }
    snprintf(msg, len, "%s", o->message);
    return (sp_run_status)o->result.status;
}
