/*
 * transpose_cuda_scantrans.cu — ScanTrans (Wang, Liu, Hou, Feng, ICS'16) in
 * CUDA. The nonzeros are split into `units` contiguous chunks, one warp
 * each (the `scan_threads` axis: by default sp_scantrans_gpu_units chooses
 * how many fit the memory budget; auto is study 001's occupancy-API
 * choice, resolved in upload; transpose_cuda_scantrans_host.c):
 *   0. the row of each nonzero (pointers-to-index, prim);
 *   1. each warp counts its chunk's columns into its own row of the
 *      (units + 1) x cols counts, 32 positions at a time, equal columns
 *      of a step counted with one update (no atomics: the row is its own);
 *   2. vertical scan: for each column (one thread, coalesced over the
 *      columns) the counts of the units before each unit, and the total;
 *   3. exclusive scan of the totals into colptr;
 *   4. write back: each warp walks its chunk again in position order and
 *      puts each entry at colptr + its unit's offset + its rank, so rows
 *      stay ascending in every column without any sort.
 * With `steps = 1` the launch marks four steps, study 001's four kernels:
 * histogram (0 and 1), vertical_scan (2), prefix_sum (3), write_back (4).
 */
#include "transpose_gpu.cuh"

#define KERNEL "transpose_cuda_scantrans"

/* The warp's chunk of positions [c0, c1). */
__device__ static void chunk_of(int32_t nnz, int32_t units, int32_t u, int64_t *c0, int64_t *c1)
{
    int64_t per = ((int64_t)nnz + units - 1) / units;
    *c0 = (int64_t)u * per < nnz ? (int64_t)u * per : nnz;
    *c1 = *c0 + per < nnz ? *c0 + per : nnz;
}

