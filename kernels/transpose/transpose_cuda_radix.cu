/*
 * transpose_cuda_radix.cu — the transposition as an LSD radix sort of the
 * nonzeros by column, with digits wide enough that two passes cover 2^24
 * columns (transpose_radix_host.c plans them), carrying each nonzero's
 * row and value along, so no pass gathers out of order:
 *
 *   per pass, digit = bits [shift, shift + digit) of the column:
 *   1. count: tile t (SP_RADIX_TILE positions, one block) counts its
 *      digits in shared memory (equal digits of a warp aggregated) and
 *      writes them to table[digit x tiles + t];
 *   2. scan: the table, exclusive (sp_gpu_scan): cell (d, t) becomes where
 *      tile t's nonzeros of digit d start in the pass's output;
 *   3. scatter: the same tile, each warp a run of SP_RADIX_TILE /
 *      SP_RADIX_WARPS positions. The warps count their runs' digits (16-bit
 *      counters, two to a word), an exclusive sum over the warps turns the
 *      counts into each run's start inside the tile's share, then each warp
 *      walks its run 32 positions at a time: lanes with equal digits are
 *      ranked in lane order (__match_any_sync), the slot is the cell's
 *      start + the run's counter + the rank, and the digit's leader adds
 *      the group to the counter. Stable: position order is kept within a
 *      lane group, a run, a tile and across tiles, so after the last pass
 *      the nonzeros are in (column, position) order, i.e. each column's
 *      rows ascending;
 *   the first pass reads the CSR (the rows found from rowptr, 32 row
 *   starts a round through the warp's shuffles), the last writes the CSC's
 *   rowidx and cval and the sorted columns; passes between use one or two
 *   sets of (column, row, value) arrays.
 *   4. colptr from the sorted columns (sp_gpu_idx2ptr).
 *
 * Traffic a pass: the columns read three times (count, the warps' counts,
 * the scatter; the last two mostly from L2), rows and values read and
 * written once (16 bytes each way), the table. About 80 bytes a nonzero
 * for two passes, all of it streamed or written in short runs, against
 * the CUB route's two random 8-byte gathers a nonzero.
 */
#include "transpose_gpu.cuh"

#define RX_THREADS (SP_RADIX_WARPS * 32)
#define RX_RUN (SP_RADIX_TILE / SP_RADIX_WARPS)

/* Tile t's digit counts into table[d * tiles + t], every digit written. */
__global__ static void __launch_bounds__(RX_THREADS)
rx_count(const int32_t *__restrict__ key, int32_t n, int shift, int32_t mask, int32_t tiles,
         int32_t *__restrict__ table)
{
    extern __shared__ int32_t hist[];
    const int32_t bins = mask + 1;
    for (int32_t b = threadIdx.x; b < bins; b += RX_THREADS)
        hist[b] = 0;
    __syncthreads();
    const int64_t k0 = (int64_t)blockIdx.x * SP_RADIX_TILE;
    const int64_t k1 = k0 + SP_RADIX_TILE < n ? k0 + SP_RADIX_TILE : n;
    const int lane = threadIdx.x & 31;
    for (int64_t k = k0 + threadIdx.x; k - threadIdx.x < k1; k += RX_THREADS) {
        const bool valid = k < k1;
        const unsigned active = __ballot_sync(SP_FULL_MASK, valid);
        if (valid) {
            int32_t d = (key[k] >> shift) & mask;
            unsigned peers = __match_any_sync(active, d);
            if (lane == __ffs(peers) - 1)
                atomicAdd(hist + d, __popc(peers));
        }
    }
    __syncthreads();
    for (int32_t b = threadIdx.x; b < bins; b += RX_THREADS)
        table[(int64_t)b * tiles + blockIdx.x] = hist[b];
}

/* The row of position q, for a round of 32 ascending positions (lane
 * order) whose first lies in row rcur: the 32 row starts after rcur are
 * read once (lane i holds the start of row rcur + 1 + i) and each lane
 * counts those <= q by a binary search over the lanes; past 32 of them
 * (empty rows) the lane searches rowptr itself. Every lane must call. */
__device__ __forceinline__ int32_t rx_row_of(const int32_t *__restrict__ rowptr, int32_t rows,
                                             int32_t rcur, int64_t q)
{
    const int lane = threadIdx.x & 31;
    const int64_t r = (int64_t)rcur + 1 + lane;
    const int32_t start = r <= rows ? rowptr[r] : INT32_MAX;
    int cnt = 0;
    for (int s = 16; s >= 1; s >>= 1) {
        int32_t v = __shfl_sync(SP_FULL_MASK, start, cnt + s - 1);
        if (v <= q)
            cnt += s;
    }
    const int32_t last = __shfl_sync(SP_FULL_MASK, start, 31);
    if (last <= q)   /* 32 rows or more start by q: more than 31 of them empty */
        return sp_segment_of(rowptr, rows + 1, q);
    return rcur + cnt;
}

