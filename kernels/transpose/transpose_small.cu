/*
 * transpose_small.cu — the whole transposition of a small matrix (at most
 * SP_TRANS_SMALL_NNZ nonzeros, fewer than SP_TRANS_SMALL_COLS columns) in
 * one launch, shared by transpose_cuda_scatter and transpose_cuda_radix:
 * for such matrices the launches, not the bytes, are the cost (cuSPARSE
 * launches 11-14 kernels and takes 60-120 us on the small real matrices).
 *
 * Three paths, by shape:
 *   small_cluster   up to SMALL_COUNT_COLS columns and CL_ROWS rows, on a
 *                   device with clusters (sm_90): CL_BLOCKS blocks on as
 *                   many SMs share the positions, each ranks its share's
 *                   columns, and the column totals meet through
 *                   distributed shared memory.
 *   small_count     up to SMALL_COUNT_COLS columns otherwise: the same
 *                   counting in one block (rows past its stage searched
 *                   in global memory).
 *   small_transpose more columns: one block, a block radix sort of
 *                   (column, position), stable, over the bits the columns
 *                   need; rows and values staged in shared memory.
 * The counting paths sort nothing: each position's slot is its column's
 * start + its rank among the equal columns before it (warp runs,
 * __match_any_sync), and its row comes from marks of the row starts and
 * a max-scan.
 *
 * H100, events, median of 30 (bench/RESULTS.md): the cluster path 0.010-
 * 0.013 ms on five small real matrices (bcsstk06 0.012), against one
 * block's 0.013-0.022 and cuSPARSE's 0.069-0.108. One block is bound by
 * its one SM: ncu put olm1000's one-block kernel at 10-12 us whatever was
 * trimmed (a search a position replaced by the row marks, the CSC staged
 * for coalesced writes: the instructions fell by a quarter, the time did
 * not); the phases of the cluster path are measured by
 * bench/small_probe.cu.
 */
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <stdlib.h>
#include <string.h>

#include "transpose_gpu.cuh"

/* SMALL_PROBE (bench/small_probe.cu only): block 0's thread 0 stamps the
 * global timer at each phase of the cluster path into small_probe[]. */
#ifdef SMALL_PROBE
__device__ unsigned long long small_probe[16];
#define SP_PROBE(i)                                                                                \
    do {                                                                                           \
        if (threadIdx.x == 0 && blockIdx.x == 0) {                                                 \
            unsigned long long t_;                                                                 \
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_));                                \
            small_probe[i] = t_;                                                                   \
        }                                                                                          \
    } while (0)
#else
#define SP_PROBE(i) ((void)0)
#endif

#define SMALL_THREADS 512
#define SMALL_ITEMS (SP_TRANS_SMALL_NNZ / SMALL_THREADS)
/* digit bits of the block radix sort: up to 2^10 columns in two passes */
#define SMALL_RADIX_BITS 5
/* the counting path takes matrices of up to SMALL_COUNT_COLS columns (0:
 * never, for measuring the block sort path).
 * Its first version (runs of 128, 1024 threads, four dependent rounds of
 * global reads), measured on the H100 (median of 30, two A/B/A rounds,
 * ms, counting at 1024 threads / 512 threads / block sort): olm1000 0.016
 * / 0.019-0.020 / 0.018-0.019, ss_1138_bus 0.019-0.020 / 0.022-0.023 /
 * 0.021, west0479 0.016 / 0.019 / 0.015, young1c 0.018-0.019 / 0.021 /
 * 0.018-0.019, but bcsstk06 (7860 nonzeros) 0.029 / 0.030 / 0.023. */
#ifndef SMALL_COUNT_COLS
#define SMALL_COUNT_COLS 2048
#endif
/* rowptr staged when rows + 1 <= SMALL_STAGE */
#define SMALL_STAGE (SP_TRANS_SMALL_NNZ + 1)

typedef cub::BlockRadixSort<uint32_t, SMALL_THREADS, SMALL_ITEMS, int32_t, SMALL_RADIX_BITS>
    small_sort;

