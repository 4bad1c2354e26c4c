/*
 * transpose_cuda_wintrans.cu — ScanTrans over column windows. The rows are
 * split into C chunks of about `chunk` nonzeros (transpose_wintrans_host.c
 * defines them; one block each). Chunk c's entries lie in its window
 * [lo_c, hi_c], so its column counts take hi_c - lo_c + 1 ints, not cols:
 * for banded and stencil matrices W = sum of the widths stays below nnz.
 *   1. windows: each block finds its rows and its window (min of the rows'
 *      first columns, max of their last);
 *   2. plan (one block): the windows widened to monotone ones (prefix
 *      max of hi, suffix min of lo: the chunks covering a column are then
 *      consecutive), the count offsets (scan of the widths), and the
 *      check: W and the widest as planned on the host, else a flag that
 *      stops the later passes (the combination fails, in the result);
 *   3. count: each block counts its entries per column of its window
 *      (shared memory when the widest window fits, else its own slice);
 *   4. columns: per column, the chunks covering it form a contiguous range
 *      (binary search over the widened hi): their
 *      counts become exclusive offsets in chunk order, the total the
 *      column's length; 5. colptr = exclusive scan of the lengths;
 *   6. scatter: each block walks its entries in rounds of blockDim.x
 *      consecutive positions, 32 per warp; equal columns inside a warp
 *      ranked in lane order, then the window's cursors advanced in warp
 *      order, one warp per sub-step between block barriers. No ticket, no
 *      spinning (an earlier volatile-ticket hand-off was flagged by
 *      racecheck; a variant where one warp ordered each round between two
 *      barriers measured no faster on the H100 and was removed). A chunk's
 *      entries of one column take consecutive slots in row order after
 *      those of the chunks before it: the serial transposition, entry for
 *      entry, with no sort.
 * The device's check (the flag of step 2, or a column outside its window
 * in step 3) is read back by the kernel's result, after the harness's
 * launches, so a launch never waits for the device: a launch whose flag is
 * set makes the combination fail there. The kernel times nothing itself:
 * per-pass times come from a profiler (nsys, ncu) over a sweep.
 * Device status (2026-11-22): the GPU tests pass on the H100 (a hang, a
 * full-mask shuffle in wt_row_of reached by only some lanes, is fixed);
 * timings in bench/RESULTS.md.
 */
#include <limits.h>

#include <cub/block/block_scan.cuh>

#include "transpose_gpu.cuh"

#define KERNEL "transpose_cuda_wintrans"

/* the plan's one block (80 registers a thread: 1024 would not launch) */
#define WT_PLAN_THREADS 512

/* The first row of chunk c, as sp_wintrans_row_start. */
__device__ static int32_t wt_row_start(const int32_t *rowptr, int32_t rows, int64_t chunk,
                                       int32_t chunks, int32_t c)
{
    if (c <= 0)
        return 0;
    if (c >= chunks)
        return rows;
    int64_t x = (int64_t)c * chunk;
    int32_t lo = 0, hi = rows;
    while (lo < hi) {
        int32_t m = lo + (hi - lo) / 2;
        if (rowptr[m] < x)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* 1. rs[c] (and rs[C] = rows), the raw window lo[c], hi[c] (INT32_MAX, -1
 * when the chunk has no entries). */
__global__ static void __launch_bounds__(1024)
wt_windows(const int32_t *rowptr, const int32_t *colidx, int32_t rows, int64_t chunk,
           int32_t chunks, int32_t *rs, int32_t *lo, int32_t *hi)
{
    __shared__ int32_t s_r[2], s_lo, s_hi;
    const int32_t c = blockIdx.x;
    if (threadIdx.x < 2)
        s_r[threadIdx.x] = wt_row_start(rowptr, rows, chunk, chunks, c + threadIdx.x);
    if (threadIdx.x == 0)
        s_lo = INT32_MAX, s_hi = -1;
    __syncthreads();
    int32_t mlo = INT32_MAX, mhi = -1;
    for (int32_t r = s_r[0] + threadIdx.x; r < s_r[1]; r += blockDim.x) {
        int32_t a = rowptr[r], b = rowptr[r + 1];
        if (a < b) {
            mlo = min(mlo, colidx[a]);
            mhi = max(mhi, colidx[b - 1]);
        }
    }
    mlo = __reduce_min_sync(SP_FULL_MASK, mlo);
    mhi = __reduce_max_sync(SP_FULL_MASK, mhi);
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&s_lo, mlo);
        atomicMax(&s_hi, mhi);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        rs[c] = s_r[0];
        lo[c] = s_lo;
        hi[c] = s_hi;
        if (c == chunks - 1)
            rs[chunks] = rows;
    }
}

