/*
 * transpose_cuda_radix.cu — the transposition as an LSD radix sort of the
 * nonzeros by column, carrying each nonzero's row and value along, so no
 * pass gathers out of order (the CUB route's two random gathers); the
 * column bits split into passes of at most digit_bits bits
 * (transpose_radix_host.c; default 8, three passes for 2^24 columns:
 * measured faster than two of 11 or 12, whose tiles' tables and shared
 * memory cost more than the pass they save):
 *
 *   per pass, digit = bits [shift, shift + digit) of the column:
 *   1. count: tile t (SP_RADIX_TILE positions, one block) counts its
 *      digits in shared memory (each thread a stretch of positions, runs
 *      of equal digits added at once) and writes them to
 *      table[digit x tiles + t];
 *   2. scan: the table, exclusive (sp_gpu_scan): cell (d, t) becomes where
 *      tile t's nonzeros of digit d start in the pass's output;
 *   3. scatter: the same tile, each warp a run of SP_RADIX_TILE /
 *      SP_RADIX_WARPS positions whose columns it holds in registers.
 *      Lanes with equal digits in a round of 32 are ranked in lane order
 *      (sp_run_rank16: __match_any_sync after the run's 16-bit counter of
 *      that digit, which the group's leader then advances); an exclusive
 *      sum over the warps and one over the digits place every nonzero in
 *      the tile's digit order, staged in shared memory (columns from the
 *      registers; rows and values copied there by cp.async), and written
 *      out in runs: a digit's nonzeros of the tile go to consecutive slots
 *      from the cell's start. Stable: position order is kept within a
 *      round, a run, a tile and across tiles, so after the last pass the
 *      nonzeros are in (column, position) order, i.e. each column's rows
 *      ascending;
 *   the first pass reads the CSR (each position's row filled into shared
 *   memory row by row from the tile's slice of rowptr), the last writes
 *   the CSC's rowidx and cval and the sorted columns; passes between use
 *   one or two sets of (column, row, value) arrays.
 *   4. colptr from the sorted columns (sp_gpu_idx2ptr).
 *
 * Traffic a pass: the columns read twice (count, scatter), rows and
 * values read and written once (16 bytes each way), the table (bins /
 * SP_RADIX_TILE ints a nonzero, written, scanned, read): about 36 bytes
 * a nonzero a pass. Measured (ncu, H100, uniform 4e6 x 8, 8-bit digits):
 * count 47-61 us, scatter 557-839 us a pass (1.2-1.9 TB/s, half the warps
 * of an SM active), pointers 103 us; 2.49 ms in all against CUB's route
 * 3.21 and cuSPARSE 3.27 (2.35 ms after the cp.async staging; CUB's own
 * passes over the same bytes, transpose_cub_carry, take 1.83). A first
 * version without the staging (tiles of 32768, each warp writing its
 * nonzeros straight to their slots) was correct but 4.7x slower than the
 * CUB route (uniform 15.1 ms, R-MAT 28.1; bench/RESULTS.md). Likely
 * cause, not profiled: every round scattered 32 lanes over 32 digits, and
 * the partly written sectors of the ~700 tiles in flight did not fit in
 * L2.
 */
#include <cub/block/block_scan.cuh>
#include <cuda_pipeline.h>

#include "transpose_gpu.cuh"

#define KERNEL "transpose_cuda_radix"
#define RX_THREADS (SP_RADIX_WARPS * 32)
#define RX_RUN (SP_RADIX_TILE / SP_RADIX_WARPS)
#define RX_ITEMS (RX_RUN / 32)
static_assert(RX_ITEMS * RX_THREADS == SP_RADIX_TILE && RX_ITEMS % 4 == 0, "count by int4");
/* blocks an SM may hold by registers (64 a thread); shared memory allows
 * 4 at 8-bit digits, 3 at 10, 2 at 11, 1 at 12 */
/* 1: rows and values copied into the staging area asynchronously (one
 * wait for both); 0: read through registers, one after the other. H100,
 * one call, A/B/A: 1 took R-MAT 4.385 / 4.381 ms against 0's 4.531,
 * uniform 2.443 / 2.445 vs 2.503, denserow 0.723 / 0.722 vs 0.752, and
 * lost on the band (2.259 / 2.250 vs 2.203, where the symmetric path
 * runs at 0.405). */
#ifndef RX_MIN_BLOCKS
#define RX_MIN_BLOCKS 4
#endif

/* Tile t's digit counts into table[d * tiles + t], every digit written.
 * Each thread counts RX_ITEMS consecutive positions (a full tile read as
 * int4), adding runs of equal digits at once: one shared atomic a run,
 * so sorted stretches (the high digits of banded or stencil matrices)
 * cost one add a thread and random ones about one a position. */
