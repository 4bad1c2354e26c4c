/*
 * gpu_clock.cu — the harness's GPU clock (gpu_clock.h): one blocking
 * stream, two events, an L2-sized flush buffer.
 */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "gpu_clock.h"

struct sp_gpu_clock {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    cudaEvent_t mark[SP_GPU_CLOCK_MARKS];   /* step marks, created on first use */
    void *flush;
    size_t flush_bytes;
    /* the blocking kernel's two words in mapped host memory: [0] the host
     * lets it go, [1] it gave up (timed out); allocated on first use */
    volatile int *gate, *gate_dev;
    int blocked;                /* a blocking kernel is waiting on the stream */
};

/* -1 with "what: CUDA's message" when e is an error. */
static int cuda_ok(cudaError_t e, const char *what, sp_err *err)
{
    return e == cudaSuccess ? 0 : sp_fail(err, "%s: %s", what, cudaGetErrorString(e));
}

/* One thread waits until the global timer has moved ns past its start. */
__global__ void gpu_spin_kernel(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

/* Hold the stream until the host sets gate[0], or until ns have passed
 * on the global timer: then say so in gate[1] and let the stream go. */
__global__ void gpu_block_kernel(volatile int *gate, unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (!gate[0]) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 >= ns) {
            gate[1] = 1;
            break;
        }
    }
}

extern "C" int sp_gpu_clock_block(sp_gpu_clock *c, double timeout_s, sp_err *err)
{
    if (!(timeout_s > 0) || timeout_s > 60)
        return sp_fail(err, "GPU clock: blocking kernel timeout %g s outside (0, 60]", timeout_s);
    if (!c->gate) {
        void *p = NULL, *d = NULL;
        if (cuda_ok(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped),
                    "GPU clock: the blocking kernel's flag", err))
            return -1;
        if (cuda_ok(cudaHostGetDevicePointer(&d, p, 0), "GPU clock: the blocking kernel's flag",
                    err)) {
            cudaFreeHost(p);
            return -1;
        }
        c->gate = (volatile int *)p, c->gate_dev = (volatile int *)d;
    }
    c->gate[0] = 0, c->gate[1] = 0;
    __sync_synchronize();
    gpu_block_kernel<<<1, 1, 0, c->stream>>>(c->gate_dev,
                                             (unsigned long long)(timeout_s * 1e9));
    if (cuda_ok(cudaGetLastError(), "GPU clock: the blocking kernel", err))
        return -1;
    c->blocked = 1;
    return 0;
}

extern "C" void sp_gpu_clock_unblock(sp_gpu_clock *c)
{
    if (!c || !c->blocked)
        return;
    __sync_synchronize();   /* everything before it is issued first */
    c->gate[0] = 1;
    c->blocked = 0;
}

extern "C" int sp_gpu_clock_block_gave_up(const sp_gpu_clock *c)
{
    return c && c->gate && c->gate[1];
}

extern "C" int sp_gpu_spin(void *stream, double seconds, sp_err *err)
{
    if (!(seconds >= 0) || seconds > 10)
        return sp_fail(err, "GPU spin: %g s outside 0..10", seconds);
    gpu_spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>((unsigned long long)(seconds * 1e9));
    return cuda_ok(cudaGetLastError(), "GPU spin: launch", err);
}

extern "C" int sp_gpu_clock_open(sp_gpu_clock **out, int flush_l2, sp_err *err)
{
    *out = NULL;
    sp_gpu_clock *c = (sp_gpu_clock *)calloc(1, sizeof *c);
    if (!c)
        return sp_fail(err, "GPU clock: out of memory");
    int dev = 0, l2 = 0;
    if (cuda_ok(cudaStreamCreate(&c->stream), "GPU clock: cudaStreamCreate", err) ||
        cuda_ok(cudaEventCreate(&c->start), "GPU clock: cudaEventCreate", err) ||
        cuda_ok(cudaEventCreate(&c->stop), "GPU clock: cudaEventCreate", err) ||
        cuda_ok(cudaGetDevice(&dev), "GPU clock: cudaGetDevice", err) ||
        cuda_ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev),
                "GPU clock: the L2 size", err)) {
        sp_gpu_clock_close(c);
        return -1;
    }
    if (flush_l2 && l2 > 0) {
        c->flush_bytes = (size_t)l2;
        if (cuda_ok(cudaMalloc(&c->flush, c->flush_bytes), "GPU clock: the L2 flush buffer",
                    err)) {
            sp_gpu_clock_close(c);
            return -1;
        }
    }
    *out = c;
    return 0;
}

