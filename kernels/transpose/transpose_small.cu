/*
 * transpose_small.cu — the whole transposition of a small matrix (at most
 * SP_TRANS_SMALL_NNZ nonzeros, fewer than SP_TRANS_SMALL_COLS columns) in
 * one block and one launch, shared by transpose_cuda_scatter and
 * transpose_cuda_radix: for such matrices the launches, not the bytes,
 * are the cost (cuSPARSE takes 65-110 us on bcsstk06 and olm1000).
 *
 * One round of global reads: the columns (through shared memory into a
 * blocked arrangement), the values and, when the rows fit, rowptr, all
 * into shared memory. A block radix sort of (column, position), stable,
 * over the bits the columns need; then each sorted slot takes its row
 * (a search over the staged rowptr) and value (from shared memory) by
 * position, and the column pointers come from the sorted columns. The
 * first version (reads of rows and values after the sort, each row a
 * binary search in global memory) took 0.030 ms on bcsstk06.
 */
#include <cub/block/block_radix_sort.cuh>

#include "transpose_gpu.cuh"

#define SMALL_THREADS 512
#define SMALL_ITEMS (SP_TRANS_SMALL_NNZ / SMALL_THREADS)
/* digit bits of the block radix sort: up to 2^10 columns in two passes */
#define SMALL_RADIX_BITS 5
/* rowptr staged when rows + 1 <= SMALL_STAGE */
#define SMALL_STAGE (SP_TRANS_SMALL_NNZ + 1)

typedef cub::BlockRadixSort<uint32_t, SMALL_THREADS, SMALL_ITEMS, int32_t, SMALL_RADIX_BITS>
    small_sort;

/* Dynamic shared memory: the values (SP_TRANS_SMALL_NNZ doubles), then
 * the staged rowptr (SMALL_STAGE ints). */
#define SMALL_SMEM ((size_t)SP_TRANS_SMALL_NNZ * 8 + (size_t)SMALL_STAGE * 4)

__global__ static void __launch_bounds__(SMALL_THREADS)
small_transpose(const int32_t *__restrict__ rowptr, int32_t rows,
                const int32_t *__restrict__ colidx, const double *__restrict__ val, int32_t nnz,
                int32_t cols, int end_bit, double *__restrict__ cval,
                int32_t *__restrict__ colptr, int32_t *__restrict__ rowidx)
{
    __shared__ union {
        typename small_sort::TempStorage sort;
        uint32_t keys[SP_TRANS_SMALL_NNZ];
    } sm;
    extern __shared__ __align__(16) unsigned char dyn[];
    double *sval = (double *)dyn;
    int32_t *sptr = (int32_t *)(sval + SP_TRANS_SMALL_NNZ);
    const int t = threadIdx.x;
    const bool staged = rows + 1 <= SMALL_STAGE;
    for (int32_t k = t; k < SP_TRANS_SMALL_NNZ; k += SMALL_THREADS) {
        sm.keys[k] = k < nnz ? (uint32_t)colidx[k] : (uint32_t)cols;
        if (k < nnz)
            sval[k] = val[k];
    }
    if (staged)
        for (int32_t r = t; r <= rows; r += SMALL_THREADS)
            sptr[r] = rowptr[r];
    __syncthreads();
    uint32_t key[SMALL_ITEMS];
    int32_t pos[SMALL_ITEMS];
    for (int i = 0; i < SMALL_ITEMS; i++) {
        pos[i] = t * SMALL_ITEMS + i;
        key[i] = sm.keys[pos[i]];
    }
    __syncthreads();
    small_sort(sm.sort).SortBlockedToStriped(key, pos, 0, end_bit);
    __syncthreads();
    for (int i = 0; i < SMALL_ITEMS; i++) {
        int32_t p = i * SMALL_THREADS + t;
        sm.keys[p] = key[i];
        if (p < nnz) {
            rowidx[p] = staged ? sp_segment_of(sptr, rows + 1, pos[i])
                               : sp_segment_of(rowptr, rows + 1, pos[i]);
            cval[p] = sval[pos[i]];
        }
    }
    __syncthreads();
    for (int32_t p = t; p <= nnz; p += SMALL_THREADS) {
        int32_t prev = p > 0 ? (int32_t)sm.keys[p - 1] : -1;
        int32_t cur = p < nnz ? (int32_t)sm.keys[p] : cols;
        for (int32_t c = prev + 1; c <= cur; c++)
            colptr[c] = p;
    }
}

/* Bits that hold every value 0..x. */
static int bits_for(uint32_t x)
{
    int b = 1;
    while (b < 32 && (x >> b))
        b++;
    return b;
}

int sp_trans_small_fits(const sp_gpu_trans *g)
{
    int32_t most = g->small_nnz > 0 ? g->small_nnz : SP_TRANS_SMALL_NNZ;
    return g->nnz <= most && g->cols < SP_TRANS_SMALL_COLS;
}

int sp_trans_small_init(sp_err *err)
{
    SP_CUDA(cudaFuncSetAttribute(small_transpose, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)SMALL_SMEM),
            err);
    return 0;
}

int sp_trans_small_route(sp_gpu_trans *g, sp_err *err)
{
    small_transpose<<<1, SMALL_THREADS, SMALL_SMEM>>>(g->rowptr, g->rows, g->colidx, g->val,
                                                      g->nnz, g->cols,
                                                      bits_for((uint32_t)g->cols), g->cval,
                                                      g->colptr, g->rowidx);
    SP_LAUNCHED("small_transpose", err);
    return 0;
}