__global__ static void __launch_bounds__(RX_THREADS)
rx_count(const int32_t *__restrict__ key, int32_t n, int shift, int32_t mask, int32_t tiles,
         int32_t *__restrict__ table)
{
    extern __shared__ int32_t hist[];
    const int32_t bins = mask + 1;
    for (int32_t b = threadIdx.x; b < bins; b += RX_THREADS)
        hist[b] = 0;
    __syncthreads();
    const int64_t k0 = (int64_t)blockIdx.x * SP_RADIX_TILE + (int64_t)threadIdx.x * RX_ITEMS;
    int32_t k[RX_ITEMS];
    int m = RX_ITEMS;
    if (k0 + RX_ITEMS <= n) {
        const int4 *v = (const int4 *)(key + k0);
#pragma unroll
        for (int i = 0; i < RX_ITEMS / 4; i++) {
            int4 x = v[i];
            k[4 * i] = x.x, k[4 * i + 1] = x.y, k[4 * i + 2] = x.z, k[4 * i + 3] = x.w;
        }
    } else {
        m = k0 < n ? (int)(n - k0) : 0;
#pragma unroll
        for (int i = 0; i < RX_ITEMS; i++)
            k[i] = i < m ? key[k0 + i] : 0;
    }
    int32_t cur = -1, run = 0;
#pragma unroll
    for (int i = 0; i < RX_ITEMS; i++) {
        if (i >= m)
            break;
        const int32_t d = (k[i] >> shift) & mask;
        if (d != cur) {
            if (run)
                atomicAdd(hist + cur, run);
            cur = d;
            run = 0;
        }
        run++;
    }
    if (run)
        atomicAdd(hist + cur, run);
    __syncthreads();
    for (int32_t b = threadIdx.x; b < bins; b += RX_THREADS)
        table[(int64_t)b * tiles + blockIdx.x] = hist[b];
}

/* One pass's scatter of tile blockIdx.x (see the header). from_csr: the
 * rows from rowptr (rin unused; the tile's rows filled into shared memory
 * when it spans at most SP_RADIX_TILE of them, else searched in rowptr),
 * else from rin. Dynamic shared memory (scatter_smem): the digits' starts
 * in the output and in the tile (2 x bins ints), the warps' packed 16-bit
 * counters (SP_RADIX_WARPS x bins / 2 words), the tile in digit order:
 * columns and rows (SP_RADIX_TILE ints each), values (SP_RADIX_TILE V,
 * double or float; before the values land there, its first SP_RADIX_TILE
 * ints hold the rows of the positions in the first pass). */
