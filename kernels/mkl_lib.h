/*
 * mkl_lib.h — what the Intel MKL kernels (spmv_mkl, transpose_mkl) share:
 * MKL's version and threading layer, for each run's info and the sweep's
 * provenance; MKL's threads set from the `threads` axis and read back; its
 * sparse status codes in words. MKL is optional (the Makefile builds it in
 * when `make deps-mkl` installed it: SP_HAVE_MKL); without it the
 * description is empty and the kernels are "not built" (kernel.h).
 */
#ifndef SP_MKL_LIB_H
#define SP_MKL_LIB_H

#include <stddef.h>

#include "kernel.h"

/* "MKL 2026.2-Product Build 20260915, threading gnu": the MKL this binary
 * runs (mkl_get_version_string) and its threading layer; "" when built
 * without MKL. For the sweep's provenance. */
void sp_mkl_describe(char *buf, size_t len);

#ifdef SP_HAVE_MKL
#include <mkl.h>

/* MKL's version, "2026.2-Product Build 20260915" (the words of
 * mkl_get_version_string between "Version " and " for"). */
void sp_mkl_version(char *buf, size_t len);
/* The threading layer MKL runs in this process, from the libraries
 * loaded: "gnu" (libmkl_gnu_thread: libgomp's threads), "intel"
 * (libiomp5), "tbb", "sequential", or "unknown". */
const char *sp_mkl_threading(void);
/* MKL's threads for the calling thread: `threads` through
 * mkl_set_num_threads_local, with MKL's dynamic adjustment off (it would
 * otherwise take fewer where it judges a problem small), read back with
 * mkl_get_max_threads; -1 with the reason, naming `who`, when the count is
 * not in effect (OMP_THREAD_LIMIT). */
int sp_mkl_threads(const char *who, int threads, sp_err *err);
/* The calling thread back to MKL's global thread count (release). */
void sp_mkl_threads_reset(void);
/* -1 with "who: what: <MKL's status in words>". */
int sp_mkl_fail(sp_err *err, const char *who, const char *what, sparse_status_t st);
/* A run's info: {"mkl":..., "threading":..., "threads":N (in effect now),
 * "precision":..., "empty":0|1, then `extra` (",\"key\":value..." or "")}. */
int sp_mkl_info(char *json, size_t len, sp_precision prec, int empty, const char *extra);
#endif

#endif
