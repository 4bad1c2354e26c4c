/*
 * spmv_csr_cuda_adaptive.cu — CSR SpMV in one launch, balanced by
 * nonzeros for the irregular rows of real matrices (after CSR-Adaptive,
 * Greathouse and Daga, SC'14, with long rows split as in our hybrid CSR).
 * The host cuts the rows into blocks (spmv_adaptive.c), one CUDA block
 * each, described by an int4 {first row, rows, first nonzero, nonzeros}:
 *   rows >= 2  a short block: every thread loads `ITEMS` of the block's
 *              nonzeros (coalesced, all loads issued before any product),
 *              the products go to shared memory, then each row is summed
 *              there by a group of `lanes` threads (blocksize / rows, a
 *              power of two up to 32) and stored;
 *   rows == 1  one row: the block sums its products directly;
 *   rows < 0   a chunk of long row -(rows+1): the block's sum goes to
 *              partial[block]; the block that counts the row's last chunk
 *              adds the row's partials in chunk order and stores y (no
 *              atomics on values, the same sum whichever block is last)
 *              and zeroes the counter for the next launch.
 * The descriptor carries the first nonzero, so a block's loads wait for
 * one read only. Templated on the value type (`precision`: double or
 * single, summed in that type, as cuSPARSE with CUDA_R_32F).
 */
#include "spmv_gpu.cuh"

/* A load of the matrix: evict-first when it streams (STREAM, a matrix
 * larger than L2: x keeps its place), else an ordinary read-only load that
 * leaves the matrix in L2 for the next product. */
template <bool STREAM, typename T>
__device__ __forceinline__ T load_a(const T *p)
{
    return STREAM ? __ldcs(p) : __ldg(p);
}

/* The sum of v over the block, valid in thread 0; red holds a value per
 * warp, and the block may reuse it once every thread has returned. */
template <typename V>
__device__ __forceinline__ V block_sum(V v, V *red)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nw = blockDim.x / 32;
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();                    /* red free from any earlier use */
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? red[lane] : V(0);
#pragma unroll
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

template <typename V, int ITEMS, bool STREAM>
__global__ void csr_adaptive_kernel(const int4 *__restrict__ blocks,
                                    const int32_t *__restrict__ rowptr,
                                    const int32_t *__restrict__ colidx,
                                    const V *__restrict__ val, const V *__restrict__ x,
                                    V *__restrict__ y, const int32_t *__restrict__ long_first,
                                    const int32_t *__restrict__ long_chunks,
                                    V *__restrict__ partial, unsigned *__restrict__ count)
{
    extern __shared__ __align__(16) unsigned char smem[];
    V *prod = (V *)smem;                                    /* blockDim.x · ITEMS */
    int32_t *ptr = (int32_t *)(prod + blockDim.x * ITEMS);  /* blockDim.x + 1 */
    __shared__ int last;
    const int4 d = blocks[blockIdx.x];
    const int tid = threadIdx.x, bs = blockDim.x;
    const int32_t first = d.x, rows = d.y, base = d.z, n = d.w;

    if (rows <= 1) {
        /* one row, or a chunk of a long one */
        V sum = V(0);
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            int32_t k = tid + i * bs;
            if (k < n)
                sum += load_a<STREAM>(val + base + k) * __ldg(x + load_a<STREAM>(colidx + base + k));
        }
        sum = block_sum(sum, prod);
        if (rows == 1) {
            if (tid == 0)
                y[first] = sum;
            return;
        }
        int32_t L = -rows - 1;
        if (tid == 0) {
            partial[blockIdx.x] = sum;
            __threadfence();            /* the partial before the count */
            unsigned done = atomicAdd(&count[L], 1u);
            last = done == (unsigned)long_chunks[L] - 1;
        }
        __syncthreads();
        if (!last)
            return;
        __threadfence();                /* the others' partials after their counts */
        int32_t f = long_first[L], c = long_chunks[L];
        V total = V(0);
        for (int32_t j = tid; j < c; j += bs)
            total += __ldcg(partial + f + j);
        total = block_sum(total, prod);
        if (tid == 0) {
            y[first] = total;
            count[L] = 0;               /* ready for the next launch */
        }
        return;
    }

    /* a short block: loads first, then the products into shared memory */
    int32_t col[ITEMS];
    V v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int32_t k = tid + i * bs;
        if (k < n) {
            col[i] = load_a<STREAM>(colidx + base + k);
            v[i] = load_a<STREAM>(val + base + k);
        }
    }
    if (tid < rows)
        ptr[tid + 1] = rowptr[first + tid + 1] - base;
    if (tid == 0)
        ptr[0] = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int32_t k = tid + i * bs;
        if (k < n)
            prod[k] = v[i] * __ldg(x + col[i]);
    }
    __syncthreads();
    /* lanes as sp_adaptive_lanes: blocksize / rows down to a power of two,
     * at most 32 */
    int share = bs / rows, lanes = 1;
    while (lanes * 2 <= share && lanes < 32)
        lanes *= 2;
    int group = tid / lanes, lane = tid % lanes;
    V sum = V(0);
    if (group < rows)
        for (int32_t k = ptr[group] + lane, e = ptr[group + 1]; k < e; k += lanes)
            sum += prod[k];
    for (int o = lanes / 2; o > 0; o /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o, lanes);
    if (lane == 0 && group < rows)
        y[first + group] = sum;
}