/* One pass's scatter of tile blockIdx.x (see the header). from_csr: the
 * rows from rowptr (rin unused), else from rin. Dynamic shared memory:
 * the tile's starts (bins ints), then each warp's packed 16-bit counters
 * (SP_RADIX_WARPS x bins / 2 words). */
__global__ static void __launch_bounds__(RX_THREADS)
rx_scatter(bool from_csr, const int32_t *__restrict__ rowptr, int32_t rows,
           const int32_t *__restrict__ kin, const int32_t *__restrict__ rin,
           const double *__restrict__ vin, int32_t n, int shift, int32_t mask, int32_t tiles,
           const int32_t *__restrict__ offs, int32_t *__restrict__ kout,
           int32_t *__restrict__ rout, double *__restrict__ vout)
{
    extern __shared__ int32_t sm[];
    const int32_t bins = mask + 1, words = bins > 1 ? bins / 2 : 1;
    int32_t *start = sm;
    uint32_t *counters = (uint32_t *)(sm + bins);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t *mine = counters + warp * words;
    for (int32_t b = threadIdx.x; b < bins; b += RX_THREADS)
        start[b] = offs[(int64_t)b * tiles + blockIdx.x];
    for (int32_t i = threadIdx.x; i < SP_RADIX_WARPS * words; i += RX_THREADS)
        counters[i] = 0;
    __syncthreads();
    const int64_t k0 = (int64_t)blockIdx.x * SP_RADIX_TILE;
    const int64_t k1 = k0 + SP_RADIX_TILE < n ? k0 + SP_RADIX_TILE : n;
    const int64_t w0 = k0 + (int64_t)warp * RX_RUN;
    const int64_t w1 = w0 + RX_RUN < k1 ? w0 + RX_RUN : k1;
    /* the run's counts (a digit's count <= RX_RUN: no carry between halves) */
    for (int64_t q0 = w0; q0 < w1; q0 += 32) {
        const int64_t q = q0 + lane;
        const bool valid = q < w1;
        const unsigned active = __ballot_sync(SP_FULL_MASK, valid);
        if (valid) {
            int32_t d = (kin[q] >> shift) & mask;
            unsigned peers = __match_any_sync(active, d);
            if (lane == __ffs(peers) - 1)
                atomicAdd(mine + (d >> 1), (uint32_t)__popc(peers) << ((d & 1) * 16));
        }
    }
    __syncthreads();
    /* each run's start inside the tile's share: exclusive over the warps
     * (both halves at once; a half's sum <= SP_RADIX_TILE < 2^16) */
    for (int32_t i = threadIdx.x; i < words; i += RX_THREADS) {
        uint32_t run = 0;
        for (int w = 0; w < SP_RADIX_WARPS; w++) {
            uint32_t c = counters[w * words + i];
            counters[w * words + i] = run;
            run += c;
        }
    }
    __syncthreads();
    int32_t rcur = 0;
    if (from_csr && w0 < w1)
        rcur = sp_segment_of(rowptr, rows + 1, w0);
    for (int64_t q0 = w0; q0 < w1; q0 += 32) {
        const int64_t q = q0 + lane;
        const bool valid = q < w1;
        const unsigned active = __ballot_sync(SP_FULL_MASK, valid);
        int32_t row = 0;
        if (from_csr) {
            row = rx_row_of(rowptr, rows, rcur, valid ? q : q0);
            rcur = __shfl_sync(SP_FULL_MASK, row, __popc(active) - 1);
        } else if (valid) {
            row = rin[q];
        }
        if (valid) {
            const int32_t key = kin[q];
            const double v = vin[q];
            const int32_t d = (key >> shift) & mask;
            const unsigned peers = __match_any_sync(active, d);
            const int rank = __popc(peers & ((1u << lane) - 1u));
            const int half = (d & 1) * 16;
            const uint32_t before = (mine[d >> 1] >> half) & 0xffffu;
            __syncwarp(active);
            if (lane == __ffs(peers) - 1)
                atomicAdd(mine + (d >> 1), (uint32_t)__popc(peers) << half);
            const int64_t p = (int64_t)start[d] + before + rank;
            kout[p] = key;
            rout[p] = row;
            vout[p] = v;
        }
    }
}

static size_t scatter_smem(int32_t bins)
{
    int32_t words = bins > 1 ? bins / 2 : 1;
    return ((size_t)bins + (size_t)SP_RADIX_WARPS * words) * 4;
}

