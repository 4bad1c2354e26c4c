/*
 * transpose_small.cu — the whole transposition of a small matrix (at most
 * SP_TRANS_SMALL_NNZ nonzeros, fewer than SP_TRANS_SMALL_COLS columns) in
 * one block and one launch, shared by transpose_cuda_scatter and
 * transpose_cuda_radix: for such matrices the launches, not the bytes,
 * are the cost (cuSPARSE takes 65-110 us on bcsstk06 and olm1000).
 *
 * Up to SMALL_COUNT_COLS columns and SMALL_COUNT_NNZ nonzeros, a counting
 * sort without sorting (small_count: warps rank their runs' columns, then
 * every slot is known). Otherwise a block radix sort (small_transpose):
 * one round of global reads (the columns through shared memory into a
 * blocked arrangement, the values and, when the rows fit, rowptr, all
 * into shared memory), a block radix sort of (column, position), stable,
 * over the bits the columns need; then each sorted slot takes its row (a
 * search over the staged rowptr) and value (from shared memory) by
 * position, and the column pointers come from the sorted columns.
 *
 * H100, median of 30 (bench/RESULTS.md): 0.013-0.019 ms on four real
 * matrices of 1910-4089 nonzeros (counting), 0.022 on bcsstk06 (7860,
 * block sort), against cuSPARSE 0.064-0.091. The scatter kernel's first
 * one-block path (rows and values read after the sort, each row a binary
 * search in global memory) took 0.030 ms on bcsstk06.
 */
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "transpose_gpu.cuh"

#define SMALL_THREADS 512
#define SMALL_ITEMS (SP_TRANS_SMALL_NNZ / SMALL_THREADS)
/* digit bits of the block radix sort: up to 2^10 columns in two passes */
#define SMALL_RADIX_BITS 5
/* the counting path takes matrices of up to SMALL_COUNT_COLS columns (0:
 * never, for measuring the block sort path) and SMALL_COUNT_NNZ nonzeros.
 * Measured on the H100 (median of 30, two A/B/A rounds, ms, counting at
 * 1024 threads / 512 threads / block sort): olm1000 0.016 / 0.019-0.020 /
 * 0.018-0.019, ss_1138_bus 0.019-0.020 / 0.022-0.023 / 0.021, west0479
 * 0.016 / 0.019 / 0.015, young1c 0.018-0.019 / 0.021 / 0.018-0.019, but
 * bcsstk06 (7860 nonzeros) 0.029 / 0.030 / 0.023: a warp's rounds run one
 * after the other, the sort's passes in parallel. */
#ifndef SMALL_COUNT_COLS
#define SMALL_COUNT_COLS 2048
#endif
#define SMALL_COUNT_NNZ 4096
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

/* ---- the counting path (SMALL_COUNT_COLS, SMALL_COUNT_NNZ) ---------------
 * No sort: COUNT_WARPS warps, each a run of SMALL_COUNT_NNZ / COUNT_WARPS
 * positions in order, rank equal columns of a round of 32 in lane order
 * (__match_any_sync) after the run's 16-bit counter of that column; an
 * exclusive sum over the warps and one over the columns give every slot,
 * and each lane writes its row and value there. Rows from a fill of the
 * staged row range (sp_tile_fill_rows) or a search of rowptr. */
#ifndef COUNT_THREADS
#define COUNT_THREADS 1024
#endif
#define COUNT_WARPS (COUNT_THREADS / 32)
#define COUNT_RUN (SMALL_COUNT_NNZ / COUNT_WARPS)
#define COUNT_ITEMS (COUNT_RUN / 32)
/* Dynamic shared memory: the warps' packed counters (COUNT_WARPS x
 * SMALL_COUNT_COLS / 2 + 1 words), the columns' starts (SMALL_COUNT_COLS
 * ints), the rows of the positions (SMALL_COUNT_NNZ ints). */
#define COUNT_SMEM                                                                                 \
    (((size_t)COUNT_WARPS * (SMALL_COUNT_COLS / 2 + 1) + SMALL_COUNT_COLS + SMALL_COUNT_NNZ) * 4)