/* Dynamic shared memory: the values (SP_TRANS_SMALL_NNZ of V, room for
 * doubles whatever V is), then the staged rowptr (SMALL_STAGE ints). */
#define SMALL_SMEM ((size_t)SP_TRANS_SMALL_NNZ * 8 + (size_t)SMALL_STAGE * 4)

template <typename V>
__global__ static void __launch_bounds__(SMALL_THREADS)
small_transpose(const int32_t *__restrict__ rowptr, int32_t rows,
                const int32_t *__restrict__ colidx, const V *__restrict__ val, int32_t nnz,
                int32_t cols, int end_bit, V *__restrict__ cval,
                int32_t *__restrict__ colptr, int32_t *__restrict__ rowidx)
{
    __shared__ union {
        typename small_sort::TempStorage sort;
        uint32_t keys[SP_TRANS_SMALL_NNZ];
    } sm;
    extern __shared__ __align__(16) unsigned char dyn[];
    V *sval = (V *)dyn;
    int32_t *sptr = (int32_t *)(dyn + (size_t)SP_TRANS_SMALL_NNZ * 8);
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

/* ---- the counting path (up to SMALL_COUNT_COLS columns) ----------------
 * No sort, one round of global reads: each of COUNT_WARPS warps takes a run
 * of `items` x 32 consecutive positions (items = nnz / COUNT_THREADS
 * rounded up, at most COUNT_ITEMS) and loads its columns and values into
 * registers while the block stages rowptr in shared memory. After one
 * barrier the warp ranks equal columns of each round of 32 in lane order
 * (__match_any_sync) after the run's 16-bit counter of that column; an
 * exclusive sum over the warps and one over the columns give every slot.
 * Rows: each nonempty row marks its first position and a max-scan fills
 * the rest (rows past COUNT_ROWS: a search of global rowptr a position).
 * The CSC is staged in shared memory in slot order and written out in
 * runs. The first version (rows filled after a search for the tile's row
 * range, columns read after that, values at the end: four dependent rounds
 * of global reads, runs of 128, at most 4096 nonzeros) took 10.5 us of
 * kernel time on olm1000 (ncu); this one 10-12 us (bcsstk06 19.5, where
 * the block sort took 20.1): one SM is the limit, hence the cluster path. */
#ifndef COUNT_THREADS
#define COUNT_THREADS 1024
#endif
#define COUNT_WARPS (COUNT_THREADS / 32)
#define COUNT_ITEMS (SP_TRANS_SMALL_NNZ / COUNT_THREADS)
/* rowptr staged when rows <= COUNT_ROWS (a power of two) */
#define COUNT_ROWS SP_TRANS_SMALL_NNZ
/* Dynamic shared memory: the warps' packed counters (COUNT_WARPS x
 * SMALL_COUNT_COLS / 2 + 1 words), the columns' starts (SMALL_COUNT_COLS
 * ints), the staged rowptr (COUNT_ROWS ints: rowptr[rows] is not needed),
 * the positions' rows (SP_TRANS_SMALL_NNZ ints). */
#define COUNT_SMEM                                                                                 \
    (((size_t)COUNT_WARPS * (SMALL_COUNT_COLS / 2 + 1) + SMALL_COUNT_COLS + COUNT_ROWS +          \
      SP_TRANS_SMALL_NNZ) *                                                                        \
     4)

struct count_max {
    __device__ int32_t operator()(int32_t a, int32_t b) const { return a > b ? a : b; }
};

/* The counting paths' steps, shared by small_count and small_cluster. A
 * warp's items are the positions q = w0 + 32 i + lane, i < items, q < end.
 * Their columns and values into registers (0 past the end). */
template <int N, typename V>
__device__ static __forceinline__ void small_load_items(const int32_t *__restrict__ colidx,
                                                        const V *__restrict__ val,
                                                        int32_t w0, int items, int32_t end,
                                                        int32_t (&key)[N], V (&v)[N])
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const int32_t q = w0 + i * 32 + lane;
        const bool mine = i < items && q < end;
        key[i] = mine ? colidx[q] : 0;
        v[i] = mine ? val[q] : (V)0;
    }
}