struct wt_max {
    __device__ int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};
struct wt_min {
    __device__ int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};

/* 2. One block of WT_PLAN_THREADS, each thread a run of chunks: the
 * windows widened to monotone ones over the chunks with entries (chi[c] =
 * max hi up to c, clo[c] = min lo from c on), off[c] = exclusive scan of
 * their widths (0 for a chunk without entries; off[C] = W); flag |= 1
 * when a window is wider than planned or W differs from the plan. */
__global__ static void __launch_bounds__(WT_PLAN_THREADS)
wt_plan(int32_t chunks, const int32_t *lo, const int32_t *hi, int32_t max_width, int64_t width,
        int32_t *clo, int32_t *chi, int32_t *off, int32_t *flag)
{
    typedef cub::BlockScan<int64_t, WT_PLAN_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ int64_t s_rev[WT_PLAN_THREADS];
    const int t = threadIdx.x;
    int32_t per = (chunks + WT_PLAN_THREADS - 1) / WT_PLAN_THREADS;
    int32_t a = min(chunks, t * per), b = min(chunks, a + per);
    int64_t mh = -1, ml = INT32_MAX;
    for (int32_t c = a; c < b; c++)
        if (hi[c] >= lo[c]) {
            mh = max(mh, (int64_t)hi[c]);
            ml = min(ml, (int64_t)lo[c]);
        }
    int64_t runh, runl, base;
    scan_t(tmp).ExclusiveScan(mh, runh, (int64_t)-1, wt_max());
    __syncthreads();
    /* the suffix min: an exclusive min-scan over the threads reversed */
    s_rev[WT_PLAN_THREADS - 1 - t] = ml;
    __syncthreads();
    int64_t rev = s_rev[t];
    __syncthreads();
    scan_t(tmp).ExclusiveScan(rev, runl, (int64_t)INT32_MAX, wt_min());
    __syncthreads();
    s_rev[WT_PLAN_THREADS - 1 - t] = runl;
    __syncthreads();
    runl = s_rev[t];
    for (int32_t c = a; c < b; c++) {
        if (hi[c] >= lo[c])
            runh = max(runh, (int64_t)hi[c]);
        chi[c] = (int32_t)runh;
    }
    int64_t sum = 0;
    for (int32_t c = b - 1; c >= a; c--) {
        bool full = hi[c] >= lo[c];
        if (full)
            runl = min(runl, (int64_t)lo[c]);
        clo[c] = (int32_t)runl;
        if (full)
            sum += (int64_t)chi[c] - runl + 1;
    }
    bool bad = false;
    scan_t(tmp).ExclusiveSum(sum, base);
    for (int32_t c = a; c < b; c++) {
        off[c] = (int32_t)min(base, (int64_t)INT32_MAX);
        if (hi[c] >= lo[c]) {
            base += (int64_t)chi[c] - clo[c] + 1;
            bad |= chi[c] - clo[c] + 1 > max_width;
        }
    }
    if (t == WT_PLAN_THREADS - 1) {
        off[chunks] = (int32_t)min(base, (int64_t)INT32_MAX);
        bad |= base != width;
    }
    if (bad)
        atomicOr(flag, 1);
}

/* 3. The chunk's counts per column of its (widened) window into its slice
 * of cnt (through shared memory when `smem`); flag |= 2 for a column
 * outside the window (a row not sorted). */
