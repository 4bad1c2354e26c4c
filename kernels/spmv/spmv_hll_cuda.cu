/*
 * spmv_hll_cuda.cu — SpMV on sliced ELLPACK (kernels/hll.h, GPU layout:
 * ld = hack, padding column -1), four ways:
 *   ELL          one slice, column-major, one thread per row (coalesced);
 *   HLL aligned  column-major inside each slice of `hack` rows, one thread
 *                per row: the coalesced layout (cuSPARSE SELL's);
 *   HLL block    row-major slices, one block per slice, one warp per row
 *                of it (lanes along the row: coalesced on wide slices);
 *   HLL warp     row-major slices, one warp per slice, one lane per row
 *                (each lane walks its own row: the uncoalesced baseline).
 * Padding (column -1) only ever follows a row's entries; it is skipped by
 * predicate, so its values are never loaded. V, the value type of the
 * layout, x, y and the sums: double, or float for `precision = single`.
 */
#include "spmv_gpu.cuh"

/* One entry: val·x[col], or 0 for padding. */
template <typename V>
__device__ __forceinline__ V sell_term(const int32_t *__restrict__ col,
                                       const V *__restrict__ val, const V *__restrict__ x,
                                       int64_t at)
{
    int32_t c = col[at];
    return c >= 0 ? val[at] * x[c] : V(0);
}

/* ELL: entry k of row i at k·rows + i. */
template <typename V>
__global__ void ell_kernel(int32_t rows, int32_t width, const int32_t *__restrict__ col,
                           const V *__restrict__ val, const V *__restrict__ x,
                           V *__restrict__ y)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    V sum = 0;
#pragma unroll 4
    for (int32_t k = 0; k < width; k++)
        sum += sell_term(col, val, x, (int64_t)k * rows + i);
    y[i] = sum;
}

/* HLL aligned: row i is row r of slice s; entry k at off[s] + k·hack + r. */
template <typename V>
__global__ void hll_aligned_kernel(int32_t rows, int32_t hack, const int32_t *__restrict__ off,
                                   const int32_t *__restrict__ col,
                                   const V *__restrict__ val, const V *__restrict__ x,
                                   V *__restrict__ y)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= rows)
        return;
    int32_t i = (int32_t)t, s = i / hack, r = i - s * hack;   /* 32-bit: fast division */
    int32_t base = off[s], width = (off[s + 1] - base) / hack;
    V sum = 0;
#pragma unroll 4
    for (int32_t k = 0; k < width; k++)
        sum += sell_term(col, val, x, base + (int64_t)k * hack + r);
    y[i] = sum;
}

/* HLL block: block s owns slice s; warp w takes rows w, w + warps, ... */
template <typename V>
__global__ void hll_block_kernel(int32_t rows, int32_t hack, const int32_t *__restrict__ off,
                                 const int32_t *__restrict__ col,
                                 const V *__restrict__ val, const V *__restrict__ x,
                                 V *__restrict__ y)
{
    int32_t s = blockIdx.x, warps = blockDim.x / 32;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int32_t base = off[s], width = (off[s + 1] - base) / hack;
    for (int32_t r = warp; r < hack; r += warps) {
        int64_t i = (int64_t)s * hack + r;
        if (i >= rows)
            break;                      /* uniform per warp: rows only grow */
        V sum = 0;
        for (int32_t k = lane; k < width; k += 32)
            sum += sell_term(col, val, x, base + (int64_t)r * width + k);
        for (int o = 16; o > 0; o /= 2)
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        if (lane == 0)
            y[i] = sum;
    }
}

/* HLL warp: warp s owns slice s; lane r takes rows r, r + 32, ... */
template <typename V>
__global__ void hll_warp_kernel(int32_t rows, int32_t hack, int32_t nslices,
                                const int32_t *__restrict__ off,
                                const int32_t *__restrict__ col,
                                const V *__restrict__ val, const V *__restrict__ x,
                                V *__restrict__ y)
{
    int64_t s = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (s >= nslices)
        return;
    int32_t base = off[s], width = (off[s + 1] - base) / hack;
    for (int32_t r = lane; r < hack; r += 32) {
        int64_t i = s * hack + r;
        if (i >= rows)
            return;
        V sum = 0;
        for (int32_t k = 0; k < width; k++)
            sum += sell_term(col, val, x, base + (int64_t)r * width + k);
        y[i] = sum;
    }
}

/* The shared prepare, host only: axes checked, the sliced ELL built in
 * the state, then x, y and its arrays recorded for the shared upload (in
 * float for single: the layout's values and x rounded). */
