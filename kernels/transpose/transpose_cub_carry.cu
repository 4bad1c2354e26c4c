/*
 * transpose_cub_carry.cu — CUB's radix sort with everything carried, no
 * gather: each nonzero's key is (column << 32 | row), sorted over the
 * column's bits only (bits 32 .. 32 + the bits cols - 1 needs), stable,
 * so each column keeps its rows ascending; the values travel as the
 * sort's payload straight from the CSR's val into the CSC's cval. Then
 * one pass writes rowidx (the keys' low words) and colptr (where the high
 * word changes).
 *
 * Against transpose_cub_sort (pairs (column, position), then a gather of
 * rows and values by position: two random 8- and 4-byte reads a nonzero,
 * most of its time on R-MAT), this moves 16 bytes a nonzero through each
 * of CUB's passes instead of 8, all of it in CUB's own streaming order.
 */
#include <cub/device/device_radix_sort.cuh>

#include "transpose_gpu.cuh"

#define KERNEL "transpose_cub_carry"
#define CARRY_THREADS 256
#define CARRY_TILE 4096

/* one key: the column in the high word, the row in the low */
__device__ static __forceinline__ uint64_t carry_key(int32_t c, int32_t r)
{
    return (uint64_t)(uint32_t)c << 32 | (uint32_t)r;
}

/* keys[q] = colidx[q] << 32 | row of q, a tile of CARRY_TILE positions a
 * block (rows filled into shared memory, or searched past the fill's
 * limit). A whole filled tile goes four positions a step: 16-byte loads
 * of the columns and rows, two 16-byte stores of keys (H100, A/B/A in one
 * call, whole carry against the scalar loop: R-MAT 3.375 / 3.377 ms
 * against 3.416, uniform 1.763 / 1.765 against 1.777, denserow 0.541 /
 * 0.540 against 0.547). */
__global__ static void __launch_bounds__(CARRY_THREADS)
carry_keys(const int32_t *__restrict__ rowptr, int32_t rows, const int32_t *__restrict__ colidx,
           int32_t nnz, uint64_t *__restrict__ keys)
{
    __shared__ __align__(16) int32_t rowof[CARRY_TILE];
    __shared__ int32_t s_first, s_last;
    const int64_t k0 = (int64_t)blockIdx.x * CARRY_TILE;
    const int64_t k1 = k0 + CARRY_TILE < nnz ? k0 + CARRY_TILE : nnz;
    const bool filled = sp_tile_fill_rows(rowptr, rows, k0, k1, CARRY_TILE, rowof, &s_first, &s_last);
    __syncthreads();
    if (filled && k1 - k0 == CARRY_TILE) {
        const int4 *c4 = (const int4 *)(colidx + k0);
        ulonglong2 *out = (ulonglong2 *)(keys + k0);
#pragma unroll
        for (int i = 0; i < CARRY_TILE / 4 / CARRY_THREADS; i++) {
            const int j = i * CARRY_THREADS + (int)threadIdx.x;
            const int4 c = __ldcs(c4 + j);   /* read once: evict first */
            const int4 r = ((const int4 *)rowof)[j];
            out[2 * j] = make_ulonglong2(carry_key(c.x, r.x), carry_key(c.y, r.y));
            out[2 * j + 1] = make_ulonglong2(carry_key(c.z, r.z), carry_key(c.w, r.w));
        }
        return;
    }
    for (int64_t q = k0 + threadIdx.x; q < k1; q += CARRY_THREADS) {
        int32_t r = filled ? rowof[q - k0] : sp_segment_of(rowptr, rows + 1, q);
        keys[q] = carry_key(colidx[q], r);
    }
}

/* rowidx[p] = the low word of sorted key p; colptr[c] = the first p whose
 * column is >= c. */
