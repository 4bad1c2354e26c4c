/*
 * spmv_csr_cuda_merge.cu — load-balanced CSR SpMV by merge path (Merrill &
 * Garland, SC'16): the merge of the row ends with the nonzero indices is cut
 * into equal tiles of SP_MERGE_TILE items (split on the host by prepare), one
 * tile per warp, so a row of 10^6 nonzeros and a million empty rows cost the
 * same per item. Within a tile: products and row ends staged in shared
 * memory with coalesced loads, then each lane walks SP_MERGE_ITEMS items of
 * the path, storing each row it completes; partial rows between lanes are
 * joined by a segmented shuffle sum. A row cut by a tile boundary leaves a carry, added by a second small
 * kernel (segmented warp reduction, one atomicAdd per row and warp).
 */
#include <climits>

#include "spmv_gpu.cuh"

/* Shared memory per warp: the tile's products (TILE values V) and row ends
 * (TILE + 1), rounded to 8 bytes: 3 KB in double, so 64 warps fit on an
 * SM; 2 KB in float. */
constexpr int TILE = SP_MERGE_TILE, ITEMS = SP_MERGE_ITEMS;
template <typename V>
constexpr size_t WARP_SMEM = (TILE * sizeof(V) + (TILE + 1) * 4 + 7) / 8 * 8;

/* Tile `tile` of the path: rows r0..r1-1 end inside it, nonzeros n0..n1-1
 * lie in it; y[r0..r1-1] written (row r0's part before n0 arrives as the
 * previous tiles' carries), the part of row r1 in carry_*[tile]. */
template <typename V>
__global__ void csr_merge_kernel(int64_t ntiles, const int32_t *__restrict__ tiles,
                                 const int32_t *__restrict__ rowptr,
                                 const int32_t *__restrict__ colidx,
                                 const V *__restrict__ val, const V *__restrict__ x,
                                 V *__restrict__ y, int32_t *__restrict__ carry_row,
                                 V *__restrict__ carry_val)
{
    extern __shared__ __align__(8) unsigned char smem[];  /* one name for every V */
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int64_t tile = (int64_t)blockIdx.x * (blockDim.x / 32) + warp;
    if (tile >= ntiles)
        return;                         /* the whole warp leaves together */
    V *s_prod = (V *)(smem + warp * WARP_SMEM<V>);
    int32_t *s_end = (int32_t *)(s_prod + TILE);
    int32_t r0 = tiles[2 * tile], n0 = tiles[2 * tile + 1];
    int32_t r1 = tiles[2 * tile + 2], n1 = tiles[2 * tile + 3];
    int nrows = r1 - r0, nnzs = n1 - n0;
    /* Columns, values and row ends in one round, then x, from indices
     * clamped into the tile: ITEMS independent loads in flight per array
     * rather than a chain of branches. */
    int32_t c[ITEMS], e[ITEMS];
    V v[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        int k = n0 + max(min(lane + 32 * j, nnzs - 1), 0);
        c[j] = nnzs > 0 ? __ldcs(colidx + k) : 0;     /* read once: evict first, */
        v[j] = nnzs > 0 ? __ldcs(val + k) : V(0);     /* x keeps its place in L2 */
        e[j] = nrows > 0 ? rowptr[r0 + 1 + min(lane + 32 * j, nrows - 1)] : 0;
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        if (lane + 32 * j < nnzs)
            s_prod[lane + 32 * j] = v[j] * x[c[j]];
        if (lane + 32 * j < nrows)
            s_end[lane + 32 * j] = e[j];
    }
    if (lane == 0)
        s_end[nrows] = n1;              /* row r1 holds every nonzero left in the tile */
    __syncwarp();
    /* this lane's start on the path: diagonal d of the tile */
    int total = nrows + nnzs, d = min(lane * ITEMS, total), dend = min(d + ITEMS, total);
    int lo = max(0, d - nnzs), hi = min(d, nrows);
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s_end[mid] <= n0 + d - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    int xr = lo, yn = d - lo;
    V sum = 0;
    for (int it = d; it < dend; it++) {
        if (n0 + yn < s_end[xr]) {
            sum += s_prod[yn++];
        } else {                        /* row r0 + xr ends here */
            y[r0 + xr++] = sum;
            sum = 0;
        }
    }
    /* Carries: each lane's partial of row xr, which a later lane (or the
     * next tile, xr = nrows) completes. Lanes' rows never decrease, so a
     * segmented shuffle sum gives the first lane of each run of equal rows
     * the run's total; it adds that to the row (distinct rows: no clash).
     * Lane 31 always ends at nrows, so exactly one lane writes the tail. */
    for (int o = 1; o < 32; o *= 2) {
        V v2 = __shfl_down_sync(0xffffffffu, sum, o);
        int r2 = __shfl_down_sync(0xffffffffu, xr, o);
        if (lane + o < 32 && r2 == xr)
            sum += v2;
    }
    int before = __shfl_up_sync(0xffffffffu, xr, 1);
    __syncwarp();                       /* orders the lanes' stores to y before the adds */
    if (lane == 0 || before != xr) {
        if (xr < nrows)
            y[r0 + xr] += sum;
        else
            carry_val[tile] = sum;
    }
    if (lane == 0)
        carry_row[tile] = r1;
}