/* Each item's rank among the equal columns of the warp's run (after the
 * run's counters in `mine`, sp_run_rank16) into its key's high half:
 * key = column | rank << 16. `items` is the same for the whole block. */
template <int N>
__device__ static __forceinline__ void small_rank_items(uint32_t *mine, int32_t w0, int items,
                                                        int32_t end, int32_t (&key)[N])
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < N; i++) {
        if (i < items) {
            const bool valid = w0 + i * 32 + lane < end;
            const unsigned active = __ballot_sync(SP_FULL_MASK, valid);
            if (valid)
                key[i] |= sp_run_rank16(mine, key[i], active) << 16;
        }
    }
}

/* The slot of an item of key column | rank << 16: its column's start
 * (base), its run's start inside the column (after sp_run_starts16), its
 * rank. */
__device__ static __forceinline__ int32_t small_slot(const int32_t *base, const uint32_t *mine,
                                                     int32_t key)
{
    const int32_t c = key & 0xffff;
    return base[c] + sp_run_start16(mine, c) + (key >> 16);
}

/* rowof[0, n): the row marks (a nonempty row's number at its first
 * position, 0 elsewhere) become every position's row by an inclusive
 * max-scan, ITEMS consecutive positions a thread. Block-wide. */
template <int ITEMS, typename BlockScan>
__device__ static __forceinline__ void small_row_scan(int32_t *rowof, int32_t n,
                                                      typename BlockScan::TempStorage &tmp)
{
    int32_t rr[ITEMS];
    const int32_t p0 = (int32_t)threadIdx.x * ITEMS;
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        rr[j] = p0 + j < n ? rowof[p0 + j] : 0;
    BlockScan(tmp).InclusiveScan(rr, rr, count_max());
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (p0 + j < n)
            rowof[p0 + j] = rr[j];
}