extern "C" int sp_trans_radix_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                      sp_phases *ph, sp_err *err)
{
    *state = NULL;
    int digit = 0;
    if (sp_radix_digit("transpose_cuda_radix", p, &digit, err))
        return -1;
    sp_gpu_trans *g = sp_trans_gpu_new("transpose_cuda_radix", pb, err);
    if (!g)
        return -1;
    g->bs = RX_THREADS;
    sp_radix_plan_of(pb->A->cols, pb->A->nnz, digit, &g->radix);
    const sp_radix_plan *pl = &g->radix;
    size_t nnz = (size_t)pb->A->nnz;
    int64_t cells = ((int64_t)1 << pl->digit) * pl->tiles;
    int rc = sp_trans_gpu_upload(pb, g, ph, err);
    double t0 = sp_seconds();
    if (!rc)
        rc = sp_trans_gpu_alloc((void **)&g->w32e, nnz, 4, err) ||
             sp_trans_gpu_alloc((void **)&g->w32f, (size_t)cells + 1, 4, err) ||
             sp_trans_gpu_alloc(&g->scan_temp, sp_gpu_scan_temp_bytes(cells, 256), 1, err);
    if (!rc && pl->passes > 1)
        rc = sp_trans_gpu_alloc((void **)&g->w32a, nnz, 4, err) ||
             sp_trans_gpu_alloc((void **)&g->w32b, nnz, 4, err) ||
             sp_trans_gpu_alloc((void **)&g->wval, nnz, 8, err);
    if (!rc && pl->passes > 2)
        rc = sp_trans_gpu_alloc((void **)&g->w32c, nnz, 4, err) ||
             sp_trans_gpu_alloc((void **)&g->w32d, nnz, 4, err) ||
             sp_trans_gpu_alloc((void **)&g->wval2, nnz, 8, err);
    size_t smem = scatter_smem((int32_t)1 << pl->digit);
    if (!rc && smem > 48 * 1024 &&
        cudaFuncSetAttribute(rx_scatter, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem) != cudaSuccess)
        rc = sp_fail(err, "transpose_cuda_radix: %zu bytes of shared memory refused", smem);
    if (!rc && cudaDeviceSynchronize() != cudaSuccess)
        rc = sp_fail(err, "transpose_cuda_radix: work allocation failed");
    ph->h2d_s += sp_seconds() - t0;
    if (rc) {
        sp_trans_gpu_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

/* Every pass, then the pointers; enqueued on the default stream. */
static int radix(sp_gpu_trans *g, sp_err *err)
{
    const sp_radix_plan *pl = &g->radix;
    if (g->nnz == 0) {
        SP_CUDA(cudaMemsetAsync(g->colptr, 0, ((size_t)g->cols + 1) * 4), err);
        return 0;
    }
    const int32_t *kin = g->colidx, *rin = NULL;
    const double *vin = g->val;
    int32_t *sets_k[2] = {g->w32a, g->w32c}, *sets_r[2] = {g->w32b, g->w32d};
    double *sets_v[2] = {g->wval, g->wval2};
    for (int pass = 0; pass < pl->passes; pass++) {
        int shift = pass * pl->digit;
        int bits = pl->bits - shift < pl->digit ? pl->bits - shift : pl->digit;
        int32_t mask = (int32_t)((1u << bits) - 1u), bins = mask + 1;
        bool last = pass == pl->passes - 1;
        int32_t *kout = last ? g->w32e : sets_k[pass & 1];
        int32_t *rout = last ? g->rowidx : sets_r[pass & 1];
        double *vout = last ? g->cval : sets_v[pass & 1];
        rx_count<<<pl->tiles, RX_THREADS, (size_t)bins * 4>>>(kin, g->nnz, shift, mask,
                                                              pl->tiles, g->w32f);
        SP_LAUNCHED("rx_count", err);
        if (sp_gpu_scan(g->w32f, g->w32f, (int64_t)bins * pl->tiles, 256, g->scan_temp, err))
            return -1;
        rx_scatter<<<pl->tiles, RX_THREADS, scatter_smem(bins)>>>(
            pass == 0, g->rowptr, g->rows, kin, rin, vin, g->nnz, shift, mask, pl->tiles,
            g->w32f, kout, rout, vout);
        SP_LAUNCHED("rx_scatter", err);
        kin = kout;
        rin = rout;
        vin = vout;
    }
    return sp_gpu_idx2ptr(g->w32e, g->nnz, g->colptr, g->cols, 256, err);
}

extern "C" int sp_trans_radix_run(void *state, double *seconds, sp_err *err)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g)
        return sp_fail(err, "transpose_cuda_radix: run without a state");
    SP_CUDA(cudaEventRecord(g->start), err);
    if (radix(g, err))
        return -1;
    SP_CUDA(cudaEventRecord(g->stop), err);
    return sp_trans_gpu_elapsed(g, seconds, err);
}