__global__ static void __launch_bounds__(1024)
wt_count(const int32_t *rowptr, const int32_t *colidx, const int32_t *rs, const int32_t *clo,
         const int32_t *off, int32_t *cnt, int smem, int32_t *flag)
{
    extern __shared__ int32_t s_cnt[];
    __shared__ int32_t s_stop;
    const int32_t c = blockIdx.x;
    /* other blocks may raise the flag meanwhile: one reading for all */
    if (threadIdx.x == 0)
        s_stop = *(volatile int32_t *)flag & 1;
    __syncthreads();
    if (s_stop || off[c + 1] == off[c])
        return;
    const int32_t l = clo[c], w = off[c + 1] - off[c];
    int32_t *dst = cnt + off[c], *acc = smem ? s_cnt : dst;
    for (int32_t i = threadIdx.x; i < w; i += blockDim.x)
        acc[i] = 0;
    __syncthreads();
    const int32_t p1 = rowptr[rs[c + 1]];
    for (int32_t k = rowptr[rs[c]] + threadIdx.x; k < p1; k += blockDim.x) {
        uint32_t j = (uint32_t)(colidx[k] - l);
        if (j < (uint32_t)w)
            atomicAdd(acc + j, 1);
        else
            atomicOr(flag, 2);
    }
    __syncthreads();
    if (smem)
        for (int32_t i = threadIdx.x; i < w; i += blockDim.x)
            dst[i] = s_cnt[i];
}

/* 4. Column j: the counts of the chunks covering it become exclusive
 * offsets in chunk order; len[j] their total. */
__global__ static void wt_columns(int32_t cols, int32_t chunks, const int32_t *clo,
                                  const int32_t *chi, const int32_t *off, int32_t *cnt,
                                  int32_t *len, const int32_t *flag)
{
    int32_t j = (int32_t)((int64_t)blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= cols)
        return;
    int32_t a = 0, b = chunks;  /* the first chunk with chi >= j */
    while (a < b) {
        int32_t m = a + (b - a) / 2;
        if (chi[m] < j)
            a = m + 1;
        else
            b = m;
    }
    int32_t run = 0;
    if (!*flag)
        for (int32_t c = a; c < chunks && clo[c] <= j; c++)
            if (off[c + 1] > off[c]) {
                int32_t *p = cnt + off[c] + (j - clo[c]);
                int32_t x = *p;
                *p = run;
                run += x;
            }
    len[j] = run;
}

/* The row of position k (lanes with k < 0: any), rowptr[cur] <= every
 * lane's k, rows below r1: 32 row starts at a time, each lane counting
 * those <= its k by a binary search over the lanes. Every shuffle is
 * executed by all 32 lanes: the last start was once read only by the
 * lanes with n == 31 (`n == 31 && __shfl_sync(FULL, ...)`), a full-mask
 * shuffle that the other lanes never reach — undefined, and on the H100
 * the warp hung whenever some but not all lanes had n == 31 (a warp's 32
 * positions 31+ rows past its search start: bs >= 512 on bcsstk06, 256
 * on olm1000, chunk 1024 at 1024 threads), seen as a scatter that never
 * ended in three device calls. */
__device__ static int32_t wt_row_of(const int32_t *rowptr, int32_t r1, int32_t cur, int32_t k)
{
    const int lane = threadIdx.x & 31;
    int32_t row = -1;
    for (int32_t base = cur;; base += 32) {
        int32_t r = base + 1 + lane;
        int32_t start = r < r1 ? rowptr[r] : INT32_MAX;
        int n = 0;
        for (int s = 16; s > 0; s >>= 1)
            if (__shfl_sync(SP_FULL_MASK, start, n + s - 1) <= k)
                n += s;
        int32_t last = __shfl_sync(SP_FULL_MASK, start, 31);
        if (n == 31 && last <= k)
            n = 32;
        if (row < 0 && n < 32)
            row = base + n;
        if (!__any_sync(SP_FULL_MASK, row < 0))
            return row;
    }
}

/* 6. The chunk's entries in rounds of blockDim.x consecutive positions,
 * warp w the 32 positions w * 32 .. w * 32 + 31 of each round (round r is
 * step r * nw + w of a warp-per-32 walk). Equal columns inside a warp
 * are ranked in lane order (__match_any_sync); the warps then take their
 * slots from the window's cursors in warp order, one warp per sub-step,
 * the nw sub-steps of a round separated by __syncthreads: in sub-step t
 * only warp t's group leaders touch cur[], one word per distinct column,
 * so every conflicting pair of accesses has a block barrier between them
 * (no spinning, no volatile). The cursors thus serve the round's entries
 * of a column in position order, as the serial transposition does. The
 * loop runs the same number of rounds in every thread (barriers). */
