/*
 * qsort_host.cu — sp_qsort_host: a GPU quicksort of host arrays (upload,
 * sort, download), for the GPU tests and anyone without device buffers.
 */
#include "../cuda_check.h"
#include "qsort_gpu.h"

typedef int (*qs_sort_fn)(uint32_t *, uint32_t *, int64_t, void *, const sp_qsort_opts *,
                          cudaStream_t, sp_err *);

/* Sort the device arrays, then wait for the device and report its errors. */
static int qs_host_run(qs_sort_fn f, uint32_t *dk, uint32_t *dv, int64_t n, void *ws,
                       const sp_qsort_opts *o, sp_err *err)
{
    if (f(dk, dv, n, ws, o, 0, err))
        return -1;
    SP_CUDA(cudaGetLastError(), err);
    SP_CUDA(cudaDeviceSynchronize(), err);
    return 0;
}

extern "C" int sp_qsort_host(sp_qsort_design d, uint32_t *keys, uint32_t *vals, int64_t n,
                             const sp_qsort_opts *o, sp_err *err)
{
    static const qs_sort_fn fns[] = {sp_qsort_thread, sp_qsort_block, sp_qsort_queue};
    sp_qsort_layout L;
    if (sp_qsort_plan(d, n, vals != NULL, o, &L, err))
        return -1;
    size_t bytes = (size_t)n * 4;
    uint32_t *dk = NULL, *dv = NULL;
    void *ws = NULL;
    int rc = -1;
    cudaError_t e = cudaMalloc(&dk, bytes + 4);
    if (e == cudaSuccess && vals)
        e = cudaMalloc(&dv, bytes + 4);
    if (e == cudaSuccess)
        e = cudaMalloc(&ws, L.total + 256);
    if (e != cudaSuccess) {
        sp_fail(err, "qsort_%s: cudaMalloc of %zu bytes: %s", sp_qsort_design_name(d),
                L.total + 2 * bytes, cudaGetErrorString(e));
        goto out;
    }
    e = cudaMemcpy(dk, keys, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && vals)
        e = cudaMemcpy(dv, vals, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        sp_fail(err, "qsort: upload: %s", cudaGetErrorString(e));
        goto out;
    }
    if (qs_host_run(fns[d], dk, dv, n, ws, o, err))
        goto out;
    e = cudaMemcpy(keys, dk, bytes, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && vals)
        e = cudaMemcpy(vals, dv, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        sp_fail(err, "qsort: download: %s", cudaGetErrorString(e));
        goto out;
    }
    rc = 0;
out:
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(ws);
    return rc;
}