template <typename V>
__global__ static void __launch_bounds__(RX_THREADS, RX_MIN_BLOCKS)
rx_scatter(bool from_csr, const int32_t *__restrict__ rowptr, int32_t rows,
           const int32_t *__restrict__ kin, const int32_t *__restrict__ rin,
           const V *__restrict__ vin, int32_t n, int shift, int32_t mask, int32_t tiles,
           const int32_t *__restrict__ offs, int32_t *__restrict__ kout,
           int32_t *__restrict__ rout, V *__restrict__ vout)
{
    static_assert(sizeof(V) >= sizeof(int32_t), "the rows of the first pass fit the values");
    typedef cub::BlockScan<int32_t, RX_THREADS> block_scan;
    __shared__ typename block_scan::TempStorage scan_tmp;
    __shared__ int32_t s_first, s_last;
    extern __shared__ __align__(16) int32_t sm[];
    const int32_t bins = mask + 1, words = bins / 2;
    int32_t *gstart = sm, *tstart = sm + bins;
    uint32_t *counters = (uint32_t *)(tstart + bins);
    int32_t *skey = (int32_t *)(counters + SP_RADIX_WARPS * words);
    int32_t *srow = skey + SP_RADIX_TILE;
    V *vbuf = (V *)(srow + SP_RADIX_TILE);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t *mine = counters + warp * words;
    const int64_t k0 = (int64_t)blockIdx.x * SP_RADIX_TILE;
    const int64_t k1 = k0 + SP_RADIX_TILE < n ? k0 + SP_RADIX_TILE : n;
    const int32_t count = (int32_t)(k1 - k0);
    for (int32_t b = threadIdx.x; b < bins; b += RX_THREADS)
        gstart[b] = offs[(int64_t)b * tiles + blockIdx.x];
    for (int32_t i = threadIdx.x; i < SP_RADIX_WARPS * words; i += RX_THREADS)
        counters[i] = 0;
    /* the row of each position of the tile in vbuf's front, filled
     * row by row from rowptr; when the tile spans more rows than positions
     * (empty rows) each position searches rowptr instead */
    int32_t *rowof = (int32_t *)vbuf;
    const bool staged =
        from_csr && sp_tile_fill_rows(rowptr, rows, k0, k1, SP_RADIX_TILE, rowof, &s_first, &s_last);
    if (!from_csr)
        __syncthreads();
    /* the warp's run of columns in registers, lane-strided (rows and
     * values are read again when staged: fewer registers, more blocks) */
    const int64_t w0 = k0 + (int64_t)warp * RX_RUN;
    int32_t key[RX_ITEMS], rk[RX_ITEMS];
#pragma unroll
    for (int i = 0; i < RX_ITEMS; i++) {
        const int64_t q = w0 + i * 32 + lane;
        key[i] = q < k1 ? kin[q] : 0;
    }
    /* ranks inside the run: equal digits of a round in lane order, the
     * run's counter before them (a digit's count <= RX_RUN: no carry) */
#pragma unroll
    for (int i = 0; i < RX_ITEMS; i++) {
        const bool valid = w0 + i * 32 + lane < k1;
        const unsigned active = __ballot_sync(SP_FULL_MASK, valid);
        rk[i] = 0;
        if (valid)
            rk[i] = sp_run_rank16(mine, (key[i] >> shift) & mask, active);
    }
    __syncthreads();
    /* each run's start inside its digit's share of the tile (both halves
     * at once; a half's sum <= SP_RADIX_TILE < 2^16), the tile's counts */
    sp_run_starts16(counters, words, SP_RADIX_WARPS, bins, tstart);
    __syncthreads();
    /* the digits' starts inside the tile: an exclusive sum over the bins */
    sp_block_excl_inplace<block_scan, RX_THREADS>(tstart, bins, scan_tmp, NULL);
    __syncthreads();
    /* the tile in digit order: columns (from registers), rows (pass 1:
     * from shared memory; else copied asynchronously) and values (copied
     * asynchronously), then written out in one loop */
#pragma unroll
    for (int i = 0; i < RX_ITEMS; i++) {
        const int64_t q = w0 + i * 32 + lane;
        if (q < k1) {
            const int32_t d = (key[i] >> shift) & mask;
            const int32_t at = tstart[d] + sp_run_start16(mine, d) + rk[i];
            skey[at] = key[i];
            if (!from_csr)
                __pipeline_memcpy_async(srow + at, rin + q, 4);
            else
                srow[at] = staged ? rowof[q - k0] : sp_segment_of(rowptr, rows + 1, q);
            rk[i] = at;
        }
    }
    if (from_csr)   /* rowof lies where the values land */
        __syncthreads();
#pragma unroll
    for (int i = 0; i < RX_ITEMS; i++) {
        const int64_t q = w0 + i * 32 + lane;
        if (q < k1)
            __pipeline_memcpy_async(vbuf + rk[i], vin + q, sizeof(V));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int32_t j = threadIdx.x; j < count; j += RX_THREADS) {
        const int32_t k = skey[j], d = (k >> shift) & mask;
        const int64_t p = (int64_t)gstart[d] + (j - tstart[d]);
        kout[p] = k;
        rout[p] = srow[j];
        vout[p] = vbuf[j];
    }
}

/* rx_scatter's dynamic shared memory at `bins` digits and vb-byte
 * values. */
static size_t scatter_smem(int32_t bins, size_t vb)
{
    return ((size_t)2 * bins + (size_t)SP_RADIX_WARPS * (bins / 2) +
            (size_t)2 * SP_RADIX_TILE) * 4 +
           (size_t)SP_RADIX_TILE * vb;
}

/* Host only: the axes and the plan of the passes. */
extern "C" int sp_trans_radix_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                      sp_err *err)
{
    *state = NULL;
    int digit = 0;
    int32_t most = 0;
    if (sp_radix_digit(KERNEL, p, &digit, err) || sp_radix_small_nnz(KERNEL, p, &most, err))
        return -1;
    sp_gpu_trans *g = sp_trans_gpu_new(KERNEL, pb, p, err);
    if (!g)
        return -1;
    g->bs = RX_THREADS;
    g->small_nnz = most;
    sp_radix_plan_of(g->cols, g->nnz, digit, &g->radix);
    *state = g;
    return 0;
}

/* The sorted columns, the tiles' digit table and its scan's
 * temporaries, and the (column, row, value) sets between the passes
 * (one from two passes on, two from three); none on the one-launch path. */
