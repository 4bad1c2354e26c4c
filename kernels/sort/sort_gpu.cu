/*
 * sort_gpu.cu — the CUDA half of the GPU sort harness (sort_gpu.h): state
 * (host only), upload, the reset of the input (the kernel's reset, untimed),
 * the call of the design on the runner's stream (the kernel's launch),
 * download and release. The runner's harness times every one of them.
 */
#include <stdlib.h>

#include "../cuda_check.h"
#include "sort_gpu.h"

typedef struct sp_sort_gpu {
    const sp_sort_gpu_design *d;
    int64_t n;
    int values;
    sp_qsort_opts o;
    const uint32_t *host_keys;  /* the problem's keys, until the upload */
    uint32_t *src;              /* the input keys, kept to reset before each launch */
    uint32_t *keys, *vals;      /* sorted in place; vals NULL without values */
    void *ws;
    size_t ws_bytes;
} sp_sort_gpu;

/* vals[i] = i: the positions, so every pair can be traced to the input. */
__global__ void sort_gpu_iota(uint32_t *vals, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        vals[i] = (uint32_t)i;
}

/* At least one element: cudaMalloc of 0 bytes gives no pointer to pass. */
static size_t at_least_one(int64_t n, size_t elem)
{
    return (size_t)(n > 0 ? n : 1) * elem;
}

static int allocate(sp_sort_gpu *g, sp_err *err)
{
    SP_CUDA(cudaMalloc((void **)&g->src, at_least_one(g->n, 4)), err);
    SP_CUDA(cudaMalloc((void **)&g->keys, at_least_one(g->n, 4)), err);
    if (g->values)
        SP_CUDA(cudaMalloc((void **)&g->vals, at_least_one(g->n, 4)), err);
    g->ws_bytes = g->d->workspace(g->n, g->values, &g->o);
    SP_CUDA(cudaMalloc(&g->ws, g->ws_bytes ? g->ws_bytes : 1), err);
    return 0;
}

/* Host only: the design's axes and the state; the keys stay in the
 * problem until the upload. */
extern "C" int sp_sort_gpu_prepare(const sp_sort_gpu_design *d, const sp_problem *pb,
                                   const sp_params *p, void **state, sp_err *err)
{
    *state = NULL;
    if (!d || !d->sort || !d->workspace)
        return sp_fail(err, "%s: design without a sort or workspace function",
                       d ? d->name : "GPU sort");
    if (!pb || pb->nkeys < 0 || (!pb->keys && pb->nkeys > 0))
        return sp_fail(err, "%s: problem without keys", d->name);
    sp_sort_gpu *g = (sp_sort_gpu *)calloc(1, sizeof *g);
    if (!g)
        return sp_fail(err, "%s: out of memory for the state", d->name);
    g->d = d, g->n = pb->nkeys, g->host_keys = pb->keys;
    if (sp_sort_gpu_design_axes(d, p, &g->values, &g->o, err)) {
        free(g);
        return -1;
    }
    *state = g;
    return 0;
}

/* The device arrays and the workspace, then the input keys copied up. */
extern "C" int sp_sort_gpu_upload(void *state, const sp_exec *ex, sp_err *err)
{
    sp_sort_gpu *g = (sp_sort_gpu *)state;
    if (!g)
        return sp_fail(err, "GPU sort: upload without a state");
    if (allocate(g, err))
        return sp_fail_prefix(err, "%s", g->d->name);
    if (g->n > 0) {
        cudaError_t e = cudaMemcpyAsync(g->src, g->host_keys, (size_t)g->n * 4,
                                        cudaMemcpyHostToDevice, (cudaStream_t)ex->stream);
        if (e != cudaSuccess)
            return sp_fail(err, "%s: uploading %lld keys: %s", g->d->name, (long long)g->n,
                           cudaGetErrorString(e));
    }
    return 0;
}

/* Untimed, on the runner's stream: the input back in keys, the positions
 * in vals. */
extern "C" int sp_sort_gpu_reset(void *state, const sp_exec *ex, sp_err *err)
{
    sp_sort_gpu *g = (sp_sort_gpu *)state;
    if (!g)
        return sp_fail(err, "GPU sort: reset without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->n == 0)
        return 0;
    SP_CUDA(cudaMemcpyAsync(g->keys, g->src, (size_t)g->n * 4, cudaMemcpyDeviceToDevice,
                            stream), err);
    if (g->values) {
        int64_t blocks = (g->n + 255) / 256;
        sort_gpu_iota<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
            g->vals, g->n);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}

/* The design's sort, enqueued on the runner's stream; a launch error
 * becomes the launch's error, one of the work itself surfaces when the
 * harness waits for its stop event. */
extern "C" int sp_sort_gpu_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_sort_gpu *g = (sp_sort_gpu *)state;
    if (!g)
        return sp_fail(err, "GPU sort: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->d->sort(g->keys, g->vals, g->n, g->ws, &g->o, stream, err))
        return sp_fail_prefix(err, "%s", g->d->name);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return sp_fail(err, "%s: sorting %lld keys: %s", g->d->name, (long long)g->n,
                       cudaGetErrorString(e));
    return 0;
}

/* The keys (and values) back into out, with the header. */
extern "C" int sp_sort_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    sp_sort_gpu *g = (sp_sort_gpu *)state;
    if (!g || !out)
        return sp_fail(err, "GPU sort: result without a state or an output buffer");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    sp_sort_out o;
    sp_sort_view(out, g->n, &o);
    o.h->n = (uint64_t)g->n;
    o.h->values = (uint32_t)g->values;
    o.h->stable = (uint32_t)g->d->stable;
    if (g->n > 0) {
        SP_CUDA(cudaMemcpyAsync(o.key, g->keys, (size_t)g->n * 4, cudaMemcpyDeviceToHost,
                                stream), err);
        if (g->values)
            SP_CUDA(cudaMemcpyAsync(o.val, g->vals, (size_t)g->n * 4, cudaMemcpyDeviceToHost,
                                    stream), err);
    }
    return 0;       /* the harness waits for the copies before out is read */
}

extern "C" void sp_sort_gpu_release(void *state)
{
    sp_sort_gpu *g = (sp_sort_gpu *)state;
    if (!g)
        return;
    /* only what the upload made: a lone prepare leaves nothing on the
     * device and makes no CUDA call here (the harness has waited for any
     * work a failed launch left in flight) */
    void *made[4] = {g->src, g->keys, g->vals, g->ws};
    for (int i = 0; i < 4; i++)
        if (made[i])
            cudaFree(made[i]);
    free(g);
}
