/*
 * transpose_cub_sort.cu — the sort-based route: CUB's radix sort of the
 * pairs (column, position) over the bits the column count needs (stable,
 * so equal columns keep position order: rows ascending), then one pass
 * that gathers rows (from pointers-to-index) and values by position and
 * writes the column pointer where the column changes. The route (its
 * work arrays and its passes) is shared: transpose_cuda_symperm falls back
 * to it on matrices that are not structurally symmetric.
 */
#include <cub/device/device_radix_sort.cuh>

#include "transpose_gpu.cuh"

#define KERNEL "transpose_cub_sort"

__global__ static void iota(int32_t *a, int32_t n)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (int64_t)gridDim.x * blockDim.x)
        a[k] = (int32_t)k;
}

template <typename V>
__global__ static void gather_pairs(const int32_t *cols_sorted, const int32_t *perm,
                                    const int32_t *row, const V *val, int32_t nnz,
                                    int32_t cols, V *cval, int32_t *colptr, int32_t *rowidx)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p <= nnz;
         p += (int64_t)gridDim.x * blockDim.x) {
        int32_t prev = p > 0 ? cols_sorted[p - 1] : -1, cur = cols;
        if (p < nnz) {
            int32_t k = perm[p];
            cur = cols_sorted[p];
            rowidx[p] = row[k];
            cval[p] = val[k];
        }
        for (int32_t c = prev + 1; c <= cur; c++)
            colptr[c] = (int32_t)p;
    }
}

/* gather_pairs of g's values (V) on `stream` at block size bs. */
template <typename V>
static void gather_pairs_of(sp_gpu_trans *g, int bs, cudaStream_t stream)
{
    gather_pairs<V><<<sp_grid((int64_t)g->nnz + 1, bs * 4), bs, 0, stream>>>(
        g->w32c, g->w32b, g->w32d, (const V *)g->val, g->nnz, g->cols, (V *)g->cval, g->colptr,
        g->rowidx);
}

static int end_bit(int32_t cols)
{
    int b = 1;
    while (b < 31 && ((uint32_t)cols >> b))
        b++;
    return b;
}

/* w32a: positions, w32b: permutation, w32c: sorted columns, w32d: rows.
 * temp NULL: CUB's size query, nothing enqueued. */
static int sort_pairs(sp_gpu_trans *g, void *temp, size_t *bytes, cudaStream_t stream,
                      sp_err *err)
{
    SP_CUDA(cub::DeviceRadixSort::SortPairs(temp, *bytes, g->colidx, g->w32c, g->w32a, g->w32b,
                                            g->nnz, 0, end_bit(g->cols), stream),
            err);
    return 0;
}

/* The route's work arrays (four int32 arrays of nnz) and CUB's temporary
 * storage (its size asked for nnz pairs). */
int sp_trans_cub_alloc(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    size_t nnz = (size_t)g->nnz;
    return sp_trans_gpu_alloc((void **)&g->w32a, nnz, 4, err) ||
           sp_trans_gpu_alloc((void **)&g->w32b, nnz, 4, err) ||
           sp_trans_gpu_alloc((void **)&g->w32c, nnz, 4, err) ||
           sp_trans_gpu_alloc((void **)&g->w32d, nnz, 4, err) ||
           sort_pairs(g, NULL, &g->lib_bytes, stream, err) ||
           sp_trans_gpu_alloc(&g->lib_temp, g->lib_bytes, 1, err);
}

extern "C" int sp_trans_cub_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                    sp_err *err)
{
    *state = NULL;
    sp_gpu_trans *g = sp_trans_gpu_new(KERNEL, pb, p, err);
    if (!g)
        return -1;
    g->bs = SP_TRANS_CUB_BS;
    *state = g;
    return 0;
}

extern "C" int sp_trans_cub_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, sp_trans_cub_alloc, err);
}

/* The whole CSC of g by the route, enqueued on `stream` at its own block
 * size, SP_TRANS_CUB_BS, whatever g->bs is. */
int sp_trans_cub_route(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const int bs = SP_TRANS_CUB_BS;
    if (g->nnz == 0) {
        SP_CUDA(cudaMemsetAsync(g->colptr, 0, ((size_t)g->cols + 1) * 4, stream), err);
        return 0;
    }
    iota<<<sp_grid(g->nnz, bs * 4), bs, 0, stream>>>(g->w32a, g->nnz);
    SP_LAUNCHED("iota", err);
    size_t bytes = g->lib_bytes;
    if (sp_gpu_ptr2idx(g->rowptr, g->rows, g->w32d, g->nnz, bs, stream, err) ||
        sort_pairs(g, g->lib_temp, &bytes, stream, err))
        return -1;
    SP_TRANS_BY_VALUE(g, gather_pairs_of, g, bs, stream);
    SP_LAUNCHED("gather_pairs", err);
    return 0;
}

extern "C" int sp_trans_cub_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, sp_trans_cub_route, err);
}
