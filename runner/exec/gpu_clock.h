/*
 * gpu_clock.h — the harness's GPU clock (runner/exec/gpu_clock.cu; in CPU-only
 * builds runner/exec/gpu_clock_none.c refuses): the stream every GPU kernel
 * launch goes on, the two CUDA events a sample is timed between, and the
 * buffer that flushes the L2 cache before a cold sample.
 *
 * The stream is a blocking one (cudaStreamCreate's default): work a kernel
 * leaves on the legacy default stream is still ordered between the events,
 * so a launch that forgets ex->stream is timed right, only not overlapped.
 */
#ifndef SP_GPU_CLOCK_H
#define SP_GPU_CLOCK_H

#include "../../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_gpu_clock sp_gpu_clock;

/* Stream, events, and (flush_l2) a buffer the size of the L2 cache, on the
 * current device of the calling process. -1 with the reason. */
int sp_gpu_clock_open(sp_gpu_clock **c, int flush_l2, sp_err *err);
/* The cudaStream_t, as sp_exec.stream wants it. */
void *sp_gpu_clock_stream(const sp_gpu_clock *c);
/* Record the start event on the stream. */
int sp_gpu_clock_start(sp_gpu_clock *c, sp_err *err);
/* Record the stop event, wait for it, *seconds = stop - start. A launch
 * error of the work in between surfaces here, with CUDA's message. */
int sp_gpu_clock_stop(sp_gpu_clock *c, double *seconds, sp_err *err);
/* Most step marks one sample may hold (sp_exec_mark, `steps = 1`). */
#define SP_GPU_CLOCK_MARKS 16
/* Record mark event i (0 .. SP_GPU_CLOCK_MARKS-1) on the stream, between
 * the start and the stop; its events are created on first use. */
int sp_gpu_clock_mark(sp_gpu_clock *c, int i, sp_err *err);
/* Seconds from the start event to mark i, after sp_gpu_clock_stop. */
int sp_gpu_clock_mark_elapsed(sp_gpu_clock *c, int i, double *seconds, sp_err *err);
/* Wait for everything on the stream (a warm-up launch, a reset). */
int sp_gpu_clock_sync(sp_gpu_clock *c, sp_err *err);
/* Wait for the whole device (every stream, the legacy default one
 * included): the edges of a timed phase (upload, result, release), where a
 * kernel may have used cudaMemcpy or a library's own stream. */
int sp_gpu_clock_device_sync(sp_gpu_clock *c, sp_err *err);
/* Overwrite the L2 cache (a memset of the flush buffer on the stream, as
 * nvbench does) and wait: the next sample starts cold. */
int sp_gpu_clock_flush(sp_gpu_clock *c, sp_err *err);
/* The blocking kernel (nvbench's): one thread on the stream that holds
 * everything behind it until the clock's stop, so a sample's launches are
 * all queued before the first of them runs, and the time between the two
 * events is the GPU's work alone rather than the rate the host can issue
 * it (a library call that spends tens of microseconds on the host between
 * its kernels is then timed as its kernels). Call before
 * sp_gpu_clock_start; sp_gpu_clock_stop lets it go once the stop event is
 * recorded. It gives up by itself after timeout_s: a launch that waits for
 * the device (a synchronising call inside it, or more launches than the
 * device's queue takes) would otherwise wait for the block forever. */
int sp_gpu_clock_block(sp_gpu_clock *c, double timeout_s, sp_err *err);
/* Let a blocking kernel go now (an error between the block and the stop:
 * nothing of the sample will be read); a no-op when none is waiting. */
void sp_gpu_clock_unblock(sp_gpu_clock *c);
/* After sp_gpu_clock_stop of a blocked sample: 1 when the blocking kernel
 * gave up before the host let it go (the sample's time then holds the
 * host's issue rate again, and part of the timeout), else 0. */
int sp_gpu_clock_block_gave_up(const sp_gpu_clock *c);
/* Enqueue on stream a kernel of known length: one thread spinning on the
 * GPU's global timer (%globaltimer, nanoseconds) for `seconds`. The
 * harness's own check (tests/gpu/test_gpu_harness.c): a spin measured
 * as its length one launch a sample and batched. -1 with the reason. */
int sp_gpu_spin(void *stream, double seconds, sp_err *err);
/* Hand the work queued on stream to the GPU now (cudaStreamQuery), as a
 * library call that polls its stream does. Without it the driver may hold
 * launches back and submit them later in one go: on the H200 (driver
 * 13.0) 40 launches that each spent 40 us on the host first still ran
 * back to back, 4.5 us apart. The harness's tests use it to make a launch
 * truly host-bound. -1 with the reason when the stream holds an error. */
int sp_gpu_stream_submit(void *stream, sp_err *err);
/* The PCI bus id of the clock's device ("0000:3b:00.0"), the name NVML
 * knows it by whatever CUDA_VISIBLE_DEVICES says; -1 when unknown. */
int sp_gpu_clock_bus_id(const sp_gpu_clock *c, char *buf, int len);
/* The L2 size in bytes the flush covers (0 without a flush buffer). */
size_t sp_gpu_clock_l2_bytes(const sp_gpu_clock *c);
void sp_gpu_clock_close(sp_gpu_clock *c);

#ifdef __cplusplus
}
#endif
#endif
