/*
 * spmv_csr_cuda_hybrid.cu — CSR SpMV in one launch for rows of any length:
 *   long rows  (more than 32·lanes nonzeros, listed on the host) are cut
 *              into chunks of SP_HYBRID_CHUNK nonzeros, one warp each; the
 *              warp that finishes a row's last chunk (a counter per long
 *              row) sums the row's partials in chunk order and stores y —
 *              no atomics on values, the same sum whichever warp is last;
 *   short rows a group of `lanes` threads each, as the sub-warp kernel.
 * The chunk blocks come first in the grid, so the heaviest work starts
 * first. The matrix is read once: its loads are marked streaming (evict
 * first, __ldcs) so that x, the only reused array, keeps its place in L2.
 */
#include "spmv_gpu.cuh"

/* sum over k = first, first + STEP, ... < end of val[k]·x[col[k]] */
template <int STEP, typename V>
__device__ __forceinline__ V row_part(int32_t first, int32_t end,
                                      const int32_t *__restrict__ colidx,
                                      const V *__restrict__ val, const V *__restrict__ x)
{
    V sum = 0;
#pragma unroll 4
    for (int32_t k = first; k < end; k += STEP)
        sum += __ldcs(val + k) * __ldg(x + __ldcs(colidx + k));
    return sum;
}