__global__ static void count_units(const int32_t *colidx, int32_t nnz, int32_t cols,
                                   int32_t units, int32_t *counts)
{
    int32_t u = (int32_t)(((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (u >= units)
        return;
    int lane = threadIdx.x & 31;
    int64_t c0, c1;
    chunk_of(nnz, units, u, &c0, &c1);
    int32_t *mine = counts + (size_t)u * cols;
    for (int64_t k0 = c0; k0 < c1; k0 += 32) {
        int64_t k = k0 + lane;
        unsigned active = __ballot_sync(SP_FULL_MASK, k < c1);
        if (k < c1) {
            int32_t c = colidx[k];
            unsigned peers = __match_any_sync(active, c);
            if (lane == __ffs(peers) - 1)
                mine[c] += __popc(peers);
        }
        __syncwarp();
    }
}

/* counts[u][j] = sum of counts[0..u-1][j]; counts[units][j] = the total. */
__global__ static void vertical_scan(int32_t *counts, int32_t cols, int32_t units)
{
    int32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols)
        return;
    int32_t run = 0;
    for (int32_t u = 0; u < units; u++) {
        int32_t x = counts[(size_t)u * cols + j];
        counts[(size_t)u * cols + j] = run;
        run += x;
    }
    counts[(size_t)units * cols + j] = run;
}

template <typename V>
__global__ static void write_back(const int32_t *row, const int32_t *colidx, const V *val,
                                  int32_t nnz, int32_t cols, int32_t units, int32_t *offsets,
                                  const int32_t *colptr, V *cval, int32_t *rowidx)
{
    int32_t u = (int32_t)(((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (u >= units)
        return;
    int lane = threadIdx.x & 31;
    int64_t c0, c1;
    chunk_of(nnz, units, u, &c0, &c1);
    int32_t *mine = offsets + (size_t)u * cols;
    for (int64_t k0 = c0; k0 < c1; k0 += 32) {
        int64_t k = k0 + lane;
        unsigned active = __ballot_sync(SP_FULL_MASK, k < c1);
        if (k < c1) {
            int32_t c = colidx[k];
            unsigned peers = __match_any_sync(active, c);
            int leader = __ffs(peers) - 1;
            int32_t base = colptr[c] + mine[c];
            int32_t dst = base + __popc(peers & ((1u << lane) - 1u));
            rowidx[dst] = row[k];
            cval[dst] = val[k];
            __syncwarp(active);
            if (lane == leader)
                mine[c] += __popc(peers);
        }
        __syncwarp();
    }
}

/* write_back of g's values (V) on `stream`. */
template <typename V>
static void write_back_of(sp_gpu_trans *g, unsigned grid, int32_t *counts, cudaStream_t stream)
{
    write_back<V><<<grid, g->bs, 0, stream>>>(g->w32b, g->colidx, (const V *)g->val, g->nnz,
                                              g->cols, g->units, counts, g->colptr,
                                              (V *)g->cval, g->rowidx);
}

/* Host only: the axes, and the unit count that fits the budget. */
extern "C" int sp_trans_scantrans_prepare(const sp_problem *pb, const sp_params *p,
                                          void **state, sp_err *err)
{
    *state = NULL;
    int bs = 0;
    if (sp_trans_gpu_blocksize(KERNEL, p, &bs, err))
        return -1;
    sp_gpu_trans *g = sp_trans_gpu_new(KERNEL, pb, p, err);
    if (!g)
        return -1;
    g->bs = bs;
    if (sp_scantrans_gpu_axis_units(pb->A, p, SP_SCANTRANS_BUDGET, &g->units, err)) {
        sp_trans_gpu_release(g);    /* host memory only: no device call */
        return -1;
    }
    *state = g;
    return 0;
}

/* The (units + 1) x cols counts, the rows of the positions, the scan's
 * temporaries. */
static int scantrans_work(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    (void)stream;
    if (g->units == SP_SCAN_THREADS_AUTO) {
        /* study 001: the block size the occupancy API suggests for the
         * counting kernel, times the blocks that cover max(rows, cols) */
        int min_grid = 0, bs = 0;
        SP_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &bs, count_units, 0, 0), err);
        if (sp_scantrans_auto_units(g->A, bs, SP_SCANTRANS_BUDGET, &g->units, err))
            return -1;
    }
    return sp_trans_gpu_alloc((void **)&g->w32a, ((size_t)g->units + 1) * (size_t)g->cols, 4,
                              err) ||
           sp_trans_gpu_alloc((void **)&g->w32b, (size_t)g->nnz, 4, err) ||
           sp_trans_gpu_alloc(&g->scan_temp, sp_gpu_scan_temp_bytes(g->cols, g->bs), 1, err);
}

extern "C" int sp_trans_scantrans_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, scantrans_work, err);
}

/* The whole transposition on `stream`; ex marks the steps (sp_exec_mark:
 * a no-op unless the sweep times steps). */
static int scantrans(sp_gpu_trans *g, const sp_exec *ex, cudaStream_t stream, sp_err *err)
{
    const int bs = g->bs;
    const size_t cols = (size_t)g->cols;
    int32_t *counts = g->w32a;
    unsigned warps_grid = sp_grid((int64_t)g->units * 32, bs);
    sp_exec_mark(ex, "histogram");
    if (g->nnz > 0 && sp_gpu_ptr2idx(g->rowptr, g->rows, g->w32b, g->nnz, bs, stream, err))
        return -1;
    SP_CUDA(cudaMemsetAsync(counts, 0, (size_t)g->units * cols * 4, stream), err);
    if (g->nnz > 0) {
        count_units<<<warps_grid, bs, 0, stream>>>(g->colidx, g->nnz, g->cols, g->units, counts);
        SP_LAUNCHED("count_units", err);
    }
    sp_exec_mark(ex, "vertical_scan");
    if (g->cols > 0) {
        vertical_scan<<<sp_grid(g->cols, bs), bs, 0, stream>>>(counts, g->cols, g->units);
        SP_LAUNCHED("vertical_scan", err);
    }
    sp_exec_mark(ex, "prefix_sum");
    if (sp_gpu_scan(counts + (size_t)g->units * cols, g->colptr, g->cols, bs, g->scan_temp,
                    stream, err))
        return -1;
    sp_exec_mark(ex, "write_back");
    if (g->nnz == 0)
        return 0;
    SP_TRANS_BY_VALUE(g, write_back_of, g, warps_grid, counts, stream);
    SP_LAUNCHED("write_back", err);
    return 0;
}

extern "C" int sp_trans_scantrans_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g)
        return sp_fail(err, "%s: no state", KERNEL);
    return scantrans(g, ex, sp_trans_stream(ex), err);
}