static int radix_work(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    (void)stream;
    const sp_radix_plan *pl = &g->radix;
    size_t nnz = (size_t)g->nnz;
    int64_t cells = ((int64_t)1 << pl->digit) * pl->tiles;
    if (sp_trans_small_fits(g))
        return 0;
    return sp_trans_gpu_alloc((void **)&g->w32e, nnz, 4, err) ||
           sp_trans_gpu_alloc((void **)&g->w32f, (size_t)cells + 1, 4, err) ||
           sp_trans_gpu_alloc(&g->scan_temp, sp_gpu_scan_temp_bytes(cells, 256), 1, err) ||
           (pl->passes > 1 && (sp_trans_gpu_alloc((void **)&g->w32a, nnz, 4, err) ||
                               sp_trans_gpu_alloc((void **)&g->w32b, nnz, 4, err) ||
                               sp_trans_gpu_alloc(&g->wval, nnz, g->vb, err))) ||
           (pl->passes > 2 && (sp_trans_gpu_alloc((void **)&g->w32c, nnz, 4, err) ||
                               sp_trans_gpu_alloc((void **)&g->w32d, nnz, 4, err) ||
                               sp_trans_gpu_alloc(&g->wval2, nnz, g->vb, err)));
}

extern "C" int sp_trans_radix_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, radix_work, err);
}

/* The shared-memory limit of the scatter at the plan's digit, or the
 * one-launch path's setup. */
static int radix_setup(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    (void)stream;
    if (sp_trans_small_fits(g))
        return sp_trans_small_init(err);
    size_t smem = scatter_smem((int32_t)1 << g->radix.digit, g->vb);
    cudaError_t rc = g->prec == SP_SINGLE
                         ? cudaFuncSetAttribute(rx_scatter<float>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                (int)smem)
                         : cudaFuncSetAttribute(rx_scatter<double>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                (int)smem);
    if (rc != cudaSuccess)
        return sp_fail(err, KERNEL ": %zu bytes of shared memory refused", smem);
    return 0;
}

extern "C" int sp_trans_radix_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, radix_setup, err);
}

/* Every pass, then the pointers, values V; enqueued on `stream`. */
template <typename V>
static int radix_passes(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const sp_radix_plan *pl = &g->radix;
    const int32_t *kin = g->colidx, *rin = NULL;
    const V *vin = (const V *)g->val;
    /* rx_count reads whole tiles of keys as int4: every key array is its
     * own cudaMalloc (256-byte aligned) and a tile is a multiple of 4 */
    if (!sp_is_aligned(g->colidx, 16) || !sp_is_aligned(g->w32a, 16) ||
        !sp_is_aligned(g->w32c, 16))
        return sp_fail(err, KERNEL ": a key array is not 16-byte aligned");
    int32_t *sets_k[2] = {g->w32a, g->w32c}, *sets_r[2] = {g->w32b, g->w32d};
    V *sets_v[2] = {(V *)g->wval, (V *)g->wval2};
    for (int pass = 0; pass < pl->passes; pass++) {
        int shift = pass * pl->digit;
        int bits = pl->bits - shift < pl->digit ? pl->bits - shift : pl->digit;
        int32_t mask = (int32_t)((1u << bits) - 1u), bins = mask + 1;
        bool last = pass == pl->passes - 1;
        int32_t *kout = last ? g->w32e : sets_k[pass & 1];
        int32_t *rout = last ? g->rowidx : sets_r[pass & 1];
        V *vout = last ? (V *)g->cval : sets_v[pass & 1];
        rx_count<<<pl->tiles, RX_THREADS, (size_t)bins * 4, stream>>>(kin, g->nnz, shift, mask,
                                                                      pl->tiles, g->w32f);
        SP_LAUNCHED("rx_count", err);
        if (sp_gpu_scan(g->w32f, g->w32f, (int64_t)bins * pl->tiles, 256, g->scan_temp, stream,
                        err))
            return -1;
        rx_scatter<V><<<pl->tiles, RX_THREADS, scatter_smem(bins, sizeof(V)), stream>>>(
            pass == 0, g->rowptr, g->rows, kin, rin, vin, g->nnz, shift, mask, pl->tiles,
            g->w32f, kout, rout, vout);
        SP_LAUNCHED("rx_scatter", err);
        kin = kout;
        rin = rout;
        vin = vout;
    }
    return sp_gpu_idx2ptr(g->w32e, g->nnz, g->colptr, g->cols, 256, stream, err);
}

/* The one-launch path, or every pass; enqueued on `stream`. */
static int radix(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (sp_trans_small_fits(g))
        return sp_trans_small_route(g, stream, err);
    if (g->nnz == 0) {
        SP_CUDA(cudaMemsetAsync(g->colptr, 0, ((size_t)g->cols + 1) * 4, stream), err);
        return 0;
    }
    return SP_TRANS_BY_VALUE(g, radix_passes, g, stream, err);
}

extern "C" int sp_trans_radix_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, radix, err);
}
