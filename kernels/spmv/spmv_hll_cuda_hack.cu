/*
 * spmv_hll_cuda_hack.cu — study 002's two CUDA HLL kernels (its Algorithms
 * 10 and 11) on the row-major GPU layout of kernels/hll.h (ld = hack, a
 * row's width entries contiguous, padding column -1):
 *   solution 1 (spmv_hll_cuda_hack)    one CUDA block per ELLPACK block
 *     (our hack), one thread per row of it, the inner loop over the
 *     hack's width unrolled; each thread writes its row's sum;
 *   solution 2 (spmv_hll_cuda_staged)  solution 1 with the writes made
 *     coalesced: the row sums go to shared memory first and, after one
 *     barrier, consecutive threads write the hack's y entries as one
 *     contiguous run.
 * The study's pseudo-code is the same for both, and so is its authors'
 * published code (the two kernels differ by a comment); only its prose
 * says that solution 2 writes "so that the access is coalesced". Staging
 * is our reading of that prose. Solution 1's direct writes are already
 * contiguous within a warp, so the two should time alike, as the study
 * found ("in HLL the two CUDA solutions behave practically identically").
 * Where the study's thread past the hack's rows returns, a thread here
 * also takes rows t + blockDim, t + 2·blockDim, ... so a block smaller
 * than the hack still covers it (hack 32 and the study's block sizes never
 * need it). The study's loop had no padding test; ours skips padding by
 * its column (-1) so x is never read out of bounds. Its `#pragma unroll`
 * cannot unroll fully a loop whose count (the hack's width) is known only
 * at run time: unrolled by 4 here. V, the value type of the layout, x, y
 * and the sums: double, or float for `precision = single`.
 */
#include "spmv_gpu.cuh"

/* Row r of hack s: the sum of its width entries at base + r·width + k. */
template <typename V>
__device__ __forceinline__ V hack_row(const int32_t *__restrict__ col,
                                      const V *__restrict__ val, const V *__restrict__ x,
                                      int64_t first, int32_t width)
{
    V sum = 0;
#pragma unroll 4
    for (int32_t k = 0; k < width; k++) {
        int32_t c = col[first + k];
        sum += c >= 0 ? val[first + k] * x[c] : V(0);
    }
    return sum;
}

/* The rows of hack s (fewer than hack in the last one). */
__device__ __forceinline__ int32_t hack_rows(int32_t rows, int32_t hack, int32_t s)
{
    int64_t left = (int64_t)rows - (int64_t)s * hack;
    return left < hack ? (int32_t)left : hack;
}

/* Solution 1: block s owns hack s, thread t its rows t, t + blockDim, ... */
template <typename V>
__global__ void hll_hack_kernel(int32_t rows, int32_t hack, const int32_t *__restrict__ off,
                                const int32_t *__restrict__ col, const V *__restrict__ val,
                                const V *__restrict__ x, V *__restrict__ y)
{
    int32_t s = blockIdx.x, n = hack_rows(rows, hack, s);
    int32_t base = off[s], width = (off[s + 1] - base) / hack;
    for (int32_t r = threadIdx.x; r < n; r += blockDim.x)
        y[(int64_t)s * hack + r] = hack_row(col, val, x, base + (int64_t)r * width, width);
}

/* Solution 2: as solution 1, the sums staged in shared memory (hack
 * values, sized by the launch) and written after the barrier. */
template <typename V>
__global__ void hll_staged_kernel(int32_t rows, int32_t hack, const int32_t *__restrict__ off,
                                  const int32_t *__restrict__ col, const V *__restrict__ val,
                                  const V *__restrict__ x, V *__restrict__ y)
{
    extern __shared__ __align__(16) unsigned char staged_bytes[];
    V *sums = reinterpret_cast<V *>(staged_bytes);
    int32_t s = blockIdx.x, n = hack_rows(rows, hack, s);
    int32_t base = off[s], width = (off[s + 1] - base) / hack;
    for (int32_t r = threadIdx.x; r < n; r += blockDim.x)
        sums[r] = hack_row(col, val, x, base + (int64_t)r * width, width);
    __syncthreads();
    V *yh = y + (int64_t)s * hack;
    for (int32_t r = threadIdx.x; r < n; r += blockDim.x)
        yh[r] = sums[r];
}

/* Host only: blocksize (any 1..1024), hack (for solution 2 within its
 * shared memory), memory and precision checked, the row-major sliced ELL
 * built in the state, then x, y and its arrays recorded for the shared
 * upload (in float for single). */
static int hack_prepare(const char *name, int staged, const sp_problem *pb, const sp_params *p,
                        void **state, sp_err *err)
{
    *state = NULL;
    int bs, hack;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, 0, &bs, err) ||
        (staged ? sp_gpu_staged_hack(name, p, &hack, err) : sp_gpu_hack(name, p, &hack, err)) ||
        sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_new(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    sp_hll_opts o = sp_hll_gpu(hack, 0);
    if (sp_hll_from_csr(&g->hll, pb->A, &o, err)) {
        sp_fail_prefix(err, "%s", name);
        return sp_spmv_gpu_done(g, -1, state);
    }
    return sp_spmv_gpu_done(g,
                            sp_spmv_gpu_add_sell(g, &g->hll, err) ||
                                sp_spmv_gpu_memory(g, name, p, err) ||
                                sp_spmv_gpu_precision(g, prec, err),
                            state);
}

template <typename V> static void hack_launch(const sp_gpu_spmv *g, int staged,
                                              cudaStream_t stream)
{
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    unsigned blocks = (unsigned)g->nslices;
    if (staged)
        hll_staged_kernel<V><<<blocks, g->blocksize, (size_t)g->hack * sizeof(V), stream>>>(
            g->rows, g->hack, g->sell_off, g->sell_col, v.sell_val, v.x, v.y);
    else
        hll_hack_kernel<V><<<blocks, g->blocksize, 0, stream>>>(
            g->rows, g->hack, g->sell_off, g->sell_col, v.sell_val, v.x, v.y);
}

/* One block per hack on the harness's stream; rows = 0 launches nothing. */
static int hack_enqueue(const char *name, int staged, void *state, const sp_exec *ex,
                        sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "%s: launch without a state", name);
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->rows > 0) {
        if (g->prec == SP_SINGLE)
            hack_launch<float>(g, staged, stream);
        else
            hack_launch<double>(g, staged, stream);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}

extern "C" int sp_spmv_cuda_hll_hack_prepare(const sp_problem *pb, const sp_params *p,
                                             void **state, sp_err *err)
{
    return hack_prepare("spmv_hll_cuda_hack", 0, pb, p, state, err);
}

extern "C" int sp_spmv_cuda_hll_hack_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return hack_enqueue("spmv_hll_cuda_hack", 0, state, ex, err);
}

extern "C" int sp_spmv_cuda_hll_staged_prepare(const sp_problem *pb, const sp_params *p,
                                               void **state, sp_err *err)
{
    return hack_prepare("spmv_hll_cuda_staged", 1, pb, p, state, err);
}

extern "C" int sp_spmv_cuda_hll_staged_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return hack_enqueue("spmv_hll_cuda_staged", 1, state, ex, err);
}