template <typename V>
__global__ static void __launch_bounds__(1024)
wt_scatter(const int32_t *rowptr, const int32_t *colidx, const V *val, const int32_t *rs,
           const int32_t *clo, const int32_t *off, int32_t *cnt, const int32_t *colptr, int smem,
           const int32_t *flag, V *cval, int32_t *rowidx)
{
    extern __shared__ int32_t s_cur[];
    const int32_t c = blockIdx.x;
    if (*flag || off[c + 1] == off[c])
        return;
    const int32_t l = clo[c], w = off[c + 1] - off[c];
    int32_t *slice = cnt + off[c];
    int32_t *cur = smem ? s_cur : slice;
    for (int32_t i = threadIdx.x; i < w; i += blockDim.x)
        cur[i] = slice[i] + colptr[l + i];
    __syncthreads();
    const int32_t r1 = rs[c + 1], p0 = rowptr[rs[c]], p1 = rowptr[r1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int32_t row0 = rs[c];
    for (int32_t base = p0; base < p1; base += blockDim.x) {
        int32_t k = base + (int32_t)threadIdx.x;
        bool ok = k < p1;
        int32_t j = ok ? colidx[k] : -1;
        V v = ok ? val[k] : (V)0;
        int32_t row = wt_row_of(rowptr, r1, row0, ok ? k : -1);
        row0 = __reduce_max_sync(SP_FULL_MASK, ok ? row : row0);
        unsigned peers = __match_any_sync(SP_FULL_MASK, j);
        int leader = __ffs(peers) - 1;
        int rank = __popc(peers & ((1u << lane) - 1u));
        int32_t slot = 0;
        for (int t = 0; t < nw; t++) {
            if (warp == t && ok && lane == leader) {
                slot = cur[j - l];
                cur[j - l] = slot + __popc(peers);
            }
            __syncthreads();
        }
        slot = __shfl_sync(SP_FULL_MASK, slot, leader) + rank;
        if (ok) {
            rowidx[slot] = row;
            cval[slot] = v;
        }
    }
}

/* Host only: the axes and the plan (the windows, W and the widest, or
 * the refusal of wide windows). */
extern "C" int sp_trans_wintrans_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                         sp_err *err)
{
    *state = NULL;
    int bs = 0;
    int64_t chunk = 0;
    if (sp_trans_gpu_blocksize(KERNEL, p, &bs, err) || sp_wintrans_chunk(KERNEL, p, &chunk, err))
        return -1;
    sp_gpu_trans *g = sp_trans_gpu_new(KERNEL, pb, p, err);
    if (!g)
        return -1;
    g->bs = bs;
    if (sp_wintrans_plan_of(pb->A, chunk, &g->plan, err)) {
        sp_trans_gpu_release(g);    /* host memory only: no device call */
        return -1;
    }
    *state = g;
    return 0;
}

/* The chunks' rows, windows and offsets with the flag (6 C + 3 ints), the
 * W counts, the column totals and their scan's temporaries; the flag
 * cleared, so a result without a launch reads no stale check. */
static int wintrans_work(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    size_t nc = (size_t)g->plan.chunks;
    if (sp_trans_gpu_alloc((void **)&g->w32a, 6 * nc + 3, 4, err) ||
        sp_trans_gpu_alloc((void **)&g->w32b, (size_t)g->plan.width, 4, err) ||
        sp_trans_gpu_alloc((void **)&g->w32c, (size_t)g->cols, 4, err) ||
        sp_trans_gpu_alloc(&g->scan_temp, sp_gpu_scan_temp_bytes(g->cols, g->bs), 1, err))
        return -1;
    g->flag = g->w32a + 6 * nc + 2;
    SP_CUDA(cudaMemsetAsync(g->flag, 0, 4, stream), err);
    return 0;
}

extern "C" int sp_trans_wintrans_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, wintrans_work, err);
}

/* The count's and the scatter's shared-memory limit (a window of up to
 * SP_WINTRANS_SMEM bytes). */
static int wintrans_setup(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    (void)g, (void)stream;
    int smem = (int)SP_WINTRANS_SMEM;
    if (cudaFuncSetAttribute(wt_count, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) !=
            cudaSuccess ||
        cudaFuncSetAttribute(wt_scatter<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             smem) != cudaSuccess ||
        cudaFuncSetAttribute(wt_scatter<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             smem) != cudaSuccess)
        return sp_fail(err, KERNEL ": %d bytes of shared memory refused: %s", smem,
                       cudaGetErrorString(cudaGetLastError()));
    return 0;
}