template <typename V>
__global__ static void __launch_bounds__(COUNT_THREADS)
small_count(const int32_t *__restrict__ rowptr, int32_t rows, const int32_t *__restrict__ colidx,
            const V *__restrict__ val, int32_t nnz, int32_t cols,
            V *__restrict__ cval, int32_t *__restrict__ colptr,
            int32_t *__restrict__ rowidx)
{
    typedef cub::BlockScan<int32_t, COUNT_THREADS> block_scan;
    __shared__ typename block_scan::TempStorage scan_tmp;
    extern __shared__ __align__(16) unsigned char dyn[];
    const int32_t words = (cols + 1) / 2;
    uint32_t *counters = (uint32_t *)dyn;
    int32_t *cstart = (int32_t *)(counters + COUNT_WARPS * (SMALL_COUNT_COLS / 2 + 1));
    int32_t *sptr = cstart + SMALL_COUNT_COLS;
    int32_t *rowof = sptr + COUNT_ROWS;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int items = (nnz + COUNT_THREADS - 1) / COUNT_THREADS;
    const int32_t w0 = warp * items * 32;
    uint32_t *mine = counters + warp * words;
    const bool staged = rows <= COUNT_ROWS;
    /* the one round of global reads: columns and values into registers,
     * rowptr into shared memory; the counters cleared meanwhile. key: the
     * column, then (after the ranks) column | rank << 16 (a column < 2^11,
     * a rank < 2^8), leaving registers for the values */
    int32_t key[COUNT_ITEMS];
    V v[COUNT_ITEMS];
    small_load_items(colidx, val, w0, items, nnz, key, v);
    if (staged)
        for (int32_t r = threadIdx.x; r < rows; r += COUNT_THREADS)
            sptr[r] = rowptr[r];
    /* cleared four words a store (both arrays start 16-byte aligned and
     * have room up to the next multiple of four) */
    const uint4 zero = make_uint4(0, 0, 0, 0);
    for (int32_t i = threadIdx.x; i < (COUNT_WARPS * words + 3) / 4; i += COUNT_THREADS)
        ((uint4 *)counters)[i] = zero;
    if (staged)
        for (int32_t i = threadIdx.x; i < (nnz + 3) / 4; i += COUNT_THREADS)
            ((uint4 *)rowof)[i] = zero;
    __syncthreads();
    small_rank_items(mine, w0, items, nnz, key);
    /* each nonempty row marks its first position; a max-scan then gives
     * every position its row (a search a position was the kernel's most
     * executed line; without it the instructions fell by a quarter, the
     * time did not) */
    if (staged)
        for (int32_t r = threadIdx.x; r < rows; r += COUNT_THREADS) {
            const int32_t a = sptr[r], b = r + 1 < rows ? sptr[r + 1] : nnz;
            if (a < b)
                rowof[a] = r;
        }
    __syncthreads();
    /* each run's start inside its column (a half's sum <= nnz < 2^16),
     * the columns' totals */
    sp_run_starts16(counters, words, COUNT_WARPS, cols, cstart);
    if (staged)
        small_row_scan<COUNT_ITEMS, block_scan>(rowof, nnz, scan_tmp);
    __syncthreads();
    sp_block_excl_inplace<block_scan, COUNT_THREADS>(cstart, cols, scan_tmp, colptr);
    if (threadIdx.x == 0)
        colptr[cols] = nnz;
    __syncthreads();
    /* every item's slot into key; after the barrier the counters' space
     * holds the CSC's rows and values in slot order, written out in runs
     * (ncu, kernel time: bcsstk06 24.1 -> 19.5 us, but olm1000 10.3 ->
     * 11.5; the others within 0.5 us) */
#pragma unroll
    for (int i = 0; i < COUNT_ITEMS; i++) {
        const int32_t q = w0 + i * 32 + lane;
        if (i < items && q < nnz)
            key[i] = small_slot(cstart, mine, key[i]);
    }
    __syncthreads();
    int32_t *srow = (int32_t *)dyn;
    V *sval = (V *)(dyn + (size_t)SP_TRANS_SMALL_NNZ * 4);
#pragma unroll
    for (int i = 0; i < COUNT_ITEMS; i++) {
        const int32_t q = w0 + i * 32 + lane;
        if (i < items && q < nnz) {
            srow[key[i]] = staged ? rowof[q] : sp_segment_of(rowptr, rows + 1, q);
            sval[key[i]] = v[i];
        }
    }
    __syncthreads();
    for (int32_t p = threadIdx.x; p < nnz; p += COUNT_THREADS) {
        rowidx[p] = srow[p];
        cval[p] = sval[p];
    }
}

static_assert(((size_t)COUNT_WARPS * (SMALL_COUNT_COLS / 2 + 1) + SMALL_COUNT_COLS + COUNT_ROWS) *
                      4 % 16 ==
                  0,
              "the positions' rows start 16-byte aligned");
static_assert((size_t)SP_TRANS_SMALL_NNZ * 12 <=
                  (size_t)COUNT_WARPS * (SMALL_COUNT_COLS / 2 + 1) * 4,
              "the CSC's stage fits in the counters' space");

/* ---- the cluster path (sm_90) ------------------------------------------
 * One block is bound by one SM (ncu on small_count: olm1000 10-12 us of
 * kernel time at an issue rate of 2 a cycle; an empty launch is 2.3 us).
 * A cluster of CL_BLOCKS blocks, one launch, splits the positions into
 * CL_BLOCKS shares and each block does small_count's work on its share
 * (ranks by warp runs, its column totals, its rows by marks and a
 * max-scan); the blocks then read each other's column totals through
 * distributed shared memory: column c's slots start at the sum of every
 * block's total of the columns before c, and block b's at that plus the
 * blocks before b. Up to SP_TRANS_SMALL_NNZ nonzeros, SMALL_COUNT_COLS
 * columns and CL_ROWS rows. */
#ifndef SMALL_CLUSTER
#define SMALL_CLUSTER 1
#endif
/* blocks a cluster (portable sizes: 2, 4, 8). H100, A/B/A/B in one call,
 * radix on five small real matrices, ms: 8 blocks 0.0105-0.0131, 4 blocks
 * 0.0108-0.0151 (slower on four of the five) */
