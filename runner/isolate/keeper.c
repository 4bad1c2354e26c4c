/*
 * keeper.c — keep the GPU warm for the sweep's workers and combination
 * children without giving up their isolation (isolate.h).
 *
 * GPU combinations run in a worker per matrix (worker.c), or with
 * `isolate = combination` each in a fresh child; every worker or child
 * creates its own CUDA context. What a fresh context costs depends on
 * whether the driver still holds the device's state: without persistence
 * mode, the driver tears the device down when its last client closes it
 * and sets it up again for the next one, which every child then pays for
 * (with it, a fresh context still costs 164 ms with the keeper against
 * 425 ms without on an H200, bench/RESULTS.md). The keeper is
 * one more child, forked at the start of a sweep that has GPU kernels,
 * that creates a context and holds it, idle, until the sweep ends (or
 * dies: it dies with its parent). It launches nothing, so it never
 * competes with the timed kernels; it takes one context's device memory,
 * which the memory guard sees like any other use. The parent still never
 * touches CUDA. SPSWEEP_GPU_KEEPER=0 turns it off (bench/ctx_cost.c
 * measures both ways).
 *
 * Also here: CUDA_MODULE_LOADING=LAZY unless the environment says
 * otherwise, so that a child loads only the kernels it launches (the
 * default since CUDA 12.2; said explicitly for older runtimes).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolate.h"

/* How long the sweep waits for the keeper's context before going on. */
#define READY_TIMEOUT_MS 60000

/* The keeper: a context, then wait for the sweep to hang up. */
static void keeper_main(int fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    signal(SIGINT, SIG_IGN);            /* the sweep decides when to stop */
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO), dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
    }
    for (int f = 3; f < 1024; f++)      /* not the database, not anyone's pipes */
        if (f != fd)
            close(f);
    uint64_t avail, total;
    char why[256];
    char ok = sp_gpu_mem_here(&avail, &total, why, sizeof why) == 0 ? 1 : 0;
    if (write(fd, &ok, 1) != 1 || !ok)
        _exit(0);
    char c;
    while (read(fd, &c, 1) != 0 && errno == EINTR) {
    }
    _exit(0);
}

/* Does the plan hold a kernel that runs on the GPU? */
static int plan_needs_gpu(const sp_plan *plan)
{
    for (int i = 0; i < plan->ncombos; i++)
        if (plan->combos[i].kernel->needs_gpu)
            return 1;
    return 0;
}

void sp_gpu_keeper_fork(const sp_plan *plan, sp_gpu_keeper *k)
{
    k->pid = -1, k->fd = -1, k->ready = 0;
    const char *env = getenv("SPSWEEP_GPU_KEEPER");
    if (!plan_needs_gpu(plan) || (env && !strcmp(env, "0")))
        return;
    setenv("CUDA_MODULE_LOADING", "LAZY", 0);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return;
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        close(sv[0]);
        keeper_main(sv[1], parent);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return;
    }
    k->pid = pid, k->fd = sv[0];
}

void sp_gpu_keeper_await(sp_gpu_keeper *k, int have_gpu)
{
    if (k->pid <= 0)
        return;
    struct pollfd p = {k->fd, POLLIN, 0};
    char ok = 0;
    while (have_gpu && poll(&p, 1, READY_TIMEOUT_MS) < 0 && errno == EINTR) {
    }
    if (have_gpu && (p.revents & POLLIN) && read(k->fd, &ok, 1) == 1)
        k->ready = ok;
    if (!k->ready) {                    /* no context (in time): nothing to keep */
        kill(k->pid, SIGKILL);
        sp_gpu_keeper_stop(k);
    }
}

void sp_gpu_keeper_start(const sp_plan *plan, int have_gpu, sp_gpu_keeper *k)
{
    k->pid = -1, k->fd = -1, k->ready = 0;
    if (!have_gpu)
        return;
    sp_gpu_keeper_fork(plan, k);
    sp_gpu_keeper_await(k, have_gpu);
}

void sp_gpu_keeper_stop(sp_gpu_keeper *k)
{
    if (k->pid <= 0)
        return;
    close(k->fd);                       /* the keeper reads end of file and leaves */
    int st;
    while (waitpid(k->pid, &st, 0) < 0 && errno == EINTR) {
    }
    k->pid = -1, k->fd = -1;
}
