/*
 * transpose_cuda_scatter.cu — the own fast transposition, few passes over
 * the data:
 *   1. column counts into colptr: warp-aggregated atomics (histogram);
 *   2. exclusive scan of colptr in place; a copy as per-column cursors;
 *   3. scatter: each warp takes SP_TRANS_ITEMS x 32 consecutive nonzeros,
 *      32 at a time; the row of each comes from the block's slice of
 *      rowptr in shared memory; each lane takes its slot from its column's
 *      cursor, lanes of one column ranked in position order with one
 *      atomic (so a column whose entries one warp writes is already in row
 *      order; across warps and blocks the order is whatever the atomics
 *      made it);
 *   4. order restored: one thread per column checks its rows; columns
 *      out of order, and every column longer than SP_TRANS_SHORT_COL, are
 *      listed, sorted by CUB's segmented sort (rows as keys, values along)
 *      and copied back. (Sorting short columns in place, one thread each,
 *      took 48 ms on the 27-point Laplacian 160^3, whose columns the
 *      atomics of many blocks interleave: measured, dropped.)
 * Matrices of up to SP_TRANS_SMALL_NNZ nonzeros take one launch instead
 * (transpose_small.cu: a cluster of blocks counting columns, or one
 * block).
 */
#include <cub/device/device_segmented_sort.cuh>

#include "transpose_gpu.cuh"

#define KERNEL "transpose_cuda_scatter"

/* rowptr entries a scatter block stages in shared memory */
#define STAGE_ROWS 4096

/* ---- the scatter ---------------------------------------------------------- */

template <typename V>
__global__ static void scatter(const int32_t *rowptr, int32_t rows, const int32_t *colidx,
                               const V *val, int32_t nnz, int32_t *cursor, V *cval,
                               int32_t *rowidx)
{
    __shared__ int32_t stage[STAGE_ROWS];
    __shared__ int32_t first, count;
    const int64_t tile = (int64_t)blockDim.x * SP_TRANS_ITEMS;
    int64_t k0 = (int64_t)blockIdx.x * tile, k1 = k0 + tile < nnz ? k0 + tile : nnz;
    if (threadIdx.x == 0) {
        int32_t r0 = sp_segment_of(rowptr, rows + 1, k0);
        first = r0;
        count = sp_segment_of(rowptr, rows + 1, k1 - 1) - r0 + 2;
    }
    __syncthreads();
    const int32_t r0 = first, len = count;
    const bool staged = len <= STAGE_ROWS;
    if (staged)
        for (int i = threadIdx.x; i < len; i += blockDim.x)
            stage[i] = rowptr[r0 + i];
    __syncthreads();
    /* warp w: positions k0 + w * 32 * ITEMS + step * 32 + lane */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t wk = k0 + (int64_t)warp * 32 * SP_TRANS_ITEMS;
    for (int step = 0; step < SP_TRANS_ITEMS; step++) {
        int64_t k = wk + step * 32 + lane;
        bool valid = k < k1;
        unsigned active = __ballot_sync(SP_FULL_MASK, valid);
        if (!active)
            break;
        if (valid) {
            int32_t c = colidx[k];
            V v = val[k];
            int32_t r = staged ? r0 + sp_segment_of(stage, len, k)
                               : sp_segment_of(rowptr, rows + 1, k);
            int32_t dst = sp_warp_atomic_inc(cursor, c, active);
            rowidx[dst] = r;
            cval[dst] = v;
        }
    }
}

/* ---- order restored ------------------------------------------------------ */

/* Column j: listed for the segmented sort when it is long (its order is
 * not checked) or when its rows are out of order. */
__global__ static void check_columns(const int32_t *colptr, int32_t cols, const int32_t *rowidx,
                                     int32_t *count, int32_t *seg_begin, int32_t *seg_end)
{
    int32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols)
        return;
    int32_t a = colptr[j], b = colptr[j + 1];
    bool sorted = b - a <= SP_TRANS_SHORT_COL;
    for (int32_t k = a + 1; k < b && sorted; k++)
        sorted = rowidx[k - 1] < rowidx[k];
    if (sorted)
        return;
    int32_t i = atomicAdd(count, 1);
    seg_begin[i] = a;
    seg_end[i] = b;
}

/* The listed columns back from the sort's output; one warp per column. */
template <typename V>
__global__ static void copy_back(const int32_t *count, const int32_t *seg_begin,
                                 const int32_t *seg_end, const int32_t *row_sorted,
                                 const V *val_sorted, int32_t *rowidx, V *cval)
{
    int lane = threadIdx.x & 31;
    int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t s = warp; s < *count; s += warps)
        for (int32_t k = seg_begin[s] + lane; k < seg_end[s]; k += 32) {
            rowidx[k] = row_sorted[k];
            cval[k] = val_sorted[k];
        }
}

/* CUB's temporary bytes for sorting `segments` of the nnz (row, value)
 * pairs (a size query: nothing is enqueued on `stream`). */
template <typename V>
static int segsort_bytes_t(sp_gpu_trans *g, int32_t segments, size_t *bytes,
                           cudaStream_t stream, sp_err *err)
{
    *bytes = 0;
    SP_CUDA(cub::DeviceSegmentedSort::SortPairs(NULL, *bytes, g->rowidx, g->w32b, (V *)g->cval,
                                                (V *)g->wval, g->nnz, segments, g->w32c,
                                                g->w32d, stream),
            err);
    return 0;
}