#ifndef CL_BLOCKS
#define CL_BLOCKS 8
#endif
#define CL_THREADS 512
#define CL_WARPS (CL_THREADS / 32)
#define CL_ITEMS (SP_TRANS_SMALL_NNZ / (CL_BLOCKS * CL_THREADS))
#define CL_SHARE (CL_THREADS * CL_ITEMS)           /* positions a block, at most */
#define CL_COLS_EACH (SMALL_COUNT_COLS / CL_THREADS) /* columns a thread in the sums */
#define CL_ROWS SP_TRANS_SMALL_NNZ
#define CL_PRE 2   /* rounds of row starts read before the first barrier */
/* Dynamic shared memory: the warps' packed counters, the block's column
 * totals (read by the other blocks), the columns' slot bases, the rows of
 * the block's positions. */
#define CL_SMEM                                                                                    \
    (((size_t)CL_WARPS * (SMALL_COUNT_COLS / 2 + 1) + 2 * SMALL_COUNT_COLS + CL_SHARE) * 4)
static_assert(CL_ITEMS >= 1 && SMALL_COUNT_COLS == 4 * CL_THREADS, "the cluster's split");
static_assert(((size_t)CL_WARPS * (SMALL_COUNT_COLS / 2 + 1) + 2 * SMALL_COUNT_COLS) * 4 % 16 == 0,
              "the rows' array starts 16-byte aligned");
static_assert((size_t)CL_WARPS * (SMALL_COUNT_COLS / 2 + 1) * 4 % 16 == 0,
              "the totals start 16-byte aligned (other blocks read them as int4)");

template <typename V>
__global__ static void __cluster_dims__(CL_BLOCKS, 1, 1) __launch_bounds__(CL_THREADS)
small_cluster(const int32_t *__restrict__ rowptr, int32_t rows,
              const int32_t *__restrict__ colidx, const V *__restrict__ val, int32_t nnz,
              int32_t cols, V *__restrict__ cval, int32_t *__restrict__ colptr,
              int32_t *__restrict__ rowidx)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef cub::BlockScan<int32_t, CL_THREADS> block_scan;
    typedef cub::BlockReduce<int32_t, CL_THREADS> block_reduce;
    __shared__ typename block_scan::TempStorage scan_tmp;
    __shared__ typename block_reduce::TempStorage reduce_tmp;
    __shared__ int32_t s_carry;
    extern __shared__ __align__(16) unsigned char dyn[];
    const int32_t words = (cols + 1) / 2;
    uint32_t *counters = (uint32_t *)dyn;
    int32_t *tot = (int32_t *)(counters + CL_WARPS * (SMALL_COUNT_COLS / 2 + 1));
    int32_t *base = tot + SMALL_COUNT_COLS;
    int32_t *rowof = base + SMALL_COUNT_COLS;
    const int32_t b = (int32_t)__clusterRelativeBlockRank();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int32_t share = (nnz + CL_BLOCKS - 1) / CL_BLOCKS;
    const int32_t k0 = b * share < nnz ? b * share : nnz;
    const int32_t k1 = k0 + share < nnz ? k0 + share : nnz;
    const int items = (share + CL_THREADS - 1) / CL_THREADS;   /* the same in every block */
    const int32_t w0 = k0 + warp * items * 32;
    uint32_t *mine = counters + warp * words;
    SP_PROBE(0);
    /* key: the column, then column | rank << 16 (column < 2^11, rank < 2^6) */
    int32_t key[CL_ITEMS];
    V v[CL_ITEMS];
    small_load_items(colidx, val, w0, items, k1, key, v);
    /* the first CL_PRE rounds of row starts read with the columns */
    int32_t ra[CL_PRE], re[CL_PRE];
