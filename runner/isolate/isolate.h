/*
 * isolate.h — the runner's process model (private to runner/).
 *
 * The parent process (the sweep) loads matrices, computes references and
 * owns the database; it never initialises CUDA. Each combination runs in a
 * child forked after the matrix and its reference exist (copy-on-write
 * shares them): the child prepares, warms up, times, fetches the result,
 * checks it, releases, and reports back over a pipe in small frames
 * (wire.c). The parent enforces the timeout, kills the child's process
 * group when it runs over, and turns how the child ended into a run status
 * (child.c). A GPU combination's CUDA context lives and dies with its child.
 *
 * Or, `isolate = matrix` (the default for GPU kernels), one *worker* per
 * matrix runs its combinations one after another (worker.c): forked like
 * the child above, it reads a combination, measures and reports it with
 * the same frames, and waits for the next, keeping its CUDA context. The
 * parent enforces the same per-combination timeout; a worker that
 * overruns, dies, or reports anything but ok or skipped (its context may
 * be poisoned) is gone, and the next combination gets a fresh one.
 */
#ifndef SP_ISOLATE_H
#define SP_ISOLATE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "../plan/plan.h"

/* ---- frames (runner/isolate/wire.c) -----------------------------------------
 * A frame is an 8-byte header — magic 0x5350 ("SP"), type (uint16),
 * payload length (uint32), host byte order: both ends are one machine and
 * one binary — then the payload. */
enum {
    SP_MSG_STAGE = 1,       /* text: what the child starts now ("prepare") */
    SP_MSG_PHASES = 2,      /* sp_phases */
    SP_MSG_SAMPLES = 3,     /* doubles, appended to those already sent */
    SP_MSG_DONE = 4,        /* sp_wire_done, then the message text */
    SP_MSG_RUN = 5,         /* parent to worker: the next combination */
    SP_MSG_MACHINE = 6,     /* sp_wire_machine: the machine around the samples */
    SP_MSG_SAMPLE_FLAGS = 7, /* int32 SP_MACHINE_* bits, one per sample sent */
    SP_MSG_INFO = 8,        /* text: the kernel's info, a JSON object (sp_kernel.info) */
    SP_MSG_STEPS = 9,       /* text: the median of each timed step, a JSON object */
};
#define SP_WIRE_MAX_PAYLOAD (64u << 20)

/* Status codes in SP_MSG_DONE: SP_RUN_OK, _FAILED, _ERROR or _SKIPPED
 * (core/status.h, whose values these are on the wire). */
/* Stop reasons of the repetitions. */
enum { SP_STOP_COUNT, SP_STOP_NOISE, SP_STOP_TIME };

typedef struct sp_wire_done {
    int32_t status;         /* SP_RUN_OK .. SP_RUN_SKIPPED */
    int32_t stop;           /* SP_STOP_* */
    double rel_error;       /* NaN when not checked */
    int32_t batch;          /* launches per sample the harness used */
    int32_t blocking;       /* sp_blocking (runner/exec/harness.h) the samples were taken with */
} sp_wire_done;

/* The machine's state around a run's samples (runner/exec/machine.h). */
typedef struct sp_wire_machine {
    uint32_t flags;         /* SP_MACHINE_* of the run */
    int32_t energy_windows; /* GPU energy windows measured (0: none) */
    double energy_j[SP_ENERGY_WINDOWS_MAX];         /* energy of each window */
    int64_t energy_launches[SP_ENERGY_WINDOWS_MAX]; /* launches in each */
    char describe[200];     /* the flags in words, "" when none */
    char before[1536], after[1536];     /* sp_machine_json of the two readings */
} sp_wire_machine;

/* Write one whole frame (retrying short writes and EINTR). */
int sp_wire_send(int fd, unsigned type, const void *payload, size_t len);

/* Incremental reader: feed bytes as they arrive, take whole frames out. */
typedef struct sp_wire_reader {
    unsigned char *buf;
    size_t len, cap;
    size_t taken;           /* bytes of the frame last returned */
} sp_wire_reader;
int sp_wire_feed(sp_wire_reader *r, const void *data, size_t n);
/* 1 and the frame when a whole one is buffered (payload valid until the
 * next call), 0 when more bytes are needed, -1 on a malformed header. */
int sp_wire_next(sp_wire_reader *r, unsigned *type, const unsigned char **payload,
                 uint32_t *len);
void sp_wire_reader_free(sp_wire_reader *r);

/* ---- the child (runner/isolate/child.c) ---------------------------------- */
/* Runs in the child: write frames to fd, return; the child then _exits. */
typedef void (*sp_child_fn)(void *arg, int fd);