__global__ static void carry_unpack(const uint64_t *__restrict__ keys, int32_t nnz, int32_t cols,
                                    int32_t *__restrict__ rowidx, int32_t *__restrict__ colptr)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p <= nnz;
         p += (int64_t)gridDim.x * blockDim.x) {
        int32_t prev = p > 0 ? (int32_t)(keys[p - 1] >> 32) : -1, cur = cols;
        if (p < nnz) {
            uint64_t k = keys[p];
            cur = (int32_t)(k >> 32);
            rowidx[p] = (int32_t)(uint32_t)k;
        }
        for (int32_t c = prev + 1; c <= cur; c++)
            colptr[c] = (int32_t)p;
    }
}

static int col_bits(int32_t cols)
{
    int b = 1;
    while (b < 31 && ((uint32_t)(cols > 0 ? cols - 1 : 0) >> b))
        b++;
    return b;
}

/* w64a: keys in CSR order, w64b: sorted keys. temp NULL: CUB's size
 * query, nothing enqueued. */
template <typename V>
static int carry_sort_t(sp_gpu_trans *g, void *temp, size_t *bytes, cudaStream_t stream,
                        sp_err *err)
{
    SP_CUDA(cub::DeviceRadixSort::SortPairs(temp, *bytes, g->w64a, g->w64b, (const V *)g->val,
                                            (V *)g->cval, g->nnz, 32, 32 + col_bits(g->cols),
                                            stream),
            err);
    return 0;
}

/* The sort with g's values (V) as the payload. */
static int carry_sort(sp_gpu_trans *g, void *temp, size_t *bytes, cudaStream_t stream,
                      sp_err *err)
{
    return SP_TRANS_BY_VALUE(g, carry_sort_t, g, temp, bytes, stream, err);
}

extern "C" int sp_trans_carry_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                      sp_err *err)
{
    *state = NULL;
    sp_gpu_trans *g = sp_trans_gpu_new(KERNEL, pb, p, err);
    if (!g)
        return -1;
    g->bs = CARRY_THREADS;
    *state = g;
    return 0;
}

/* The keys in CSR order and sorted, and CUB's temporary storage. */
static int carry_work(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    size_t nnz = (size_t)g->nnz;
    return sp_trans_gpu_alloc((void **)&g->w64a, nnz, 8, err) ||
           sp_trans_gpu_alloc((void **)&g->w64b, nnz, 8, err) ||
           carry_sort(g, NULL, &g->lib_bytes, stream, err) ||
           sp_trans_gpu_alloc(&g->lib_temp, g->lib_bytes, 1, err);
}

extern "C" int sp_trans_carry_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, carry_work, err);
}

static int carry(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (g->nnz == 0) {
        SP_CUDA(cudaMemsetAsync(g->colptr, 0, ((size_t)g->cols + 1) * 4, stream), err);
        return 0;
    }
    /* carry_keys reads columns as int4 and writes keys as ulonglong2, a
     * whole tile (a multiple of 4 positions) at a time: both arrays are
     * their own cudaMalloc, 256-byte aligned */
    if (!sp_is_aligned(g->colidx, 16) || !sp_is_aligned(g->w64a, 16))
        return sp_fail(err, KERNEL ": columns or keys not 16-byte aligned");
    carry_keys<<<sp_grid(g->nnz, CARRY_TILE), CARRY_THREADS, 0, stream>>>(
        g->rowptr, g->rows, g->colidx, g->nnz, g->w64a);
    SP_LAUNCHED("carry_keys", err);
    size_t bytes = g->lib_bytes;
    if (carry_sort(g, g->lib_temp, &bytes, stream, err))
        return -1;
    carry_unpack<<<sp_grid((int64_t)g->nnz + 1, CARRY_THREADS * 4), CARRY_THREADS, 0, stream>>>(
        g->w64b, g->nnz, g->cols, g->rowidx, g->colptr);
    SP_LAUNCHED("carry_unpack", err);
    return 0;
}

extern "C" int sp_trans_carry_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, carry, err);
}
