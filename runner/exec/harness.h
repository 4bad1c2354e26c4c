/*
 * harness.h — the clock every sample is taken with (runner/exec/harness.c).
 * Kernels enqueue work (sp_kernel.launch); the harness owns what makes it
 * a measurement: the stream and the CUDA events for GPU kernels,
 * CLOCK_MONOTONIC for CPU kernels, batches of back-to-back launches timed
 * as one sample, and the cache flush before a cold sample. The runner's
 * measuring child (measure.c) and the tests drive kernels through it, so a
 * kernel is timed the same way wherever it runs.
 */
#ifndef SP_HARNESS_H
#define SP_HARNESS_H

#include "../../kernels/kernel.h"
#include "../plan/limits.h"     /* SP_BATCH_MAX */
#include "gpu_clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most named steps one launch may mark (sp_exec_mark). */
#define SP_MAX_STEPS 16
#ifndef __cplusplus
_Static_assert(SP_MAX_STEPS <= SP_GPU_CLOCK_MARKS, "a GPU event per step mark");
#endif

/* The steps of one sample, in the order first marked: each one's time
 * from its mark to the next (the first from the sample's start, the last
 * to its end), a name marked twice summed; they add up to the sample. */
typedef struct sp_steps {
    int n;
    const char *name[SP_MAX_STEPS];     /* the kernel's string literals */
    double seconds[SP_MAX_STEPS];
} sp_steps;

/* `blocking = on` (a harness axis, kernel.h SP_AXIS_BLOCKING): how a GPU
 * run's samples were taken. OFF: each sample's launches run as the host
 * issues them (the default, and every CPU run). ON: behind the blocking
 * kernel (gpu_clock.h), so a sample times the GPU's work alone.
 * TIMEOUT: asked for, but the blocking kernel gave up before a sample
 * was issued (the launch waits for the device itself); that sample was
 * taken again and the rest of the run went without it, as do the later
 * runs of that kernel in the same process (a worker's other combinations:
 * it waits for the device whatever its axes). */
typedef enum sp_blocking {
    SP_BLOCKING_OFF = 0,
    SP_BLOCKING_ON = 1,
    SP_BLOCKING_TIMEOUT = 2
} sp_blocking;
/* The database's name of each ("off", "on", "timeout"). */
const char *sp_blocking_name(sp_blocking b);
/* How long the blocking kernel holds a stream before it gives up: far
 * longer than a sample takes to issue (a batch fills min_sample_time of
 * GPU work, 0.5 ms by default, so its launches are issued in well under
 * 50 ms unless each spends a tenth of a millisecond on the host; such a
 * sample is only taken again unblocked), short enough that a kernel that
 * synchronises costs little: once a process, as sp_harness_sample
 * remembers it. */
#define SP_BLOCKING_TIMEOUT_S 0.05

typedef struct sp_harness {
    const sp_kernel *k;
    int gpu;                /* k->needs_gpu: timed on the GPU clock */
    int cold;               /* flush caches before every sample */
    /* sp_blocking: ON asks for the blocking kernel before every sample of
     * a GPU kernel (set after sp_harness_open; ignored on the CPU);
     * sp_harness_sample turns it into TIMEOUT when the kernel gave up */
    sp_blocking blocking;
    int threads;            /* CPU flush threads (the combination's) */
    sp_gpu_clock *clock;    /* GPU kernels */
    uint64_t *flush;        /* CPU cold samples: a buffer twice the last-level cache */
    size_t flush_words;
    sp_exec ex;             /* what every launch gets */
    /* Called with each step's name as it starts ("prepare", "upload",
     * "analyse", "result", "release"), so a crash can be told apart by
     * stage (runner/exec/measure.c reports them to the parent); may be NULL. */
    void (*on_stage)(void *ctx, const char *step);
    void *stage_ctx;
    /* `steps = 1` (sp_harness_time_steps): the marks of the sample in
     * progress, and after sp_harness_sample the sample's steps. */
    int timing_steps;
    int in_sample, nmarks, mark_failed;
    const char *mark_name[SP_MAX_STEPS];
    double mark_t[SP_MAX_STEPS];        /* CPU: the clock at each mark */
    sp_err mark_err;
    sp_steps steps;
} sp_harness;

/* Set h up for kernel k: the GPU clock (stream, events, and with cold an
 * L2-sized flush buffer) for a GPU kernel, the flush buffer for a cold CPU
 * one. threads: the CPU flush's (<= 0: all). -1 with the reason. */
int sp_harness_open(sp_harness *h, const sp_kernel *k, int cold, int threads, sp_err *err);
void sp_harness_close(sp_harness *h);

/* The phases, each timed by the harness's wall clock (sp_seconds) and,
 * for a GPU kernel, from a synchronized device to a synchronized device:
 *   sp_harness_prepare   k->prepare (convert_s), k->upload (h2d_s),
 *                        k->analyse (added to convert_s); a GPU kernel
 *                        without an upload is refused. On failure *state
 *                        may be set: sp_harness_release frees it.
 *   sp_harness_result    k->result into out (d2h_s for a GPU kernel)
 *   sp_harness_release   k->release (free_s; state may be NULL)
 * ph is added to, never cleared. */
int sp_harness_prepare(sp_harness *h, const sp_problem *pb, const sp_params *p, void **state,
                       sp_phases *ph, sp_err *err);
int sp_harness_result(sp_harness *h, void *state, void *out, sp_phases *ph, sp_err *err);
void sp_harness_release(sp_harness *h, void *state, sp_phases *ph);

/* One untimed launch (a warm-up), reset first when the kernel has one,
 * waited for. */
int sp_harness_launch(sp_harness *h, void *state, sp_err *err);

/* One sample: flush (cold), reset (when the kernel has one), the blocking
 * kernel (blocking ON, GPU), then `batch` launches back to back between
 * the clock's two readings; *seconds = the whole batch's time / batch,
 * the time of one launch. */
int sp_harness_sample(sp_harness *h, void *state, int batch, double *seconds, sp_err *err);

/* Time the kernel's steps from now on: every launch gets ex.mark, each
 * sp_exec_mark inside a sample reads the harness's clock (a CUDA event on
 * its stream for a GPU kernel, recorded in stream order between the
 * sample's two events), and sp_harness_sample fills h->steps. Samples are
 * then one launch each (sp_harness_batch gives 1, a larger batch is
 * refused): a step's time is one launch's. Marks outside a sample (warm-up)
 * are ignored. h must stay where it is: ex.mark_ctx points to it. */
void sp_harness_time_steps(sp_harness *h);

/* Launches per sample so that one sample lasts at least min_sample_s: 1
 * for a cold run, a kernel with a reset (each launch needs its own
 * flush or reset) or timed steps; otherwise measured: one launch, then the batch that
 * should fill min_sample_s, checked once and grown if it fell short. */
int sp_harness_batch(sp_harness *h, void *state, double min_sample_s, int *batch, sp_err *err);

/* The CPU clock samples are read with: sp_seconds. Tests replace it with a
 * clock of their own (before a sweep forks its children) to give a kernel
 * an exact, made-up duration. */
extern double (*sp_harness_cpu_clock)(void);

/* Bytes of the last-level cache(s) of this machine, all of them: the size
 * of the CPU flush is twice this (at least 64 MiB). */
size_t sp_llc_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