#pragma unroll
    for (int j = 0; j < CL_PRE; j++) {
        const int32_t r = j * CL_THREADS + (int32_t)threadIdx.x;
        ra[j] = r < rows && k0 < k1 ? rowptr[r] : 0;
        re[j] = r < rows && k0 < k1 ? rowptr[r + 1] : 0;
    }
    const uint4 zero = make_uint4(0, 0, 0, 0);
    for (int32_t i = threadIdx.x; i < (CL_WARPS * words + 3) / 4; i += CL_THREADS)
        ((uint4 *)counters)[i] = zero;
    for (int32_t i = threadIdx.x; i < (k1 - k0 + 3) / 4; i += CL_THREADS)
        ((uint4 *)rowof)[i] = zero;
    __syncthreads();
    SP_PROBE(1);
    small_rank_items(mine, w0, items, k1, key);
    /* rows: each nonempty row starting inside the share marks its first
     * position; the last one starting at or before k0 is the carry */
    int32_t cand = 0;
#pragma unroll
    for (int j = 0; j < CL_PRE; j++) {
        const int32_t r = j * CL_THREADS + (int32_t)threadIdx.x;
        if (ra[j] < re[j] && ra[j] <= k0)
            cand = r > cand ? r : cand;
        else if (ra[j] < re[j] && ra[j] < k1)
            rowof[ra[j] - k0] = r;
    }
    if (k0 < k1)
        for (int32_t r = CL_PRE * CL_THREADS + threadIdx.x; r < rows; r += CL_THREADS) {
            const int32_t a = rowptr[r], e = rowptr[r + 1];
            if (a < e && a <= k0)
                cand = r > cand ? r : cand;
            else if (a < e && a < k1)
                rowof[a - k0] = r;
        }
    __syncthreads();
    SP_PROBE(2);
    sp_run_starts16(counters, words, CL_WARPS, cols, tot);
    const int32_t carry = block_reduce(reduce_tmp).Reduce(cand, count_max());
    if (threadIdx.x == 0)
        s_carry = carry;
    small_row_scan<CL_ITEMS, block_scan>(rowof, k1 - k0, scan_tmp);
    /* every block's totals complete: the cluster reads them */
    __syncthreads();
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    SP_PROBE(3);
    /* each thread's CL_COLS_EACH (4) columns from every block, one 16-byte
     * load a block (four 4-byte loads a block took 2-4 us of the kernel:
     * the blocks' reads of each other queue on the cluster's network) */
    int32_t tcol[CL_COLS_EACH] = {0, 0, 0, 0}, before[CL_COLS_EACH] = {0, 0, 0, 0};
    if ((int32_t)threadIdx.x * CL_COLS_EACH < cols)
#pragma unroll
        for (int bb = 0; bb < CL_BLOCKS; bb++) {
            const int4 x = ((const int4 *)__cluster_map_shared_rank(tot, bb))[threadIdx.x];
            const int32_t xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
            for (int j = 0; j < CL_COLS_EACH; j++) {
                /* totals past the last column were never written */
                const int32_t xj = (int32_t)threadIdx.x * CL_COLS_EACH + j < cols ? xs[j] : 0;
                before[j] += bb < b ? xj : 0;
                tcol[j] += xj;
            }
        }
    block_scan(scan_tmp).ExclusiveSum(tcol, tcol);
#pragma unroll
    for (int j = 0; j < CL_COLS_EACH; j++) {
        const int32_t c = (int32_t)threadIdx.x * CL_COLS_EACH + j;
        if (c < cols) {
            base[c] = tcol[j] + before[j];
            if (b == 0)
                colptr[c] = tcol[j];
        }
    }
    if (b == 0 && threadIdx.x == 0)
        colptr[cols] = nnz;
    SP_PROBE(4);
    /* done with the other blocks' memory: arrive now, wait before exit */
    __cluster_barrier_arrive();
    __syncthreads();
    const int32_t rcarry = s_carry;
#pragma unroll
    for (int i = 0; i < CL_ITEMS; i++) {
        const int32_t q = w0 + i * 32 + lane;
        if (i < items && q < k1) {
            const int32_t p = small_slot(base, mine, key[i]);
            const int32_t r = rowof[q - k0];
            rowidx[p] = r > rcarry ? r : rcarry;
            cval[p] = v[i];
        }
    }
    SP_PROBE(5);
    __cluster_barrier_wait();
    SP_PROBE(6);