/* Host only: blocksize and items checked, the rows cut into blocks (the
 * state's plan), then the CSR, x, y and the plan recorded for the upload;
 * the counters zeroed once (the last block of each long row zeroes its
 * counter again after every launch). */
extern "C" int sp_spmv_cuda_adaptive_prepare(const sp_problem *pb, const sp_params *p,
                                             void **state, sp_err *err)
{
    const char *name = "spmv_csr_cuda_adaptive";
    *state = NULL;
    int bs, items, stream;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, 1, &bs, err) || sp_adaptive_items(name, p, bs, &items, err) ||
        sp_adaptive_stream(name, p, &stream, err) || sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_csr(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    g->items = items;
    g->astream = stream;
    sp_adaptive_plan *pl = &g->aplan;
    if (sp_adaptive_split(pb->A, bs, items, pl, err)) {
        sp_fail_prefix(err, "%s", name);
        return sp_spmv_gpu_done(g, -1, state);
    }
    size_t nb = (size_t)pl->nblocks, nl = (size_t)pl->nlong;
    int rc = sp_spmv_gpu_add(g, &g->ablock, pl->block, nb * sizeof(sp_adaptive_block), 0, err) ||
             sp_spmv_gpu_add(g, (void **)&g->along_first, pl->long_first, nl * 4, 0, err) ||
             sp_spmv_gpu_add(g, (void **)&g->along_chunks, pl->long_chunks, nl * 4, 0, err) ||
             sp_spmv_gpu_add(g, (void **)&g->partial, NULL, nb * sizeof(double), 0, err) ||
             sp_spmv_gpu_add(g, (void **)&g->count, NULL, nl * 4, 1, err) ||
             sp_spmv_gpu_precision(g, prec, err);
    return sp_spmv_gpu_done(g, rc ? -1 : 0, state);
}

template <typename V, int ITEMS>
static void launch(const sp_gpu_spmv *g, cudaStream_t stream)
{
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    const V *val = v.val, *x = v.x;
    V *y = v.y, *partial = v.partial;
    size_t shared = (size_t)g->blocksize * ITEMS * sizeof(V) + ((size_t)g->blocksize + 1) * 4;
    unsigned grid = (unsigned)g->aplan.nblocks;
    if (g->astream)
        csr_adaptive_kernel<V, ITEMS, true><<<grid, g->blocksize, shared, stream>>>(
            (const int4 *)g->ablock, g->rowptr, g->colidx, val, x, y, g->along_first,
            g->along_chunks, partial, g->count);
    else
        csr_adaptive_kernel<V, ITEMS, false><<<grid, g->blocksize, shared, stream>>>(
            (const int4 *)g->ablock, g->rowptr, g->colidx, val, x, y, g->along_first,
            g->along_chunks, partial, g->count);
}

/* `loads = auto`: the matrix streams (evict-first loads) when the
 * CSR, x and y together do not fit in the device's L2, so that x, the one
 * array read more than once, stays there; a matrix that fits stays cached
 * for the next product. Device-side (an attribute of the device), so here
 * and not in prepare. */
extern "C" int sp_spmv_cuda_adaptive_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_adaptive: analyse without a state");
    if (g->astream != 2)
        return 0;
    int dev, l2;
    SP_CUDA(cudaGetDevice(&dev), err);
    SP_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), err);
    g->astream = sp_adaptive_streams(g->rows, g->cols, g->nnz,
                                     g->prec == SP_SINGLE ? 4 : 8, (int64_t)l2);
    return 0;
}

/* One kernel on the harness's stream; nothing when there are no rows. */
extern "C" int sp_spmv_cuda_adaptive_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_adaptive: launch without a state");
    if (g->aplan.nblocks == 0)
        return 0;
    cudaStream_t stream = (cudaStream_t)ex->stream;
    int single = g->prec == SP_SINGLE;
    switch (g->items) {
#define SP_ADAPTIVE_CASE(I)                                                                \
    case I:                                                                                \
        single ? launch<float, I>(g, stream) : launch<double, I>(g, stream);               \
        break;
        SP_ADAPTIVE_CASE(1)
        SP_ADAPTIVE_CASE(2)
        SP_ADAPTIVE_CASE(4)
        SP_ADAPTIVE_CASE(8)
        SP_ADAPTIVE_CASE(16)
#undef SP_ADAPTIVE_CASE
    default:
        return sp_fail(err, "spmv_csr_cuda_adaptive: items = %d unsupported", g->items);
    }
    SP_CUDA(cudaGetLastError(), err);
    return 0;
}
