/*
 * worker.c — several combinations, one after another, in one child that
 * keeps its CUDA context (isolate.h, `isolate = matrix`).
 *
 * Why: a fresh CUDA context costs 0.16-0.3 s on an H200, far more than
 * the timed part of most runs, and two processes creating contexts on two
 * GPUs at once slow each other down in the driver (bench/RESULTS.md). A
 * worker forked once per matrix pays for its context once; the
 * combinations still run one at a time, each with its own timeout.
 *
 * The isolation stays per combination: the parent sends a combination
 * (SP_MSG_RUN) and reads the frames back exactly as from a child
 * (child.c), with the same deadline. A worker that overruns gets SIGTERM
 * and SIGKILL (its whole process group); one that dies is reaped and its
 * death is the run's verdict; one that reports anything but ok or skipped
 * leaves by itself (a CUDA error may be sticky, a crash may have corrupted
 * its heap). In each case the next combination gets a fresh worker. The
 * body decides what it may survive (sp_worker_fn's return).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolate.h"

/* How long a worker told to go may take to exit (its CUDA context is torn
 * down on the way) before it is killed. */
#define LEAVE_GRACE_S 10.0

/* The child: wait for a combination, run it, until the parent hangs up or
 * the body says the process must not go on. */
static void worker_main(sp_worker_fn fn, void *arg, int cmd_fd, int msg_fd, int err_fd,
                        pid_t parent)
{
    sp_child_enter(err_fd, parent);
    sp_wire_reader r = {0};
    for (;;) {
        unsigned type;
        const unsigned char *p;
        uint32_t len;
        int got;
        while ((got = sp_wire_next(&r, &type, &p, &len)) == 0) {
            char buf[4096];
            ssize_t n = read(cmd_fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(0);               /* the sweep let us go */
            if (sp_wire_feed(&r, buf, (size_t)n))
                _exit(3);
        }
        if (got < 0 || type != SP_MSG_RUN)
            _exit(4);
        if (!fn(arg, p, len, msg_fd))
            _exit(0);
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Fork a worker: three pipes (combinations in, frames and stderr out). */
static int worker_start(sp_worker *w, sp_worker_fn fn, void *arg, sp_err *err)
{
    int cp[2], mp[2], ep[2];
    if (pipe2(cp, O_CLOEXEC))
        return sp_fail(err, "cannot start a worker: pipe: %s", strerror(errno));
    if (pipe2(mp, O_CLOEXEC)) {
        close(cp[0]), close(cp[1]);
        return sp_fail(err, "cannot start a worker: pipe: %s", strerror(errno));
    }
    if (pipe2(ep, O_CLOEXEC)) {
        close(cp[0]), close(cp[1]), close(mp[0]), close(mp[1]);
        return sp_fail(err, "cannot start a worker: pipe: %s", strerror(errno));
    }
    omp_pause_resource_all(omp_pause_hard);     /* libgomp is not fork-safe (child.c) */
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        close(cp[1]), close(mp[0]), close(ep[0]);
        worker_main(fn, arg, cp[0], mp[1], ep[1], parent);
    }
    close(cp[0]), close(mp[1]), close(ep[1]);
    if (pid < 0) {
        close(cp[1]), close(mp[0]), close(ep[0]);
        return sp_fail(err, "cannot start a worker: fork: %s", strerror(errno));
    }
    setpgid(pid, pid);
    w->pid = pid, w->cmd_fd = cp[1], w->msg_fd = mp[0], w->err_fd = ep[0];
    w->started++;
    return 0;
}

/* Hand the worker a combination; -1 when it is gone (broken pipe: no
 * SIGPIPE for the sweep). */
static int worker_send(sp_worker *w, const void *cmd, size_t len)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    int rc = sp_wire_send(w->cmd_fd, SP_MSG_RUN, cmd, len);
    sigaction(SIGPIPE, &old, NULL);
    return rc;
}

/* Collect one combination's frames (and the stderr meanwhile) until its
 * DONE, the worker's end of file, the deadline, or a second interrupt.
 * Returns 1 when the worker must be killed. */
static int collect_one(sp_worker *w, sp_child_outcome *o, double deadline,
                       const volatile sig_atomic_t *stop)
{
    sp_wire_reader r = {0};
    int fds[2] = {w->msg_fd, w->err_fd};
    int kill_it = sp_child_collect(o, fds, deadline, stop, 1, &r);
    if (o->done && r.len > r.taken)
        o->protocol_error = 1;          /* frames after DONE: nothing may follow it */
    sp_wire_reader_free(&r);
    w->msg_fd = fds[0], w->err_fd = fds[1];
    return kill_it;
}

/* Forward and keep the stderr the worker wrote until now (or, when it is
 * leaving, until its end of file or the deadline). */
static void drain_stderr(sp_worker *w, sp_child_outcome *o, int to_eof, double deadline)
{
    while (w->err_fd >= 0) {
        struct pollfd p = {w->err_fd, POLLIN, 0};
        int wait_ms = to_eof ? sp_child_slice_ms(deadline) : 0;
        int ready = poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return;
        sp_child_drain(o, &w->err_fd, 0, NULL);
    }
}

/* The worker is leaving or gone: reap it by the deadline (else kill its
 * group), its status into *ws, and close our ends. */
static void worker_reap(sp_worker *w, sp_child_outcome *o, double deadline, int *ws)
{
    close_fd(&w->cmd_fd);
    drain_stderr(w, o, 1, deadline);
    if (!sp_child_reap_until(w->pid, deadline, ws))
        sp_child_kill_group(w->pid, ws);
    close_fd(&w->msg_fd);
    close_fd(&w->err_fd);
    w->pid = 0;
}

/* Kill the worker's group and forget it. */
static void worker_kill(sp_worker *w, int *ws)
{
    sp_child_kill_group(w->pid, ws);
    close_fd(&w->cmd_fd), close_fd(&w->msg_fd), close_fd(&w->err_fd);
    w->pid = 0;
}

/* After the combination's frames: does the worker go on? Sets the wait
 * status the verdict reads (0 when the worker reported: its report is the
 * verdict). */
static void settle(sp_worker *w, sp_child_outcome *o, int kill_it, double deadline)
{
    if (kill_it || o->protocol_error) {
        worker_kill(w, &o->wait_status);
        return;
    }
    if (!o->done) {                     /* it died: reap it, its end is the verdict */
        close_fd(&w->cmd_fd);
        drain_stderr(w, o, 1, deadline);
        if (sp_child_reap_until(w->pid, deadline, &o->wait_status)) {
            close_fd(&w->msg_fd), close_fd(&w->err_fd);
            w->pid = 0;
            return;
        }
        o->timed_out = 1;               /* closed its pipe but never exited */
        worker_kill(w, &o->wait_status);
        return;
    }
    drain_stderr(w, o, 0, 0);
    o->wait_status = 0;
    int status = o->result.status;
    if (status != SP_RUN_OK && status != SP_RUN_SKIPPED) {
        int ws;                         /* it leaves by itself after such a report */
        worker_reap(w, o, sp_seconds() + LEAVE_GRACE_S, &ws);
    }
}

int sp_worker_run(sp_worker *w, sp_worker_fn fn, void *arg, const void *cmd, size_t len,
                  double timeout_s, const volatile sig_atomic_t *stop, sp_child_outcome *o,
                  sp_err *err)
{
    memset(o, 0, sizeof *o);
    o->result.rel_error = NAN;
    double t0 = sp_seconds();
    if (w->pid > 0 && worker_send(w, cmd, len)) {
        int ws;                         /* it left while idle: a fresh one */
        worker_reap(w, o, t0 + LEAVE_GRACE_S, &ws);
        o->stderr_tail[0] = 0;
    }
    if (w->pid <= 0) {
        if (worker_start(w, fn, arg, err))
            return -1;
        if (worker_send(w, cmd, len)) {
            int ws;
            worker_reap(w, o, sp_seconds() + LEAVE_GRACE_S, &ws);
            return sp_fail(err, "cannot start a worker: it left before its first run");
        }
    }
    double deadline = t0 + (timeout_s > 0 ? timeout_s : INFINITY);
    int kill_it = collect_one(w, o, deadline, stop);
    settle(w, o, kill_it, deadline);
    o->wall_s = sp_seconds() - t0;
    return 0;
}

void sp_worker_stop(sp_worker *w)
{
    if (w->pid <= 0)
        return;
    sp_child_outcome o;
    memset(&o, 0, sizeof o);
    int ws;
    worker_reap(w, &o, sp_seconds() + LEAVE_GRACE_S, &ws);
}
