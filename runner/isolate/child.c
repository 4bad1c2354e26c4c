/*
 * child.c — one combination in its own process (isolate.h): fork, collect
 * the child's frames and stderr, enforce the timeout, reap, and say what
 * the way it ended means for the run.
 *
 * Why a child per combination: a kernel that segfaults, aborts, hits a
 * CUDA error that poisons its context, or never returns costs only its
 * own run; and CUDA does not survive fork, so each GPU combination must
 * own a fresh process anyway. The parent never touches CUDA.
 *
 * libgomp is not fork-safe: a child that enters a parallel region after
 * the parent built a thread pool waits forever for pool threads that were
 * not copied. The loader uses OpenMP in the parent, so before each fork
 * the parent releases its pool (omp_pause_resource_all, OpenMP 5.0).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isolate.h"

/* Seconds between SIGTERM and SIGKILL for a child that overran. */
#define KILL_GRACE_S 1.0
/* How often the wait loop looks at the stop flag, in ms. */
#define POLL_SLICE_MS 100

/* Child side: own process group (so the whole group can be killed), die
 * with the parent, default signal dispositions, stderr into the pipe. */
void sp_child_enter(int err_fd, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(125);                     /* the parent died before prctl */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(err_fd, STDERR_FILENO) < 0)
        _exit(126);
    close(err_fd);
}

static void child_main(sp_child_fn fn, void *arg, int msg_fd, int err_fd, pid_t parent)
{
    sp_child_enter(err_fd, parent);
    fn(arg, msg_fd);
    _exit(0);                           /* no atexit handlers, no stdio flush */
}

/* Apply one frame to the outcome. */
static void on_frame(sp_child_outcome *o, unsigned type, const unsigned char *p, uint32_t len)
{
    if (type == SP_MSG_STAGE) {
        snprintf(o->stage, sizeof o->stage, "%.*s", (int)len, (const char *)p);
    } else if (type == SP_MSG_PHASES && len == sizeof o->phases) {
        memcpy(&o->phases, p, len);
    } else if (type == SP_MSG_SAMPLES && len % sizeof(double) == 0) {
        int n = (int)(len / sizeof(double));
        double *grown = realloc(o->samples, ((size_t)o->nsamples + n) * sizeof(double));
        if (!grown) {
            o->protocol_error = 1;
            return;
        }
        memcpy(grown + o->nsamples, p, len);
        o->samples = grown;
        o->nsamples += n;
    } else if (type == SP_MSG_SAMPLE_FLAGS && len % sizeof(int32_t) == 0) {
        int n = (int)(len / sizeof(int32_t));
        int32_t *grown = realloc(o->sample_flags, ((size_t)o->nflags + n) * sizeof(int32_t));
        if (!grown) {
            o->protocol_error = 1;
            return;
        }
        memcpy(grown + o->nflags, p, len);
        o->sample_flags = grown;
        o->nflags += n;
    } else if (type == SP_MSG_MACHINE && len == sizeof o->machine) {
        memcpy(&o->machine, p, len);
        o->machine.describe[sizeof o->machine.describe - 1] = 0;
        o->machine.before[sizeof o->machine.before - 1] = 0;
        o->machine.after[sizeof o->machine.after - 1] = 0;
        o->have_machine = 1;
    } else if (type == SP_MSG_INFO && len < sizeof o->info) {
        memcpy(o->info, p, len);
        o->info[len] = 0;
    } else if (type == SP_MSG_STEPS && len < sizeof o->steps) {
        memcpy(o->steps, p, len);
        o->steps[len] = 0;
    } else if (type == SP_MSG_DONE && len >= sizeof o->result) {
        memcpy(&o->result, p, sizeof o->result);
        snprintf(o->message, sizeof o->message, "%.*s", (int)(len - sizeof o->result),
                 (const char *)p + sizeof o->result);
        o->done = 1;
    } else {
        o->protocol_error = 1;
    }
}

/* Forward stderr bytes to ours and keep the last ones for the verdict. */
static void on_stderr(sp_child_outcome *o, const char *buf, size_t n)
{
    if (write(STDERR_FILENO, buf, n) < 0) {
        /* nowhere to forward to: the tail is still kept */
    }
    size_t cap = sizeof o->stderr_tail - 1, have = strlen(o->stderr_tail);
    if (n >= cap) {
        memcpy(o->stderr_tail, buf + n - cap, cap);
        o->stderr_tail[cap] = 0;
        return;
    }
    if (have + n > cap) {
        memmove(o->stderr_tail, o->stderr_tail + (have + n - cap), cap - n);
        have = cap - n;
    }
    memcpy(o->stderr_tail + have, buf, n);
    o->stderr_tail[have + n] = 0;
}

/* Read what is there on fd; close it (set -1) at end of file. */
void sp_child_drain(sp_child_outcome *o, int *fd, int is_msg, sp_wire_reader *r)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(*fd);
        *fd = -1;
        return;
    }
    if (!is_msg) {
        on_stderr(o, buf, (size_t)n);
        return;
    }
    if (sp_wire_feed(r, buf, (size_t)n)) {
        o->protocol_error = 1;
        return;
    }
    unsigned type;
    const unsigned char *p;
    uint32_t len;
    int got;
    while ((got = sp_wire_next(r, &type, &p, &len)) == 1)
        on_frame(o, type, p, len);
    if (got < 0)
        o->protocol_error = 1;
}