static int sell_prepare(const char *name, const sp_problem *pb, const sp_params *p,
                        int use_hack, int col_major, int warp_multiple, void **state,
                        sp_err *err)
{
    *state = NULL;
    int bs, hack = 0;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, warp_multiple, &bs, err) ||
        (use_hack && sp_gpu_hack(name, p, &hack, err)) ||
        sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_new(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    sp_hll_opts o = sp_hll_gpu(hack, col_major);
    if (sp_hll_from_csr(&g->hll, pb->A, &o, err)) {
        sp_fail_prefix(err, "%s", name);
        return sp_spmv_gpu_done(g, -1, state);
    }
    return sp_spmv_gpu_done(
        g,
        sp_spmv_gpu_add_sell(g, &g->hll, err) || sp_spmv_gpu_memory(g, name, p, err) ||
            sp_spmv_gpu_precision(g, prec, err),
        state);
}

/* launch(V(0), g, stream) on the harness's stream, V the value type of
 * g's precision (a generic lambda takes its type from the first argument);
 * no launch for rows = 0. */
template <typename Launch>
static int enqueue(void *state, const sp_exec *ex, const char *name, Launch launch,
                   sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "%s: launch without a state", name);
    if (g->rows > 0) {
        if (g->prec == SP_SINGLE)
            launch(0.0f, g, (cudaStream_t)ex->stream);
        else
            launch(0.0, g, (cudaStream_t)ex->stream);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}

static unsigned blocks_for(int64_t threads, int bs)
{
    return (unsigned)((threads + bs - 1) / bs);
}

extern "C" int sp_spmv_cuda_ell_prepare(const sp_problem *pb, const sp_params *p,
                                        void **state, sp_err *err)
{
    return sell_prepare("spmv_ell_cuda", pb, p, 0, 1, 0, state, err);
}

extern "C" int sp_spmv_cuda_ell_launch(void *state, const sp_exec *ex, sp_err *err)
{
    auto launch = [](auto zero, sp_gpu_spmv *g, cudaStream_t stream) {
        auto v = sp_spmv_gpu_values<decltype(zero)>(g);
        ell_kernel<<<blocks_for(g->rows, g->blocksize), g->blocksize, 0, stream>>>(
            g->rows, g->width, g->sell_col, v.sell_val, v.x, v.y);
    };
    return enqueue(state, ex, "spmv_ell_cuda", launch, err);
}

extern "C" int sp_spmv_cuda_hll_aligned_prepare(const sp_problem *pb, const sp_params *p,
                                                void **state, sp_err *err)
{
    return sell_prepare("spmv_hll_cuda_aligned", pb, p, 1, 1, 0, state, err);
}

extern "C" int sp_spmv_cuda_hll_aligned_launch(void *state, const sp_exec *ex, sp_err *err)
{
    auto launch = [](auto zero, sp_gpu_spmv *g, cudaStream_t stream) {
        auto v = sp_spmv_gpu_values<decltype(zero)>(g);
        hll_aligned_kernel<<<blocks_for(g->rows, g->blocksize), g->blocksize, 0, stream>>>(
            g->rows, g->hack, g->sell_off, g->sell_col, v.sell_val, v.x, v.y);
    };
    return enqueue(state, ex, "spmv_hll_cuda_aligned", launch, err);
}

extern "C" int sp_spmv_cuda_hll_block_prepare(const sp_problem *pb, const sp_params *p,
                                              void **state, sp_err *err)
{
    return sell_prepare("spmv_hll_cuda_block", pb, p, 1, 0, 1, state, err);
}

extern "C" int sp_spmv_cuda_hll_block_launch(void *state, const sp_exec *ex, sp_err *err)
{
    auto launch = [](auto zero, sp_gpu_spmv *g, cudaStream_t stream) {
        auto v = sp_spmv_gpu_values<decltype(zero)>(g);
        hll_block_kernel<<<(unsigned)g->nslices, g->blocksize, 0, stream>>>(
            g->rows, g->hack, g->sell_off, g->sell_col, v.sell_val, v.x, v.y);
    };
    return enqueue(state, ex, "spmv_hll_cuda_block", launch, err);
}

extern "C" int sp_spmv_cuda_hll_warp_prepare(const sp_problem *pb, const sp_params *p,
                                             void **state, sp_err *err)
{
    return sell_prepare("spmv_hll_cuda_warp", pb, p, 1, 0, 1, state, err);
}

extern "C" int sp_spmv_cuda_hll_warp_launch(void *state, const sp_exec *ex, sp_err *err)
{
    auto launch = [](auto zero, sp_gpu_spmv *g, cudaStream_t stream) {
        auto v = sp_spmv_gpu_values<decltype(zero)>(g);
        hll_warp_kernel<<<blocks_for((int64_t)g->nslices * 32, g->blocksize), g->blocksize,
                          0, stream>>>(
            g->rows, g->hack, g->nslices, g->sell_off, g->sell_col, v.sell_val, v.x, v.y);
    };
    return enqueue(state, ex, "spmv_hll_cuda_warp", launch, err);
}
