/*
 * transpose_cuda_mergetrans.cu — MergeTrans (Wang, Liu, Hou, Feng, ICS'16)
 * in CUDA, on the primitives: the keys (column << 32 | position) of the
 * nonzeros, sorted in segments of SP_PRIM_SEG in shared memory (segsort),
 * merged in rounds until one run is left (merge path), then one pass that
 * gathers rows (from pointers-to-index) and values by position and writes
 * the column pointer where the column changes (index-to-pointers). Keys
 * are unique, so the order is the stable one: rows ascending per column.
 */
#include "transpose_gpu.cuh"

#define KERNEL "transpose_cuda_mergetrans"

__global__ static void make_keys(const int32_t *colidx, int32_t nnz, uint64_t *keys)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz;
         k += (int64_t)gridDim.x * blockDim.x)
        keys[k] = (uint64_t)(uint32_t)colidx[k] << 32 | (uint32_t)k;
}

/* Position p = 0..nnz of the sorted keys: row and value gathered, and the
 * pointers of the columns that start at p. */
template <typename V>
__global__ static void gather_keys(const uint64_t *sorted, const int32_t *row, const V *val,
                                   int32_t nnz, int32_t cols, V *cval, int32_t *colptr,
                                   int32_t *rowidx)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p <= nnz;
         p += (int64_t)gridDim.x * blockDim.x) {
        int32_t prev = p > 0 ? (int32_t)(sorted[p - 1] >> 32) : -1;
        int32_t cur = cols;
        if (p < nnz) {
            uint64_t key = sorted[p];
            uint32_t k = (uint32_t)key;
            cur = (int32_t)(key >> 32);
            rowidx[p] = row[k];
            cval[p] = val[k];
        }
        for (int32_t c = prev + 1; c <= cur; c++)
            colptr[c] = (int32_t)p;
    }
}

/* gather_keys of g's values (V) on `stream`. */
template <typename V>
static void gather_keys_of(sp_gpu_trans *g, const uint64_t *sorted, cudaStream_t stream)
{
    gather_keys<V><<<sp_grid((int64_t)g->nnz + 1, (int64_t)g->bs * 4), g->bs, 0, stream>>>(
        sorted, g->w32a, (const V *)g->val, g->nnz, g->cols, (V *)g->cval, g->colptr, g->rowidx);
}

extern "C" int sp_trans_mergetrans_prepare(const sp_problem *pb, const sp_params *p,
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
    *state = g;
    return 0;
}

/* Two arrays of keys (the sort's and the merge's), the rows of the
 * positions. */
static int mergetrans_work(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    (void)stream;
    size_t nnz = (size_t)g->nnz;
    return sp_trans_gpu_alloc((void **)&g->w64a, nnz, 8, err) ||
           sp_trans_gpu_alloc((void **)&g->w64b, nnz, 8, err) ||
           sp_trans_gpu_alloc((void **)&g->w32a, nnz, 4, err);
}

extern "C" int sp_trans_mergetrans_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, mergetrans_work, err);
}

static int mergetrans(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const int bs = g->bs;
    if (g->nnz == 0) {
        SP_CUDA(cudaMemsetAsync(g->colptr, 0, ((size_t)g->cols + 1) * 4, stream), err);
        return 0;
    }
    make_keys<<<sp_grid(g->nnz, (int64_t)bs * 4), bs, 0, stream>>>(g->colidx, g->nnz, g->w64a);
    SP_LAUNCHED("make_keys", err);
    const uint64_t *sorted;
    if (sp_gpu_segsort(g->w64a, g->w64b, g->nnz, bs, stream, err) ||
        sp_gpu_merge(g->w64b, g->w64a, g->w64b, g->nnz, SP_PRIM_SEG, bs, &sorted, stream, err) ||
        sp_gpu_ptr2idx(g->rowptr, g->rows, g->w32a, g->nnz, bs, stream, err))
        return -1;
    SP_TRANS_BY_VALUE(g, gather_keys_of, g, sorted, stream);
    SP_LAUNCHED("gather_keys", err);
    return 0;
}

extern "C" int sp_trans_mergetrans_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, mergetrans, err);
}