/* Adds each tile's carry to its row, after every y was stored. Carry rows
 * never decrease with the tile, so a warp sums runs of equal rows with
 * shuffles and the first lane of each run adds it once. */
template <typename V>
__global__ void csr_merge_fixup(int64_t ntiles, int32_t rows,
                                const int32_t *__restrict__ carry_row,
                                const V *__restrict__ carry_val, V *__restrict__ y)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int32_t r = t < ntiles ? carry_row[t] : INT_MAX;
    V v = t < ntiles ? carry_val[t] : V(0);
    for (int o = 1; o < 32; o *= 2) {
        V v2 = __shfl_down_sync(0xffffffffu, v, o);
        int32_t r2 = __shfl_down_sync(0xffffffffu, r, o);
        if (lane + o < 32 && r2 == r)
            v += v2;
    }
    int32_t before = __shfl_up_sync(0xffffffffu, r, 1);
    if ((lane == 0 || before != r) && r < rows)
        atomicAdd(&y[r], v);
}

/* Host only: the blocksize checked, the path split into tiles (host
 * memory of the state's), then the CSR, x, y, the tiles and one carry per
 * tile recorded for the shared upload. */
extern "C" int sp_spmv_cuda_merge_prepare(const sp_problem *pb, const sp_params *p,
                                          void **state, sp_err *err)
{
    const char *name = "spmv_csr_cuda_merge";
    *state = NULL;
    int bs;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, 1, &bs, err) || sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_csr(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    if (sp_merge_tiles(pb->A, TILE, &g->h_tiles, &g->ntiles, err))
        return sp_spmv_gpu_done(g, -1, state);
    size_t n = (size_t)g->ntiles;
    int rc = sp_spmv_gpu_add(g, (void **)&g->tiles, g->h_tiles, (n + 1) * 8, 0, err) ||
             sp_spmv_gpu_add(g, (void **)&g->carry_row, NULL, n * 4, 0, err) ||
             sp_spmv_gpu_add(g, (void **)&g->carry_val, NULL, n * 8, 0, err) ||
             sp_spmv_gpu_memory(g, name, p, err) || sp_spmv_gpu_precision(g, prec, err);
    return sp_spmv_gpu_done(g, rc, state);
}

/* The dynamic shared memory of blocksize / 32 warps, past the default
 * 48 KB from 512 threads: a setting of the device's, so after the upload. */
extern "C" int sp_spmv_cuda_merge_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_merge: analyse without a state");
    int warps = g->blocksize / 32;
    if (g->prec == SP_SINGLE)
        SP_CUDA(cudaFuncSetAttribute(csr_merge_kernel<float>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)(warps * WARP_SMEM<float>)), err);
    else
        SP_CUDA(cudaFuncSetAttribute(csr_merge_kernel<double>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)(warps * WARP_SMEM<double>)), err);
    return 0;
}

/* The tile kernel, then the carries, in value type V. */
template <typename V> static void merge_launch(const sp_gpu_spmv *g, cudaStream_t stream)
{
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    int warps = g->blocksize / 32;
    unsigned blocks = (unsigned)((g->ntiles + warps - 1) / warps);
    csr_merge_kernel<V><<<blocks, g->blocksize, warps * WARP_SMEM<V>, stream>>>(
        g->ntiles, g->tiles, g->rowptr, g->colidx, v.val, v.x, v.y, g->carry_row,
        v.carry_val);
    csr_merge_fixup<V><<<(unsigned)((g->ntiles + 255) / 256), 256, 0, stream>>>(
        g->ntiles, g->rows, g->carry_row, v.carry_val, v.y);
}

/* The tile kernel, then the carries, both on the harness's stream (so the
 * fixup runs after every y was stored). Every launch rewrites y and every
 * carry: nothing to reset between launches. */
extern "C" int sp_spmv_cuda_merge_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_merge: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->ntiles > 0) {
        if (g->prec == SP_SINGLE)
            merge_launch<float>(g, stream);
        else
            merge_launch<double>(g, stream);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}