typedef struct sp_child_outcome {
    int done;                   /* SP_MSG_DONE arrived */
    sp_wire_done result;
    char message[1024];         /* the DONE text, "" when none */
    char stage[64];             /* the last stage the child announced */
    sp_phases phases;
    double *samples;            /* malloc'd; caller frees */
    int nsamples;
    int32_t *sample_flags;      /* malloc'd, nflags of them; caller frees */
    int nflags;
    int have_machine;           /* SP_MSG_MACHINE arrived */
    sp_wire_machine machine;
    char info[1024];            /* SP_MSG_INFO: the kernel's JSON, "" when none */
    char steps[1024];           /* SP_MSG_STEPS: the steps' medians, "" when none */
    int timed_out;              /* killed after the timeout */
    int aborted;                /* killed because the sweep was told to stop */
    int protocol_error;         /* malformed frame */
    int wait_status;            /* from waitpid */
    char stderr_tail[512];      /* the child's last stderr bytes */
    double wall_s;              /* fork to reap */
} sp_child_outcome;

/* Fork, run fn(arg, fd) in a child of its own process group and collect
 * its frames, forwarding its stderr to ours. After timeout_s seconds (or
 * when *stop reaches 2: a second Ctrl-C) the group gets SIGTERM, then
 * SIGKILL after a grace period. Returns -1 only when no child could be
 * started. */
int sp_child_run(sp_child_fn fn, void *arg, double timeout_s,
                 const volatile sig_atomic_t *stop, sp_child_outcome *out, sp_err *err);
/* The run status an outcome stands for (any but SP_RUN_ABORTED when the
 * child was not stopped by a second interrupt), with the error text in msg. */
sp_run_status sp_child_verdict(const sp_child_outcome *o, double timeout_s, char *msg,
                               size_t len);
void sp_child_outcome_free(sp_child_outcome *o);

/* Pieces of child.c that worker.c shares. */
/* In a fresh child: own process group, die with the parent, default
 * signals, stderr into err_fd; _exits when the parent is already gone. */
void sp_child_enter(int err_fd, pid_t parent);
/* Read what is there on *fd into the outcome (frames when is_msg, else
 * stderr, forwarded to ours); at end of file close it and set it to -1. */
void sp_child_drain(sp_child_outcome *o, int *fd, int is_msg, sp_wire_reader *r);
/* Poll both pipes (fds[0] frames, fds[1] stderr) into o until both close,
 * or with until_done until the DONE frame; stop at the deadline or at a
 * second interrupt (1: kill the process). Frames go through r. */
int sp_child_collect(sp_child_outcome *o, int fds[2], double deadline,
                     const volatile sig_atomic_t *stop, int until_done, sp_wire_reader *r);
/* Milliseconds to poll before the deadline: at most one slice. */
int sp_child_slice_ms(double deadline);
/* Reap pid before the deadline: 1 and its status, or 0. */
int sp_child_reap_until(pid_t pid, double deadline, int *ws);
/* SIGTERM to pid's group, SIGKILL after a grace period, reap. */
void sp_child_kill_group(pid_t pid, int *ws);

/* ---- the worker (runner/isolate/worker.c) -----------------------------------
 * The worker's body: measure the combination cmd names, write its frames to
 * fd (ending with SP_MSG_DONE); return 1 to wait for the next one, 0 to
 * leave (after anything that may have poisoned the process's state). */
typedef int (*sp_worker_fn)(void *arg, const void *cmd, size_t len, int fd);

typedef struct sp_worker {
    pid_t pid;                  /* <= 0: none running */
    int cmd_fd, msg_fd, err_fd;
    int started;                /* processes started so far */
} sp_worker;

/* Run one combination in w's worker, starting one (fork, fn(arg, ...) in
 * the child) when none runs; the outcome as sp_child_run gives it. A
 * timeout, a second interrupt, a death or a report other than ok/skipped
 * ends the worker (w->pid = 0). -1 only when no worker could be started. */
int sp_worker_run(sp_worker *w, sp_worker_fn fn, void *arg, const void *cmd, size_t len,
                  double timeout_s, const volatile sig_atomic_t *stop, sp_child_outcome *out,
                  sp_err *err);
/* Let the worker go (it reads end of file and exits) and reap it. */
void sp_worker_stop(sp_worker *w);

/* ---- the GPU keeper (runner/isolate/keeper.c) -------------------------------
 * A child that holds one idle CUDA context for the length of a sweep with
 * GPU kernels, so the driver keeps the device set up between combination
 * children. Start: only when have_gpu and the plan has GPU kernels and
 * SPSWEEP_GPU_KEEPER is not 0; waits until the context exists. */
typedef struct sp_gpu_keeper {
    pid_t pid;                  /* -1: none */
    int fd;
    int ready;
} sp_gpu_keeper;
void sp_gpu_keeper_start(const sp_plan *plan, int have_gpu, sp_gpu_keeper *k);
/* The same in two steps, so the keeper's context is created while the
 * sweep probes the GPU in another child (two contexts at once rather than
 * one after the other: 0.4-0.7 s a sweep on an H200, more when several
 * shards start together): fork the keeper (when the plan has GPU kernels
 * and SPSWEEP_GPU_KEEPER is not 0), then await its context, or drop it
 * when the probe found no GPU. */
void sp_gpu_keeper_fork(const sp_plan *plan, sp_gpu_keeper *k);
void sp_gpu_keeper_await(sp_gpu_keeper *k, int have_gpu);
void sp_gpu_keeper_stop(sp_gpu_keeper *k);

#endif