extern "C" int sp_trans_wintrans_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, wintrans_setup, err);
}

/* Passes 1-4: the windows, the plan and its check, the counts, the
 * columns' offsets and lengths. */
static int wintrans_count(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const sp_wintrans_plan *pl = &g->plan;
    const int32_t C = pl->chunks;
    int32_t *rs = g->w32a, *lo = rs + C + 1, *hi = lo + C, *clo = hi + C, *chi = clo + C;
    int32_t *off = chi + C;
    size_t smem = (size_t)pl->max_width * 4;
    int use_smem = smem <= SP_WINTRANS_SMEM;
    wt_windows<<<C, g->bs, 0, stream>>>(g->rowptr, g->colidx, g->rows, pl->chunk, C, rs, lo, hi);
    SP_LAUNCHED("wt_windows", err);
    wt_plan<<<1, WT_PLAN_THREADS, 0, stream>>>(C, lo, hi, pl->max_width, pl->width, clo, chi,
                                               off, g->flag);
    SP_LAUNCHED("wt_plan", err);
    wt_count<<<C, g->bs, use_smem ? smem : 0, stream>>>(g->rowptr, g->colidx, rs, clo, off,
                                                        g->w32b, use_smem, g->flag);
    SP_LAUNCHED("wt_count", err);
    wt_columns<<<sp_grid(g->cols, 256), 256, 0, stream>>>(g->cols, C, clo, chi, off, g->w32b,
                                                          g->w32c, g->flag);
    SP_LAUNCHED("wt_columns", err);
    return 0;
}

/* wt_scatter of g's values (V) on `stream`. */
template <typename V>
static void wt_scatter_of(sp_gpu_trans *g, const int32_t *rs, const int32_t *clo,
                          const int32_t *off, size_t smem, int use_smem, cudaStream_t stream)
{
    wt_scatter<V><<<g->plan.chunks, g->bs, use_smem ? smem : 0, stream>>>(
        g->rowptr, g->colidx, (const V *)g->val, rs, clo, off, g->w32b, g->colptr, use_smem,
        g->flag, (V *)g->cval, g->rowidx);
}

/* Passes 5-6: colptr, the scatter. */
static int wintrans_scatter(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const sp_wintrans_plan *pl = &g->plan;
    const int32_t C = pl->chunks;
    const int32_t *rs = g->w32a, *clo = rs + 3 * C + 1, *off = clo + 2 * C;
    size_t smem = (size_t)pl->max_width * 4;
    int use_smem = smem <= SP_WINTRANS_SMEM;
    if (sp_gpu_scan(g->w32c, g->colptr, g->cols, g->bs, g->scan_temp, stream, err))
        return -1;
    SP_TRANS_BY_VALUE(g, wt_scatter_of, g, rs, clo, off, smem, use_smem, stream);
    SP_LAUNCHED("wt_scatter", err);
    return 0;
}

static int wintrans(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    SP_CUDA(cudaMemsetAsync(g->flag, 0, 4, stream), err);
    if (g->nnz == 0) {
        SP_CUDA(cudaMemsetAsync(g->colptr, 0, ((size_t)g->cols + 1) * 4, stream), err);
        return 0;
    }
    return wintrans_count(g, stream, err) || wintrans_scatter(g, stream, err) ? -1 : 0;
}

extern "C" int sp_trans_wintrans_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, wintrans, err);
}

/* The device's check of the last launch (its flag; every launch clears it
 * first and computes the same windows), then the CSC; both copied on
 * ex->stream. */
static int wintrans_check(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    int32_t flag = 0;
    SP_CUDA(cudaMemcpyAsync(&flag, g->flag, 4, cudaMemcpyDeviceToHost, stream), err);
    /* the host reads the flag before the CSC is asked for: a wait for the
     * copy, not a clock */
    SP_CUDA(cudaStreamSynchronize(stream), err);
    if (flag)
        return sp_fail(err, KERNEL ": the device's windows disagree with the plan (%s%s)",
                       flag & 1 ? "W or the widest window differ" : "",
                       flag & 2 ? " a column outside its chunk's window: rows not sorted" : "");
    return 0;
}

extern "C" int sp_trans_wintrans_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    if (sp_trans_gpu_step(state, ex, KERNEL, wintrans_check, err))
        return -1;
    return sp_trans_gpu_result(state, out, ex, err);
}