extern "C" void *sp_gpu_clock_stream(const sp_gpu_clock *c)
{
    return c ? (void *)c->stream : NULL;
}

extern "C" int sp_gpu_clock_start(sp_gpu_clock *c, sp_err *err)
{
    return cuda_ok(cudaEventRecord(c->start, c->stream), "GPU clock: start event", err);
}

extern "C" int sp_gpu_clock_stop(sp_gpu_clock *c, double *seconds, sp_err *err)
{
    float ms = 0;
    cudaError_t rec = cudaEventRecord(c->stop, c->stream);
    sp_gpu_clock_unblock(c);    /* the whole sample is queued: let it run */
    if (cuda_ok(rec, "GPU clock: stop event", err) ||
        cuda_ok(cudaEventSynchronize(c->stop), "GPU clock: the timed launches", err) ||
        cuda_ok(cudaEventElapsedTime(&ms, c->start, c->stop), "GPU clock: elapsed time", err))
        return -1;
    *seconds = 1e-3 * (double)ms;
    return 0;
}

extern "C" int sp_gpu_clock_mark(sp_gpu_clock *c, int i, sp_err *err)
{
    if (i < 0 || i >= SP_GPU_CLOCK_MARKS)
        return sp_fail(err, "GPU clock: step mark %d outside 0..%d", i, SP_GPU_CLOCK_MARKS - 1);
    if (!c->mark[i] &&
        cuda_ok(cudaEventCreate(&c->mark[i]), "GPU clock: cudaEventCreate (step mark)", err))
        return -1;
    return cuda_ok(cudaEventRecord(c->mark[i], c->stream), "GPU clock: step mark", err);
}

extern "C" int sp_gpu_clock_mark_elapsed(sp_gpu_clock *c, int i, double *seconds, sp_err *err)
{
    float ms = 0;
    if (i < 0 || i >= SP_GPU_CLOCK_MARKS || !c->mark[i])
        return sp_fail(err, "GPU clock: step mark %d was not recorded", i);
    if (cuda_ok(cudaEventElapsedTime(&ms, c->start, c->mark[i]), "GPU clock: step time", err))
        return -1;
    *seconds = 1e-3 * (double)ms;
    return 0;
}

extern "C" int sp_gpu_clock_sync(sp_gpu_clock *c, sp_err *err)
{
    return cuda_ok(cudaStreamSynchronize(c->stream), "GPU clock: the untimed launches", err);
}

extern "C" int sp_gpu_clock_device_sync(sp_gpu_clock *c, sp_err *err)
{
    (void)c;
    return cuda_ok(cudaDeviceSynchronize(), "GPU clock: waiting for the device", err);
}

extern "C" int sp_gpu_clock_flush(sp_gpu_clock *c, sp_err *err)
{
    if (!c->flush)
        return sp_fail(err, "GPU clock: opened without an L2 flush buffer");
    return cuda_ok(cudaMemsetAsync(c->flush, 0, c->flush_bytes, c->stream),
                   "GPU clock: L2 flush", err) ||
           sp_gpu_clock_sync(c, err);
}

extern "C" int sp_gpu_stream_submit(void *stream, sp_err *err)
{
    cudaError_t e = cudaStreamQuery((cudaStream_t)stream);
    return e == cudaErrorNotReady ? 0 : cuda_ok(e, "GPU stream: submitting its work", err);
}

extern "C" int sp_gpu_clock_bus_id(const sp_gpu_clock *c, char *buf, int len)
{
    int dev = 0;
    if (!c || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetPCIBusId(buf, len, dev) != cudaSuccess)
        return -1;
    return 0;
}

extern "C" size_t sp_gpu_clock_l2_bytes(const sp_gpu_clock *c)
{
    return c ? c->flush_bytes : 0;
}

extern "C" void sp_gpu_clock_close(sp_gpu_clock *c)
{
    if (!c)
        return;
    sp_gpu_clock_unblock(c);
    if (c->stream)
        cudaStreamSynchronize(c->stream);   /* the blocking kernel has let go */
    if (c->gate)
        cudaFreeHost((void *)c->gate);
    if (c->flush)
        cudaFree(c->flush);
    if (c->start)
        cudaEventDestroy(c->start);
    if (c->stop)
        cudaEventDestroy(c->stop);
    for (int i = 0; i < SP_GPU_CLOCK_MARKS; i++)
        if (c->mark[i])
            cudaEventDestroy(c->mark[i]);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    free(c);
}