#endif
}

/* set by sp_trans_small_init, once a process (a process uses one device):
 * the cluster kernel is built for this device (sm_90 code), the device
 * launches clusters and fits one of CL_BLOCKS blocks, and
 * SPSWEEP_SMALL_CLUSTER is not "0" (the tests' switch to the one-block
 * paths) */
static int cluster_ok = -1;

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

/* The one-block kernels' shared-memory limits for values V. */
template <typename V>
static int small_limits(sp_err *err)
{
    SP_CUDA(cudaFuncSetAttribute(small_transpose<V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)SMALL_SMEM),
            err);
    SP_CUDA(cudaFuncSetAttribute(small_count<V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)COUNT_SMEM),
            err);
    return 0;
}

/* The cluster kernel's limit for values V (its shared memory holds no
 * values: the same for both). */
template <typename V>
static bool cluster_limit(void)
{
    return cudaFuncSetAttribute(small_cluster<V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)CL_SMEM) == cudaSuccess;
}

int sp_trans_small_init(sp_err *err)
{
    if (small_limits<double>(err) || small_limits<float>(err))
        return -1;
    if (cluster_ok < 0) {
        int dev = 0, clusters = 0, fit = 0;
        cudaFuncAttributes fa;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(CL_BLOCKS);
        cfg.blockDim = dim3(CL_THREADS);
        cfg.dynamicSmemBytes = CL_SMEM;
        const char *env = getenv("SPSWEEP_SMALL_CLUSTER");
        /* built for the device, clusters launchable, and one cluster of
         * these blocks fits (else every small launch would fail) */
        cluster_ok = SMALL_CLUSTER && !(env && strcmp(env, "0") == 0) &&
                     cudaGetDevice(&dev) == cudaSuccess &&
                     cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) ==
                         cudaSuccess &&
                     clusters &&
                     cudaFuncGetAttributes(&fa, small_cluster<double>) == cudaSuccess &&
                     fa.binaryVersion >= 90 && cluster_limit<double>() && cluster_limit<float>() &&
                     cudaOccupancyMaxActiveClusters(&fit, small_cluster<double>, &cfg) ==
                         cudaSuccess &&
                     fit > 0;
        (void)cudaGetLastError();
    }
    return 0;
}

/* The cluster's shape is the kernel's own (__cluster_dims__), so a plain
 * launch on the stream starts it; whether it fits was asked once, in
 * sp_trans_small_init (the kernel's analyse), not here. */
template <typename V>
static int small_route_t(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const V *val = (const V *)g->val;
    V *cval = (V *)g->cval;
    if (cluster_ok > 0 && g->cols <= SMALL_COUNT_COLS && g->rows <= CL_ROWS) {
        small_cluster<V><<<CL_BLOCKS, CL_THREADS, CL_SMEM, stream>>>(
            g->rowptr, g->rows, g->colidx, val, g->nnz, g->cols, cval, g->colptr, g->rowidx);
        SP_LAUNCHED("small_cluster", err);
        return 0;
    }
    if (g->cols <= SMALL_COUNT_COLS) {
        small_count<V><<<1, COUNT_THREADS, COUNT_SMEM, stream>>>(g->rowptr, g->rows, g->colidx,
                                                                val, g->nnz, g->cols, cval,
                                                                g->colptr, g->rowidx);
        SP_LAUNCHED("small_count", err);
        return 0;
    }
    small_transpose<V><<<1, SMALL_THREADS, SMALL_SMEM, stream>>>(
        g->rowptr, g->rows, g->colidx, val, g->nnz, g->cols, bits_for((uint32_t)g->cols), cval,
        g->colptr, g->rowidx);
    SP_LAUNCHED("small_transpose", err);
    return 0;
}

int sp_trans_small_route(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    return SP_TRANS_BY_VALUE(g, small_route_t, g, stream, err);
}
