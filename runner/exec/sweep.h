/*
 * sweep.h — runner/exec/'s header: run a sweep (the executor,
 * runner/exec/sweep.c), its fetch step (prefetch.c), and what a sweep
 * records about the machine and the build (provenance.c, stream.c). The
 * executor's inner files share sweep_ctx.h; the measuring child is
 * measure.h, the clock harness.h. Includes runner/plan/ and
 * runner/isolate/ only among the wings.
 */
#ifndef SP_SWEEP_H
#define SP_SWEEP_H

#include <stdio.h>
#include "../plan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- executor (runner/exec/sweep.c) -------------------------------------- */
typedef struct sp_sweep_result {
    int64_t sweep_id;
    /* what this invocation ran */
    int runs, ok, failed, skipped, errors, matrix_errors;
    int crashed, timeouts;
    int workers;                /* worker processes started (isolate.h) */
    /* the whole sweep as stored when it completed, runs of the earlier
     * invocations it resumed included: what its exit status is decided on */
    sp_sweep_tally sweep;
} sp_sweep_result;

/* The line a sweep ends its log with (runner/exec/sweep.c say_timing), read
 * back by `sweep --gpus` (runner/scale/gpus.c): seconds of machine record,
 * sweep record, runs, closing. */
#define SP_SWEEP_TIMING_FMT                                                              \
    "timing: machine record %.3f s, sweep record %.3f s, runs %.3f s, closing %.3f s"
#define SP_SWEEP_TIMING_SCAN                                                             \
    "timing: machine record %lf s, sweep record %lf s, runs %lf s, closing %lf s"

/* Run the whole sweep into cfg->database. Returns 0 when the sweep
 * completed (individual runs may have failed: see res->sweep), -1 when it
 * could not run at all, could not write its database or was interrupted. */
int sp_sweep_run(const sp_config *cfg, const sp_sweep_opts *o, sp_sweep_result *res,
                 sp_err *err);

/* ---- fetch step (runner/exec/prefetch.c) --------------------------------- */
typedef struct sp_prefetch_opts {
    int resolve_only;           /* expand select and resolve names, fetch nothing */
    int quiet;
    FILE *log;                  /* NULL: stderr */
} sp_prefetch_opts;

/* Before a sweep: turn the config's select into suitesparse: sources,
 * resolve group-less names against the index, fetch every missing
 * SuiteSparse matrix. A source that cannot be had gets its reason in
 * src->unavailable (the sweep records it as skipped and goes on). -1 only
 * when the step itself cannot run (e.g. out of memory). */
int sp_sweep_prefetch(sp_config *cfg, const sp_prefetch_opts *po, sp_err *err);

/* ---- provenance (runner/exec/provenance.c) ------------------------------- */
typedef struct sp_provenance {
    char git_commit[64];
    char host[256];
    char cpu[256];
    int cpu_count;
    char compiler[128];
    char cflags[256];
    char omp_binding[384];
    int have_gpu;
    char gpu[256];
    char gpu_driver[32];
    char cuda_runtime[32];
    char gpu_reason[512];       /* why no GPU, when have_gpu is 0, in plain words */
    char gpu_detail[256];       /* and CUDA's raw message (stored with skipped runs) */
    int git_dirty;              /* -1 unknown */
    char os[128];               /* PRETTY_NAME of /etc/os-release */
    char kernel_release[128];   /* "Linux 6.1.0-18-amd64" */
    int cpu_sockets, cpu_cores, cpu_threads;
    double mem_total_gib;
    sp_gpu_info gpu_info;       /* when have_gpu */
    char libraries[384];        /* sp_kernel_libraries: librsb, MKL and its threading */
} sp_provenance;

void sp_provenance_collect(sp_provenance *p);
/* The commit spsweep was built from (12 hex digits, or "unknown" outside a
 * git checkout) and whether its source tree differed from it (1, 0; -1
 * unknown): $(BUILD)/version.c, written by the Makefile. */
extern const char sp_build_commit[];
extern const int sp_build_dirty;
/* What `spsweep --version` calls this build: `git describe --always --tags
 * --abbrev=12` of the source tree at build time, "-dirty" as above; ""
 * outside a git checkout, where SP_VERSION names it instead. */
extern const char sp_build_describe[];
#define SP_VERSION "0.1.0"
/* sp_build_commit, "-dirty" appended when sp_build_dirty is 1. */
void sp_build_version(char *buf, size_t len);
/* STREAM triad a = b + s·c with OpenMP on `threads` threads: GB/s (24
 * bytes per element), best of a few passes over arrays far larger than
 * the caches; ~0.2 s (runner/exec/stream.c). */
double sp_stream_triad(int threads);
/* The host's cache roof: the same triad on three arrays in half the
 * last-level cache (*cache_bytes, from sysconf; 0 unknown, and then 0 GB/s),
 * about 64 MiB moved a pass, best of the passes. */
double sp_cache_triad(int threads, uint64_t *cache_bytes);

#ifdef __cplusplus
}
#endif
#endif