static int segsort_bytes(sp_gpu_trans *g, int32_t segments, size_t *bytes, cudaStream_t stream,
                         sp_err *err)
{
    return SP_TRANS_BY_VALUE(g, segsort_bytes_t, g, segments, bytes, stream, err);
}

extern "C" int sp_trans_scatter_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                        sp_err *err)
{
    *state = NULL;
    int bs = 0;
    if (sp_trans_gpu_blocksize(KERNEL, p, &bs, err))
        return -1;
    sp_gpu_trans *g = sp_trans_gpu_new(KERNEL, pb, p, err);
    if (!g)
        return -1;
    g->bs = bs;
    *state = g;
    return 0;
}

/* The scatter's work arrays and CUB's temporary storage for the sort of
 * every column (none on the one-launch path). */
static int scatter_work(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (sp_trans_small_fits(g))
        return 0;
    size_t cols = (size_t)g->cols, nnz = (size_t)g->nnz;
    return sp_trans_gpu_alloc((void **)&g->w32a, cols, 4, err) ||          /* cursors */
           sp_trans_gpu_alloc((void **)&g->w32b, nnz, 4, err) ||           /* sorted rows */
           sp_trans_gpu_alloc(&g->wval, nnz, g->vb, err) ||                 /* sorted values */
           sp_trans_gpu_alloc((void **)&g->w32c, cols, 4, err) ||          /* segment begins */
           sp_trans_gpu_alloc((void **)&g->w32d, cols, 4, err) ||          /* segment ends */
           sp_trans_gpu_alloc((void **)&g->count, 1, 4, err) ||
           sp_trans_gpu_alloc(&g->scan_temp, sp_gpu_scan_temp_bytes(g->cols, g->bs), 1, err) ||
           segsort_bytes(g, g->cols, &g->lib_bytes, stream, err) ||
           sp_trans_gpu_alloc(&g->lib_temp, g->lib_bytes, 1, err);
}

extern "C" int sp_trans_scatter_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, scatter_work, err);
}

/* The one-launch path's kernels set up (shared-memory limits, the
 * cluster probe); nothing for the scatter. */
static int scatter_setup(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    (void)stream;
    return sp_trans_small_fits(g) ? sp_trans_small_init(err) : 0;
}

extern "C" int sp_trans_scatter_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, scatter_setup, err);
}

/* Steps 1-4 of the header on g, enqueued on `stream`, values V. */
template <typename V>
static int scatter_transpose_t(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const int bs = g->bs;
    if (sp_gpu_histogram(g->colidx, g->nnz, g->colptr, g->cols, bs, stream, err) ||
        sp_gpu_scan(g->colptr, g->colptr, g->cols, bs, g->scan_temp, stream, err))
        return -1;
    if (g->nnz == 0)
        return 0;
    SP_CUDA(cudaMemcpyAsync(g->w32a, g->colptr, (size_t)g->cols * 4, cudaMemcpyDeviceToDevice,
                            stream),
            err);
    SP_CUDA(cudaMemsetAsync(g->count, 0, 4, stream), err);
    scatter<V><<<sp_grid(g->nnz, (int64_t)bs * SP_TRANS_ITEMS), bs, 0, stream>>>(
        g->rowptr, g->rows, g->colidx, (const V *)g->val, g->nnz, g->w32a, (V *)g->cval,
        g->rowidx);
    SP_LAUNCHED("scatter", err);
    check_columns<<<sp_grid(g->cols, bs), bs, 0, stream>>>(g->colptr, g->cols, g->rowidx,
                                                           g->count, g->w32c, g->w32d);
    SP_LAUNCHED("check_columns", err);
    /* A host read-back inside the launch: how many columns the segmented
     * sort gets is decided on the device, and CUB takes the segment count
     * from the host. The launch waits here for its own stream. */
    int32_t listed = 0;
    SP_CUDA(cudaMemcpyAsync(&listed, g->count, 4, cudaMemcpyDeviceToHost, stream), err);
    SP_CUDA(cudaStreamSynchronize(stream), err);
    if (listed == 0)
        return 0;
    size_t bytes;
    if (segsort_bytes(g, listed, &bytes, stream, err))
        return -1;
    if (bytes > g->lib_bytes)
        return sp_fail(err, KERNEL ": CUB asks %zu temporary bytes for %d "
                       "columns, %zu were allocated", bytes, listed, g->lib_bytes);
    SP_CUDA(cub::DeviceSegmentedSort::SortPairs(g->lib_temp, bytes, g->rowidx, g->w32b,
                                                (V *)g->cval, (V *)g->wval, g->nnz, listed,
                                                g->w32c, g->w32d, stream),
            err);
    unsigned blocks = sp_grid((int64_t)listed * 32, 256);
    copy_back<V><<<blocks < 4096 ? blocks : 4096, 256, 0, stream>>>(
        g->count, g->w32c, g->w32d, g->w32b, (const V *)g->wval, g->rowidx, (V *)g->cval);
    SP_LAUNCHED("copy_back", err);
    return 0;
}

static int scatter_transpose(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    return SP_TRANS_BY_VALUE(g, scatter_transpose_t, g, stream, err);
}

/* Small matrices in one launch, others by the scatter. */
static int scatter_or_small(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    return sp_trans_small_fits(g) ? sp_trans_small_route(g, stream, err)
                                  : scatter_transpose(g, stream, err);
}

extern "C" int sp_trans_scatter_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, scatter_or_small, err);
}