template <int LANES, typename V>
__global__ void csr_hybrid_kernel(int32_t rows, int32_t long_min, unsigned chunk_blocks,
                                  int64_t nchunks, const int32_t *__restrict__ rowptr,
                                  const int32_t *__restrict__ colidx,
                                  const V *__restrict__ val, const V *__restrict__ x,
                                  V *__restrict__ y, const int32_t *__restrict__ long_row,
                                  const int32_t *__restrict__ long_first,
                                  const int32_t *__restrict__ chunk_long,
                                  V *__restrict__ partial, unsigned *__restrict__ count)
{
    if (blockIdx.x >= chunk_blocks) {
        /* short rows: group t / LANES owns row t / LANES; every thread
         * reaches the shuffles */
        long long t = (long long)(blockIdx.x - chunk_blocks) * blockDim.x + threadIdx.x;
        long long row = t / LANES;
        int lane = (int)(threadIdx.x % LANES);
        V sum = 0;
        int mine = 0;
        if (row < rows) {
            int32_t b = rowptr[row], e = rowptr[row + 1];
            mine = e - b <= long_min;
            if (mine)
                sum = row_part<LANES>(b + lane, e, colidx, val, x);
        }
#pragma unroll
        for (int o = LANES / 2; o > 0; o /= 2)
            sum += __shfl_xor_sync(0xffffffffu, sum, o, LANES);
        if (lane == 0 && mine)
            y[row] = sum;
        return;
    }
    /* chunks: one warp each; the whole warp leaves together */
    int64_t c = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (c >= nchunks)
        return;
    int32_t L = chunk_long[c], row = long_row[L], first = long_first[L];
    int32_t n = long_first[L + 1] - first, e = rowptr[row + 1];
    int32_t b = rowptr[row] + (int32_t)(c - first) * SP_HYBRID_CHUNK;
    e = min(e, b + SP_HYBRID_CHUNK);
    V sum = row_part<32>(b + lane, e, colidx, val, x);
    for (int o = 16; o > 0; o /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (n == 1) {
        if (lane == 0)
            y[row] = sum;
        return;
    }
    unsigned done = 0;
    if (lane == 0) {
        partial[c] = sum;
        __threadfence();                /* the partial before the count */
        done = atomicAdd(&count[L], 1u);
    }
    done = __shfl_sync(0xffffffffu, done, 0);
    if (done != (unsigned)n - 1)
        return;
    __threadfence();                    /* the others' partials after their counts */
    V total = 0;
    for (int32_t j = lane; j < n; j += 32)
        total += __ldcg(partial + first + j);
    for (int o = 16; o > 0; o /= 2)
        total += __shfl_xor_sync(0xffffffffu, total, o);
    if (lane == 0) {
        y[row] = total;
        count[L] = 0;                   /* ready for the next launch */
    }
}

/* The plan (built in g->plan) recorded for the shared upload, with the
 * partials and the counters, zeroed once: the last warp of each long row
 * zeroes its counter again after every launch. */
static int add_plan(sp_gpu_spmv *g, sp_err *err)
{
    const sp_hybrid_plan *pl = &g->plan;
    size_t nl = (size_t)pl->nlong, nc = (size_t)pl->nchunks;
    if (sp_spmv_gpu_add(g, (void **)&g->long_row, pl->long_row, nl * 4, 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->long_first, pl->long_first, (nl + 1) * 4, 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->chunk_long, pl->chunk_long, nc * 4, 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->partial, NULL, nc * 8, 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->count, NULL, nl * 4, 1, err))
        return -1;
    return 0;
}

/* Host only: lanes and blocksize checked, the long rows split into the
 * state's plan, then the CSR, x, y and the plan recorded for the upload. */
extern "C" int sp_spmv_cuda_hybrid_prepare(const sp_problem *pb, const sp_params *p,
                                           void **state, sp_err *err)
{
    const char *name = "spmv_csr_cuda_hybrid";
    *state = NULL;
    int bs, lanes;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, 1, &bs, err) || sp_gpu_lanes(pb->A, p, &lanes, err) ||
        sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_csr(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    g->lanes = lanes;
    if (sp_hybrid_split(pb->A, sp_hybrid_long_min(lanes), SP_HYBRID_CHUNK, &g->plan, err)) {
        sp_fail_prefix(err, "%s", name);
        return sp_spmv_gpu_done(g, -1, state);
    }
    return sp_spmv_gpu_done(g,
                            add_plan(g, err) || sp_spmv_gpu_memory(g, name, p, err) ||
                                sp_spmv_gpu_precision(g, prec, err),
                            state);
}

/* The kernel for g->lanes in value type V; -1 for lanes it has no case for. */
template <typename V>
static int hybrid_launch(const sp_gpu_spmv *g, unsigned blocks, unsigned chunk_blocks,
                         cudaStream_t stream)
{
    const sp_hybrid_plan *pl = &g->plan;
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    int32_t lm = pl->long_min;
#define SP_HYBRID_CASE(L)                                                                  \
    case L:                                                                                \
        csr_hybrid_kernel<L, V><<<blocks, g->blocksize, 0, stream>>>(                      \
            g->rows, lm, chunk_blocks, pl->nchunks, g->rowptr, g->colidx, v.val, v.x, v.y, \
            g->long_row, g->long_first, g->chunk_long, v.partial, g->count);               \
        return 0;
    switch (g->lanes) {
        SP_HYBRID_CASE(2)
        SP_HYBRID_CASE(4)
        SP_HYBRID_CASE(8)
        SP_HYBRID_CASE(16)
        SP_HYBRID_CASE(32)
    }
#undef SP_HYBRID_CASE
    return -1;
}

/* One kernel on the harness's stream; the host only sizes the grid. The
 * last warp of each long row zeroes its counter, so the next launch finds
 * them ready (no reset). */
extern "C" int sp_spmv_cuda_hybrid_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_hybrid: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    const sp_hybrid_plan *pl = &g->plan;
    int warps = g->blocksize / 32;
    unsigned chunk_blocks = (unsigned)((pl->nchunks + warps - 1) / warps);
    long long threads = (long long)g->rows * g->lanes;
    unsigned blocks = chunk_blocks + (unsigned)((threads + g->blocksize - 1) / g->blocksize);
    if (blocks > 0) {
        if (g->prec == SP_SINGLE ? hybrid_launch<float>(g, blocks, chunk_blocks, stream)
                                 : hybrid_launch<double>(g, blocks, chunk_blocks, stream))
            return sp_fail(err, "spmv_csr_cuda_hybrid: lanes = %d unsupported", g->lanes);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}