/* Milliseconds until deadline, at most one slice, at least 0. */
int sp_child_slice_ms(double deadline)
{
    double left = deadline - sp_seconds();
    if (left <= 0)
        return 0;
    return left * 1e3 < POLL_SLICE_MS ? (int)(left * 1e3) + 1 : POLL_SLICE_MS;
}

/* Collect frames (through r) and stderr into o until both pipes close, or,
 * with until_done, until the DONE frame, a protocol error or the frame
 * pipe's end; or until the deadline passes or the stop flag reaches 2.
 * Returns 1 when the process must be killed. */
int sp_child_collect(sp_child_outcome *o, int fds[2], double deadline,
                     const volatile sig_atomic_t *stop, int until_done, sp_wire_reader *r)
{
    int kill_it = 0;
    while (until_done ? !o->done && !o->protocol_error && fds[0] >= 0
                      : fds[0] >= 0 || fds[1] >= 0) {
        if (stop && *stop >= 2) {
            o->aborted = kill_it = 1;
            break;
        }
        if (sp_seconds() >= deadline) {
            o->timed_out = kill_it = 1;
            break;
        }
        struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
        int ready = poll(p, 2, sp_child_slice_ms(deadline));
        if (ready < 0 && errno != EINTR)
            break;
        for (int i = 0; ready > 0 && i < 2; i++)
            if (fds[i] >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                sp_child_drain(o, &fds[i], i == 0, r);
    }
    return kill_it;
}

/* Wait for pid until deadline; 1 when reaped (status in *ws). A child
 * that closed its pipes is usually a zombie within microseconds: poll
 * from 20 us, doubling up to 5 ms. */
int sp_child_reap_until(pid_t pid, double deadline, int *ws)
{
    long nap_ns = 20000;
    for (;;) {
        pid_t w = waitpid(pid, ws, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return 1;
        if (sp_seconds() >= deadline)
            return 0;
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        nap_ns = nap_ns < 5000000 ? 2 * nap_ns : nap_ns;
    }
}

/* SIGTERM to the child's group, SIGKILL after the grace period, reap. */
void sp_child_kill_group(pid_t pid, int *ws)
{
    killpg(pid, SIGTERM);
    if (sp_child_reap_until(pid, sp_seconds() + KILL_GRACE_S, ws)) {
        killpg(pid, SIGKILL);           /* whatever the child left in its group */
        return;
    }
    killpg(pid, SIGKILL);
    while (waitpid(pid, ws, 0) < 0 && errno == EINTR) {
    }
}

/* Parent side after the fork. */
static void parent_side(sp_child_outcome *o, pid_t pid, int fds[2], double timeout_s,
                        const volatile sig_atomic_t *stop)
{
    double deadline = sp_seconds() + timeout_s;
    setpgid(pid, pid);                  /* also here: no race with the child's own */
    sp_wire_reader r = {0};
    int kill_it = sp_child_collect(o, fds, deadline, stop, 0, &r);
    sp_wire_reader_free(&r);
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (!kill_it && !sp_child_reap_until(pid, deadline, &o->wait_status)) {
        o->timed_out = 1;               /* closed its pipes but never exited */
        kill_it = 1;
    }
    if (kill_it)
        sp_child_kill_group(pid, &o->wait_status);
}

/* Fork fn into a child and collect its outcome. */
int sp_child_run(sp_child_fn fn, void *arg, double timeout_s,
                 const volatile sig_atomic_t *stop, sp_child_outcome *o, sp_err *err)
{
    memset(o, 0, sizeof *o);
    o->result.rel_error = NAN;
    int mp[2], ep[2];
    if (pipe2(mp, O_CLOEXEC))
        return sp_fail(err, "cannot start a child: pipe: %s", strerror(errno));
    if (pipe2(ep, O_CLOEXEC)) {
        close(mp[0]), close(mp[1]);
        return sp_fail(err, "cannot start a child: pipe: %s", strerror(errno));
    }
    omp_pause_resource_all(omp_pause_hard);
    fflush(NULL);               /* or the child's buffers would repeat our output */
    double t0 = sp_seconds();
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        close(mp[0]), close(ep[0]);
        child_main(fn, arg, mp[1], ep[1], parent);
    }
    close(mp[1]), close(ep[1]);
    if (pid < 0) {
        close(mp[0]), close(ep[0]);
        return sp_fail(err, "cannot start a child: fork: %s", strerror(errno));
    }
    int fds[2] = {mp[0], ep[0]};
    parent_side(o, pid, fds, timeout_s > 0 ? timeout_s : INFINITY, stop);
    o->wall_s = sp_seconds() - t0;
    return 0;
}

void sp_child_outcome_free(sp_child_outcome *o)
{
    free(o->samples);
    o->samples = NULL;
    o->nsamples = 0;
    free(o->sample_flags);
    o->sample_flags = NULL;
    o->nflags = 0;
}
