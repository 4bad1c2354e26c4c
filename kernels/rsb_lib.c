/*
 * rsb_lib.c — librsb's process-wide state and threads for its kernels
 * (rsb_lib.h).
 *
 * librsb keeps process-wide state. rsb_lib_init runs lazily, in the first
 * prepare of each process: the pid that initialised it is recorded, so a
 * child forked from an initialised parent initialises again instead of
 * trusting the copy, and rsb_lib_exit runs at the exit of the process that
 * initialised. (libgomp itself is not fork-safe: a child forked after its
 * parent ran a parallel region with more than one thread hangs in its own
 * first parallel region — the runner must fork before any OpenMP work.)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rsb_lib.h"

static pid_t rsb_ready_pid;     /* the process whose librsb is initialised; 0: none */

static void rsb_at_exit(void)
{
    if (rsb_ready_pid == getpid())
        rsb_lib_exit(RSB_NULL_EXIT_OPTIONS);
}

int sp_rsb_fail(sp_err *err, const char *who, rsb_err_t e, const char *what)
{
    char msg[256] = "";
    rsb_strerror_r(e, msg, sizeof msg);
    return sp_fail(err, "%s: %s: %s (error 0x%x)", who, what, msg, (unsigned)e);
}

int sp_rsb_ready(const char *who, sp_err *err)
{
    if (rsb_ready_pid == getpid())
        return 0;
    int first = rsb_ready_pid == 0;     /* a forked child inherits the atexit */
    rsb_err_t e = rsb_lib_init(RSB_NULL_INIT_OPTIONS);
    if (e != RSB_ERR_NO_ERROR)
        return sp_rsb_fail(err, who, e, "rsb_lib_init");
    if (first && atexit(rsb_at_exit))
        return sp_fail(err, "%s: atexit failed", who);
    rsb_ready_pid = getpid();
    return 0;
}

/* A baseline on fewer threads than its axis says would flatter every ratio
 * against it: librsb's count is read back (a build without OpenMP keeps
 * one), and OpenMP's limit checked, which librsb 1.3 accepts counts above
 * without a word. */
int sp_rsb_threads(const char *who, int threads, sp_err *err)
{
    rsb_int_t t = threads, got = 0;
    rsb_err_t e = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &t);
    if (e != RSB_ERR_NO_ERROR)
        return sp_rsb_fail(err, who, e, "RSB_IO_WANT_EXECUTING_THREADS");
    e = rsb_lib_get_opt(RSB_IO_WANT_EXECUTING_THREADS, &got);
    if (e != RSB_ERR_NO_ERROR)
        return sp_rsb_fail(err, who, e, "reading RSB_IO_WANT_EXECUTING_THREADS");
    if (got != threads)
        return sp_fail(err, "%s: threads = %d asked, librsb runs %d", who, threads, (int)got);
    int limit = omp_get_thread_limit();
    if (limit < threads)
        return sp_fail(err, "%s: threads = %d asked, OMP_THREAD_LIMIT allows %d", who, threads,
                       limit);
    return 0;
}

int sp_rsb_threads_now(void)
{
    rsb_int_t t = 0;
    return rsb_lib_get_opt(RSB_IO_WANT_EXECUTING_THREADS, &t) == RSB_ERR_NO_ERROR ? (int)t : -1;
}
