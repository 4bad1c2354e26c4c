/*
 * rsb_lib.h — what the librsb kernels (spmv_librsb, transpose_librsb)
 * share: librsb initialised once per process (lazily, in the first
 * prepare; again in a child forked from an initialised parent), librsb's
 * threads set from the `threads` axis and checked in effect, its error
 * codes in words.
 */
#ifndef SP_RSB_LIB_H
#define SP_RSB_LIB_H

#include <rsb.h>

#include "kernel.h"

/* rsb_lib_init once per process, rsb_lib_exit at the exit of the process
 * that initialised it; -1 with the reason, naming `who`. */
int sp_rsb_ready(const char *who, sp_err *err);
/* librsb's threads: `threads` through RSB_IO_WANT_EXECUTING_THREADS, read
 * back, and within OpenMP's thread limit (librsb's parallel regions are
 * libgomp's, which OMP_THREAD_LIMIT caps whatever librsb was told); -1
 * with the reason, naming `who`, when the count is not in effect. */
int sp_rsb_threads(const char *who, int threads, sp_err *err);
/* The thread count librsb runs now (RSB_IO_WANT_EXECUTING_THREADS), -1
 * when librsb cannot say. */
int sp_rsb_threads_now(void);
/* -1 with "who: what: <librsb's message> (error 0x..)". */
int sp_rsb_fail(sp_err *err, const char *who, rsb_err_t e, const char *what);

#endif
