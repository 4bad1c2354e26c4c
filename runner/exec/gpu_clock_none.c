/*
 * gpu_clock_none.c — the GPU clock of a CPU-only build: there is no device
 * to time, so opening it fails with the reason (GPU kernels are skipped
 * before they get here; this keeps the harness linkable). In CUDA builds
 * runner/exec/gpu_clock.cu defines these functions instead.
 */
#ifndef SP_HAVE_CUDA
#include "gpu_clock.h"

int sp_gpu_clock_open(sp_gpu_clock **c, int flush_l2, sp_err *err)
{
    (void)flush_l2;
    *c = NULL;
    return sp_fail(err, "GPU clock: spsweep was built without CUDA");
}

void *sp_gpu_clock_stream(const sp_gpu_clock *c)
{
    (void)c;
    return NULL;
}

static int none(sp_err *err)
{
    return sp_fail(err, "GPU clock: spsweep was built without CUDA");
}

int sp_gpu_clock_start(sp_gpu_clock *c, sp_err *err)
{
    (void)c;
    return none(err);
}

int sp_gpu_clock_stop(sp_gpu_clock *c, double *seconds, sp_err *err)
{
    (void)c, (void)seconds;
    return none(err);
}

int sp_gpu_clock_mark(sp_gpu_clock *c, int i, sp_err *err)
{
    (void)c, (void)i;
    return none(err);
}

int sp_gpu_clock_mark_elapsed(sp_gpu_clock *c, int i, double *seconds, sp_err *err)
{
    (void)c, (void)i, (void)seconds;
    return none(err);
}

int sp_gpu_clock_sync(sp_gpu_clock *c, sp_err *err)
{
    (void)c;
    return none(err);
}

int sp_gpu_clock_device_sync(sp_gpu_clock *c, sp_err *err)
{
    (void)c;
    return none(err);
}

int sp_gpu_clock_flush(sp_gpu_clock *c, sp_err *err)
{
    (void)c;
    return none(err);
}

int sp_gpu_clock_block(sp_gpu_clock *c, double timeout_s, sp_err *err)
{
    (void)c, (void)timeout_s;
    return none(err);
}

void sp_gpu_clock_unblock(sp_gpu_clock *c)
{
    (void)c;
}

int sp_gpu_clock_block_gave_up(const sp_gpu_clock *c)
{
    (void)c;
    return 0;
}

int sp_gpu_spin(void *stream, double seconds, sp_err *err)
{
    (void)stream, (void)seconds;
    return none(err);
}

int sp_gpu_stream_submit(void *stream, sp_err *err)
{
    (void)stream;
    return none(err);
}

int sp_gpu_clock_bus_id(const sp_gpu_clock *c, char *buf, int len)
{
    (void)c, (void)buf, (void)len;
    return -1;
}

size_t sp_gpu_clock_l2_bytes(const sp_gpu_clock *c)
{
    (void)c;
    return 0;
}

void sp_gpu_clock_close(sp_gpu_clock *c)
{
    (void)c;
}
#else
/* ISO C forbids an empty translation unit. */
typedef int sp_gpu_clock_none_unused;
#endif