__global__ static void __launch_bounds__(COUNT_THREADS)
small_count(const int32_t *__restrict__ rowptr, int32_t rows, const int32_t *__restrict__ colidx,
            const double *__restrict__ val, int32_t nnz, int32_t cols,
            double *__restrict__ cval, int32_t *__restrict__ colptr,
            int32_t *__restrict__ rowidx)
{
    typedef cub::BlockScan<int32_t, COUNT_THREADS> block_scan;
    __shared__ typename block_scan::TempStorage scan_tmp;
    __shared__ int32_t s_first, s_last;
    extern __shared__ __align__(16) unsigned char dyn[];
    const int32_t words = (cols + 1) / 2;
    uint32_t *counters = (uint32_t *)dyn;
    int32_t *cstart = (int32_t *)(counters + COUNT_WARPS * (SMALL_COUNT_COLS / 2 + 1));
    int32_t *rowof = cstart + SMALL_COUNT_COLS;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t *mine = counters + warp * words;
    for (int32_t i = threadIdx.x; i < COUNT_WARPS * words; i += COUNT_THREADS)
        counters[i] = 0;
    const bool filled =
        sp_tile_fill_rows(rowptr, rows, 0, nnz, SMALL_COUNT_NNZ, rowof, &s_first, &s_last);
    const int32_t w0 = warp * COUNT_RUN;
    int32_t key[COUNT_ITEMS], rk[COUNT_ITEMS];
#pragma unroll
    for (int i = 0; i < COUNT_ITEMS; i++) {
        const int32_t q = w0 + i * 32 + lane;
        key[i] = q < nnz ? colidx[q] : 0;
    }
#pragma unroll
    for (int i = 0; i < COUNT_ITEMS; i++) {
        const bool valid = w0 + i * 32 + lane < nnz;
        const unsigned active = __ballot_sync(SP_FULL_MASK, valid);
        rk[i] = 0;
        if (valid)
            rk[i] = sp_run_rank16(mine, key[i], active);
    }
    __syncthreads();
    /* each run's start inside its column (a half's sum <= nnz < 2^16),
     * the columns' totals */
    sp_run_starts16(counters, words, COUNT_WARPS, cols, cstart);
    __syncthreads();
    const int32_t per = (cols + COUNT_THREADS - 1) / COUNT_THREADS;
    const int32_t c0 = (int32_t)threadIdx.x * per;
    int32_t sum = 0, excl = 0;
    for (int32_t j = 0; j < per && c0 + j < cols; j++)
        sum += cstart[c0 + j];
    block_scan(scan_tmp).ExclusiveSum(sum, excl);
    for (int32_t j = 0; j < per && c0 + j < cols; j++) {
        int32_t n = cstart[c0 + j];
        cstart[c0 + j] = excl;
        colptr[c0 + j] = excl;
        excl += n;
    }
    if (threadIdx.x == 0)
        colptr[cols] = nnz;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < COUNT_ITEMS; i++) {
        const int32_t q = w0 + i * 32 + lane;
        if (q < nnz) {
            const int32_t c = key[i];
            const int32_t p = cstart[c] + sp_run_start16(mine, c) + rk[i];
            rowidx[p] = filled ? rowof[q] : sp_segment_of(rowptr, rows + 1, q);
            cval[p] = val[q];
        }
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
    SP_CUDA(cudaFuncSetAttribute(small_count, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)COUNT_SMEM),
            err);
    return 0;
}

int sp_trans_small_route(sp_gpu_trans *g, sp_err *err)
{
    if (g->cols <= SMALL_COUNT_COLS && g->nnz > 0 && g->nnz <= SMALL_COUNT_NNZ) {
        small_count<<<1, COUNT_THREADS, COUNT_SMEM>>>(g->rowptr, g->rows, g->colidx, g->val,
                                                     g->nnz, g->cols, g->cval, g->colptr,
                                                     g->rowidx);
        SP_LAUNCHED("small_count", err);
        return 0;
    }
    small_transpose<<<1, SMALL_THREADS, SMALL_SMEM>>>(g->rowptr, g->rows, g->colidx, g->val,
                                                      g->nnz, g->cols,
                                                      bits_for((uint32_t)g->cols), g->cval,
                                                      g->colptr, g->rowidx);
    SP_LAUNCHED("small_transpose", err);
    return 0;
}
