/*
 * sort_cub.cu — CUB DeviceRadixSort as a GPU sort design (sort_gpu.h): the
 * vendor baseline, keys alone or pairs, all 32 key bits (begin_bit 0,
 * end_bit 32: never narrowed to the keys' range, so every input pays the
 * same four 8-bit passes CUB's onesweep makes on 32-bit keys).
 *
 * cub::DoubleBuffer lets CUB ping-pong between the caller's arrays and the
 * alternate buffers at the start of the workspace, its fastest mode; when
 * the result ends in the alternate buffer it is copied back inside the
 * timed part, so the design sorts in place like every other.
 */
#include <cub/device/device_radix_sort.cuh>

#include "../cuda_check.h"
#include "sort_gpu.h"


extern "C" int sp_sort_cub_temp_bytes(int64_t n, int with_vals, size_t *bytes, sp_err *err)
{
    cub::DoubleBuffer<uint32_t> k(NULL, NULL), v(NULL, NULL);
    int items = (int)n;
    *bytes = 0;
    if (with_vals)
        SP_CUDA(cub::DeviceRadixSort::SortPairs(NULL, *bytes, k, v, items, 0, 32), err);
    else
        SP_CUDA(cub::DeviceRadixSort::SortKeys(NULL, *bytes, k, items, 0, 32), err);
    return 0;
}

/* CUB's query, asked once per (n, with_vals) in this process (each
 * combination runs in its own): not again inside later timed runs. */
static int temp_bytes_cached(int64_t n, int with_vals, size_t *bytes, sp_err *err)
{
    static int64_t last_n = -1;
    static int last_vals = -1;
    static size_t last_bytes;
    if (n != last_n || with_vals != last_vals) {
        if (sp_sort_cub_temp_bytes(n, with_vals, &last_bytes, err))
            return -1;
        last_n = n, last_vals = with_vals;
    }
    *bytes = last_bytes;
    return 0;
}

extern "C" int sp_sort_cub(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                           const sp_qsort_opts *o, cudaStream_t stream, sp_err *err)
{
    if (n < 0 || n > INT32_MAX)
        return sp_fail(err, "CUB radix sort: %lld keys outside 0..2^31-1", (long long)n);
    if (n <= 1)
        return 0;
    int with_vals = vals != NULL;
    size_t alt = sp_sort_cub_alt_bytes(n, with_vals);
    size_t temp, have = sp_sort_cub_workspace(n, with_vals, o) - alt;
    if (temp_bytes_cached(n, with_vals, &temp, err))
        return -1;
    if (temp > have)
        return sp_fail(err, "CUB radix sort: CUB asks %zu bytes of temporary storage for %lld "
                       "keys, the workspace estimate holds %zu", temp, (long long)n, have);
    char *w = (char *)workspace;
    uint32_t *alt_k = (uint32_t *)w, *alt_v = with_vals ? alt_k + sp_sort_cub_alt_bytes(n, 0) / 4 : NULL;
    void *tmp = w + alt;
    cub::DoubleBuffer<uint32_t> dk(keys, alt_k), dv(vals, alt_v);
    if (with_vals)
        SP_CUDA(cub::DeviceRadixSort::SortPairs(tmp, temp, dk, dv, (int)n, 0, 32, stream), err);
    else
        SP_CUDA(cub::DeviceRadixSort::SortKeys(tmp, temp, dk, (int)n, 0, 32, stream), err);
    if (dk.selector)
        SP_CUDA(cudaMemcpyAsync(keys, alt_k, (size_t)n * 4, cudaMemcpyDeviceToDevice, stream),
                err);
    if (with_vals && dv.selector)
        SP_CUDA(cudaMemcpyAsync(vals, alt_v, (size_t)n * 4, cudaMemcpyDeviceToDevice, stream),
                err);
    return 0;
}
