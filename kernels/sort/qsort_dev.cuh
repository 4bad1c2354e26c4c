/*
 * qsort_dev.cuh — the block-level pieces every GPU quicksort design uses:
 * splitter choice from a sorted sample, bucket classification (range and
 * equal buckets), counting and window-by-window scattering of a range, and
 * the block-local sort in shared memory. Device code only.
 */
#ifndef SP_QSORT_DEV_CUH
#define SP_QSORT_DEV_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "qsort_gpu.h"

#define QS_FULL 0xffffffffu
/* Threads a block-local sort of ITEMS keys per thread may have: at most
 * SP_QSORT_LEAF_CAP keys, so the compiler may give each thread
 * 65536 / threads registers. */
#define QS_LEAF_THREADS(ITEMS) ((ITEMS) >= 16 ? 512 : 1024)

/* A subproblem or a task: keys [start, start + len) of buffer info & 1
 * (0: the caller's arrays, 1: the workspace's); info >> 1 is a kind or a
 * depth, depending on the list. */
struct qs_seg {
    unsigned long long start;
    unsigned len, info;
};
enum { QS_TASK_SORT = 0, QS_TASK_COPY = 1, QS_TASK_PART = 2 };

/* Per subproblem of a level: splitters kept, tiles, first tile, first count. */
struct qs_info {
    unsigned nsp, nt;
    unsigned long long tile_base, cbase;
};

/* Counters the host reads between levels (and the overflow flag). */
struct qs_ctr {
    unsigned long long tiles, entries;
    unsigned nnext, nleaf, nthread, nthread_next, overflow;
    unsigned long long q_head, q_tail, q_pending;
};

__device__ __forceinline__ unsigned qs_hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Sort s[0..S) ascending, S a power of two, the whole block. */
__device__ inline void qs_bitonic(unsigned *s, unsigned S)
{
    for (unsigned k = 2; k <= S; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            for (unsigned i = threadIdx.x; i < S; i += blockDim.x) {
                unsigned p = i ^ j;
                if (p > i) {
                    unsigned a = s[i], b = s[p];
                    if ((a > b) == ((i & k) == 0)) {
                        s[i] = b;
                        s[p] = a;
                    }
                }
            }
            __syncthreads();
        }
}

/* Choose up to 255 distinct splitters of X[start, start + len) from a
 * sorted sample of 16 per bucket, aiming at buckets of target / 2; sp
 * (256 entries) is padded with the last splitter. Returns how many were
 * kept (>= 1; every splitter is a key of the range, so its equal bucket is
 * never empty and every other bucket is shorter than the range). */
__device__ inline unsigned qs_splitters(const unsigned *X, unsigned long long start,
                                        unsigned len, unsigned long long target, unsigned seed,
                                        unsigned *samples, unsigned *sp, unsigned *nsp)
{
    unsigned long long want = (2ull * len + target - 1) / target;
    unsigned m = (unsigned)(want < 2 ? 1 : want - 1 > 255 ? 255 : want - 1);
    unsigned S = 16;
    while (S < 16 * (m + 1) && S < SP_QSORT_SAMPLES_MAX)
        S <<= 1;
    for (unsigned i = threadIdx.x; i < S; i += blockDim.x)
        samples[i] = X[start + qs_hash(seed ^ qs_hash(i + 0x9e3779b9u)) % len];
    __syncthreads();
    qs_bitonic(samples, S);
    if (threadIdx.x == 0) {
        unsigned c = 0;
        for (unsigned k = 0; k < m; k++) {
            unsigned v = samples[(unsigned)(((unsigned long long)(k + 1) * S) / (m + 1))];
            if (c == 0 || v != sp[c - 1])
                sp[c++] = v;
        }
        for (unsigned k = c; k < 256; k++)
            sp[k] = sp[c - 1];
        *nsp = c;
    }
    __syncthreads();
    return *nsp;
}

/* The bucket lookup: 2j for keys between splitters j-1 and j (j = the
 * number of splitters below x), 2j+1 for keys equal to splitter j. A
 * binary search over 255 splitters is 8 dependent shared loads and ~40
 * instructions a key, and the count and scatter passes measured as bound
 * by instructions, not by bytes or bank conflicts (bench/RESULTS.md). So a
 * table first: the splitters' span [s0, sl] cut into QS_LUT_CELLS cells
 * of equal width; tab[c] = the number of splitters below cell c's lower
 * end. A key of cell c has between tab[c] and tab[c + 1] splitters below
 * it, so a binary search over that short interval finishes the lookup:
 * none or one step for uniform keys (four cells a splitter), at most
 * eight where splitters crowd into one cell. */
#define QS_LUT_BITS 10
#define QS_LUT_CELLS (1u << QS_LUT_BITS)
struct qs_lut {
    const unsigned *sp;        /* sorted splitters, m of them (padded to 256) */
    const unsigned short *tab; /* QS_LUT_CELLS + 1 entries */
    unsigned s0, sl, shift, m;
};

/* Build the table of the sorted splitters sp[0..m) (m >= 1, visible to
 * the whole block) into tab; the whole block, synchronises at the end. */
__device__ inline qs_lut qs_lut_make(const unsigned *sp, unsigned m, unsigned short *tab)
{
    qs_lut L;
    L.sp = sp;
    L.tab = tab;
    L.m = m;
    L.s0 = sp[0];
    L.sl = sp[m - 1];
    unsigned span = L.sl - L.s0, bits = span ? 32 - __clz(span) : 0;
    L.shift = bits > QS_LUT_BITS ? bits - QS_LUT_BITS : 0;
    for (unsigned c = threadIdx.x; c <= QS_LUT_CELLS; c += blockDim.x) {
        unsigned long long v = (unsigned long long)L.s0 + ((unsigned long long)c << L.shift);
        unsigned a = 0, b = m;
        if (v > L.sl) {
            a = m;
        } else {
            unsigned t = (unsigned)v;
            while (a < b) {
                unsigned mid = (a + b) >> 1;
                if (sp[mid] < t)
                    a = mid + 1;
                else
                    b = mid;
            }
        }
        tab[c] = (unsigned short)a;
    }
    __syncthreads();
    return L;
}

__device__ __forceinline__ unsigned qs_bucket(const qs_lut &L, unsigned x)
{
    if (x < L.s0)
        return 0;
    if (x > L.sl)
        return 2 * L.m;
    unsigned c = (x - L.s0) >> L.shift; /* < QS_LUT_CELLS: span < 2^(shift + BITS) */
    unsigned a = L.tab[c], b = L.tab[c + 1];
    while (a < b) {
        unsigned mid = (a + b) >> 1;
        if (L.sp[mid] < x)
            a = mid + 1;
        else
            b = mid;
    }
    return 2 * a + (L.sp[a] == x); /* a < m: x <= sl */
}

/* cnt[b] += 1 for every lane of `active`; returns this lane's rank among
 * all adds to b. A warp whose lanes all share b (sorted runs, equal keys)
 * adds once; otherwise each lane adds for itself: shared atomics to
 * distinct words go in one instruction, and __match_any_sync, which
 * costs about one step per distinct value, measured slower on uniform
 * keys (bench/RESULTS.md). */
__device__ __forceinline__ unsigned qs_agg_add(unsigned *cnt, unsigned b, unsigned active)
{
    unsigned lane = threadIdx.x & 31;
    int leader = __ffs(active) - 1;
    unsigned b0 = __shfl_sync(active, b, leader);
    if (__all_sync(active, b == b0)) {
        unsigned base = 0;
        if ((int)lane == leader)
            base = atomicAdd(&cnt[b], __popc(active));
        base = __shfl_sync(active, base, leader);
        return base + __popc(active & ((1u << lane) - 1));
    }
    return atomicAdd(&cnt[b], 1u);
}

/* hist[bucket] += 1 for every key of X[lo, hi); hist zeroed by the caller.
 * Four loads in flight per thread before the first is used. */
__device__ inline void qs_count_range(const unsigned *__restrict__ X, unsigned long long lo,
                                      unsigned long long hi, const qs_lut &L, unsigned *hist)
{
    const unsigned bs = blockDim.x;
    for (unsigned long long i0 = lo; i0 < hi; i0 += 4ull * bs) {
        unsigned x[4];
        bool ok[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            unsigned long long i = i0 + u * bs + threadIdx.x;
            ok[u] = i < hi;
            x[u] = ok[u] ? X[i] : 0;
        }
        unsigned bk[4]; /* four independent searches in flight, then the adds */
#pragma unroll
        for (int u = 0; u < 4; u++)
            bk[u] = qs_bucket(L, x[u]);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            unsigned act = __ballot_sync(QS_FULL, ok[u]);
            if (ok[u])
                qs_agg_add(hist, bk[u], act);
        }
    }
}

/* One warp's exclusive scan of in[0..nb), lane by lane in chunks of
 * ceil(nb / 32): the lane's chunk [*b0, *b1) and the sum of in[] before it.
 * Every lane of the warp calls it. */
__device__ __forceinline__ unsigned qs_warp_chunk_start(const unsigned *in, unsigned nb,
                                                        unsigned lane, unsigned *b0, unsigned *b1)
{
    unsigned per = (nb + 31) / 32, s = 0;
    *b0 = lane * per;
    *b1 = min(*b0 + per, nb);
    for (unsigned b = *b0; b < *b1; b++)
        s += in[b];
    unsigned incl = s;
    for (int d = 1; d < 32; d <<= 1) {
        unsigned t = __shfl_up_sync(QS_FULL, incl, d);
        if ((int)lane >= d)
            incl += t;
    }
    return incl - s;
}

/* Exclusive scan of in[0..nb) into out (nb <= 512) by warp 0; the caller
 * synchronises before and after. */
__device__ inline void qs_scan_small(const unsigned *in, unsigned *out, unsigned nb)
{
    if (threadIdx.x >= 32)
        return;
    unsigned b0, b1, run = qs_warp_chunk_start(in, nb, threadIdx.x, &b0, &b1);
    for (unsigned b = b0; b < b1; b++) {
        unsigned c = in[b];
        out[b] = run;
        run += c;
    }
}

/* The scatter's window loop holds a window of QS_SCATTER_ITEMS keys per
 * thread in registers when sorting keys only and the window is exactly
 * that at <= 512 threads (qs_level decides), and stages it in shared
 * memory otherwise; three barriers a window either way. */
#define QS_SCATTER_ITEMS 8

/* The shared memory of qs_scatter_range, carved from one buffer: what
 * every window needs first (the global bases, counts, starts and the
 * reordered keys, values and buckets: 10 bytes a key), then the staging
 * arrays (sk, sv, sb, sr: 12 bytes a key) that a window held in
 * registers does not use. */
struct qs_window {
    unsigned long long *gofs;
    unsigned *wcnt, *wstart, *ok, *ov, *sk, *sv;
    unsigned short *ob, *sb, *sr;
};

/* win lies after sp (256 words) and off (512 x 8 bytes) at the start of a
 * block's dynamic shared memory (8-byte aligned); see
 * sp_qsort_smem_scatter. */
__device__ inline qs_window qs_window_at(unsigned char *base, unsigned W)
{
    qs_window w;
    w.gofs = (unsigned long long *)base;
    w.wcnt = (unsigned *)(w.gofs + 512);
    w.wstart = w.wcnt + 512;
    w.ok = w.wstart + 512;
    w.ov = w.ok + W;
    w.ob = (unsigned short *)(w.ov + W);
    w.sk = (unsigned *)(w.ob + W + (W & 1)); /* 4-byte aligned */
    w.sv = w.sk + W;
    w.sb = (unsigned short *)(w.sv + W);
    w.sr = w.sb + W;
    return w;
}

/* Classify and rank keys [i0, i0 + 4 bs) of the window at w0 (wl keys):
 * bucket, rank among the window's keys of that bucket (wcnt), key and
 * value staged in shared memory at the key's place in the window. */
template <bool VALS>
__device__ __forceinline__ void qs_window_rank(const unsigned *__restrict__ X,
                                               const unsigned *__restrict__ XV,
                                               unsigned long long w0, unsigned wl, unsigned i0,
                                               const qs_lut &L, const qs_window &w)
{
    const unsigned bs = blockDim.x, tid = threadIdx.x;
    unsigned x[4], v[4];
    bool ok[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
        unsigned i = i0 + u * bs + tid;
        ok[u] = i < wl;
        x[u] = ok[u] ? X[w0 + i] : 0;
        v[u] = VALS && ok[u] ? XV[w0 + i] : 0;
    }
    unsigned bk[4];
#pragma unroll
    for (int u = 0; u < 4; u++)
        bk[u] = qs_bucket(L, x[u]);
#pragma unroll
    for (int u = 0; u < 4; u++) {
        unsigned act = __ballot_sync(QS_FULL, ok[u]);
        if (ok[u]) {
            unsigned i = i0 + u * bs + tid;
            unsigned b = bk[u];
            w.sr[i] = (unsigned short)qs_agg_add(w.wcnt, b, act);
            w.sb[i] = (unsigned short)b;
            w.sk[i] = x[u];
            if (VALS)
                w.sv[i] = v[u];
        }
    }
}

/* Move X[lo, hi) (and XV alongside) to Y where off[b] says bucket b's next
 * key goes, window by window: classify and rank the window's keys with
 * shared atomics, scan the window's bucket counts, reorder the window by
 * bucket in shared memory, then write each bucket's run in one coalesced
 * sweep (consecutive threads, consecutive addresses), and advance off.
 * Three barriers a window: the scan (one warp) also turns each bucket's
 * offset into the global place of the window's slot 0 (gofs), advances
 * off and zeroes the counts for the next window, so the write sweep reads
 * nothing the next window's ranking writes. Ends with a barrier (off
 * holds the ends of the buckets). REGS: the window is QS_SCATTER_ITEMS keys
 * per thread, held in registers. */
template <bool VALS, bool REGS = false>
__device__ void qs_scatter_range(const unsigned *__restrict__ X, const unsigned *__restrict__ XV,
                                 unsigned *__restrict__ Y, unsigned *__restrict__ YV,
                                 unsigned long long lo, unsigned long long hi,
                                 const qs_lut &L, unsigned long long *off,
                                 const qs_window &w, unsigned W)
{
    const unsigned bs = blockDim.x, tid = threadIdx.x, nb = 2 * L.m + 1;
    const bool regs = REGS; /* the caller checked W == QS_SCATTER_ITEMS * bs */
    for (unsigned b = tid; b < nb; b += bs)
        w.wcnt[b] = 0;
    __syncthreads();
    for (unsigned long long w0 = lo; w0 < hi; w0 += W) {
        unsigned wl = (unsigned)min((unsigned long long)W, hi - w0);
        /* regs: keys, values, and bucket << 16 | rank (rank < W <= 8192,
         * bucket < 512) of items u * bs + tid */
        unsigned x[QS_SCATTER_ITEMS], v[QS_SCATTER_ITEMS], br[QS_SCATTER_ITEMS];
        if (regs) {
#pragma unroll
            for (int u = 0; u < QS_SCATTER_ITEMS; u++) {
                unsigned i = u * bs + tid;
                x[u] = i < wl ? X[w0 + i] : 0;
                v[u] = VALS && i < wl ? XV[w0 + i] : 0;
            }
#pragma unroll
            for (int u = 0; u < QS_SCATTER_ITEMS; u++)
                br[u] = qs_bucket(L, x[u]);
#pragma unroll
            for (int u = 0; u < QS_SCATTER_ITEMS; u++) {
                unsigned i = u * bs + tid;
                unsigned act = __ballot_sync(QS_FULL, i < wl);
                if (i < wl)
                    br[u] = br[u] << 16 | qs_agg_add(w.wcnt, br[u], act);
            }
        } else {
            for (unsigned i0 = 0; i0 < wl; i0 += 4 * bs)
                qs_window_rank<VALS>(X, XV, w0, wl, i0, L, w);
        }
        __syncthreads();
        if (tid < 32) {
            unsigned b0, b1, run = qs_warp_chunk_start(w.wcnt, nb, tid, &b0, &b1);
            for (unsigned b = b0; b < b1; b++) {
                unsigned c = w.wcnt[b];
                unsigned long long o = off[b];
                w.wstart[b] = run;
                w.gofs[b] = o - run;
                off[b] = o + c;
                w.wcnt[b] = 0;
                run += c;
            }
        }
        __syncthreads();
        if (regs) {
#pragma unroll
            for (int u = 0; u < QS_SCATTER_ITEMS; u++) {
                unsigned i = u * bs + tid;
                if (i < wl) {
                    unsigned b = br[u] >> 16, d = w.wstart[b] + (br[u] & 0xffffu);
                    w.ok[d] = x[u];
                    if (VALS)
                        w.ov[d] = v[u];
                    w.ob[d] = (unsigned short)b;
                }
            }
        } else {
            for (unsigned i = tid; i < wl; i += bs) {
                unsigned b = w.sb[i], d = w.wstart[b] + w.sr[i];
                w.ok[d] = w.sk[i];
                if (VALS)
                    w.ov[d] = w.sv[i];
                w.ob[d] = (unsigned short)b;
            }
        }
        __syncthreads();
        for (unsigned i = tid; i < wl; i += bs) {
            unsigned long long g = w.gofs[w.ob[i]] + i;
            Y[g] = w.ok[i];
            if (VALS)
                YV[g] = w.ov[i];
        }
    }
    __syncthreads();
}

/* Copy [start, start + len) of X (and XV) to A (and AV), the whole block. */
__device__ inline void qs_copy_range(const unsigned *X, const unsigned *XV, unsigned *A,
                                     unsigned *AV, unsigned long long start, unsigned len)
{
    if (X == A)
        return;
    for (unsigned i = threadIdx.x; i < len; i += blockDim.x) {
        A[start + i] = X[start + i];
        if (AV)
            AV[start + i] = XV[start + i];
    }
}

/* Inclusive scan of four 64-bit words of packed 16-bit counters across the
 * block; excl gets this thread's exclusive prefix, tot the block's totals.
 * scratch: 33 x 4 words, read at the end: the caller synchronises before
 * the next scan writes it. */
__device__ inline void qs_block_scan4(const unsigned long long c[4], unsigned long long excl[4],
                                      unsigned long long tot[4], unsigned long long *scratch)
{
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    unsigned long long in[4];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        in[q] = c[q];
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long t = __shfl_up_sync(QS_FULL, in[q], d);
            if ((int)lane >= d)
                in[q] += t;
        }
    }
    if (lane == 31)
#pragma unroll
        for (int q = 0; q < 4; q++)
            scratch[warp * 4 + q] = in[q];
    __syncthreads();
    /* the per-warp totals of word q scanned by warp q (warp q mod nw when
     * there are fewer than four warps): four short scans side by side */
    for (unsigned q = warp; q < 4; q += nw) {
        unsigned long long v = lane < nw ? scratch[lane * 4 + q] : 0, s = v;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long t = __shfl_up_sync(QS_FULL, s, d);
            if ((int)lane >= d)
                s += t;
        }
        if (lane < nw)
            scratch[lane * 4 + q] = s - v; /* exclusive per warp */
        if (lane == 31)
            scratch[32 * 4 + q] = s;       /* block totals (scratch has 33 rows) */
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < 4; q++) {
        excl[q] = scratch[warp * 4 + q] + in[q] - c[q];
        tot[q] = scratch[32 * 4 + q];
    }
}

/* The 16-bit counter of digit d in the packed words. */
__device__ __forceinline__ unsigned qs_lane16(const unsigned long long c[4], unsigned d)
{
    unsigned long long w = (d >> 2) == 0 ? c[0] : (d >> 2) == 1 ? c[1] : (d >> 2) == 2 ? c[2] : c[3];
    return (unsigned)(w >> ((d & 3) * 16)) & 0xffffu;
}

/* Index p of a padded shared array: one spare word per 32, so the blocked
 * reads below (thread t, item j at t * ITEMS + j) hit 32 distinct banks. */
__device__ __forceinline__ unsigned qs_pad(unsigned p)
{
    return p + (p >> 5);
}

/* A sub-bucket of the counting pass holding more keys than this (with
 * keys of more than one value in it) sends the sort to the digit passes:
 * it bounds the insertion sorts' work. */
#define QS_LEAFB_MAX 16

/* The counting pass's sub-buckets for a sort of cap keys: the largest
 * power of two <= cap (sp_qsort_smem_leaf reserves a word each). */
__device__ __forceinline__ unsigned qs_leafb_log(unsigned cap)
{
    return 31 - __clz(cap);
}

/* Exclusive scan of v over the block; scratch: 33 words. TOTAL: *total
 * gets the block's sum and the scan ends with a barrier (scratch free
 * again); else total is unused and scratch is read after the last barrier. */
template <typename T, bool TOTAL>
__device__ __forceinline__ T qs_block_excl_t(T v, T *total, T *scratch)
{
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    T s = v;
    for (int d = 1; d < 32; d <<= 1) {
        T t = __shfl_up_sync(QS_FULL, s, d);
        if ((int)lane >= d)
            s += t;
    }
    if (lane == 31)
        scratch[warp] = s;
    __syncthreads();
    if (warp == 0) {
        T w = lane < nw ? scratch[lane] : 0, ws = w;
        for (int d = 1; d < 32; d <<= 1) {
            T t = __shfl_up_sync(QS_FULL, ws, d);
            if ((int)lane >= d)
                ws += t;
        }
        if (lane < nw)
            scratch[lane] = ws - w;
        if (TOTAL && lane == 31)
            scratch[32] = ws;
    }
    __syncthreads();
    T r = scratch[warp] + s - v;
    if (TOTAL) {
        *total = scratch[32];
        __syncthreads();
    }
    return r;
}

/* Exclusive scan of v over the block (unsigned); scratch: 33 words. */
__device__ inline unsigned qs_block_excl32(unsigned v, unsigned *scratch)
{
    return qs_block_excl_t<unsigned, false>(v, nullptr, scratch);
}

/* Sort X[start, start + len) (len <= ITEMS * blockDim.x) into A (values
 * from XV into AV when VALS), the whole block, in shared memory: keys minus
 * their minimum, least significant 4-bit digit first, only over the bits
 * of the maximum minus the minimum (a bucket spans few values, so uniform
 * keys at 2^28 need 4 passes, not 8; lo ^ hi would count every bit below
 * the highest one they differ in, a pass more for about half the buckets,
 * whose span crosses a power of two). Each pass ranks the keys, each
 * thread holding ITEMS consecutive ones, with packed 16-bit counters and
 * one block scan (four barriers a pass, not six: the scan's scratch and
 * the keys' array are each rewritten only after a later barrier).
 * Positions travel with the
 * keys, so values move once, at the end; stable, and safe in place
 * (X == A). All of a thread's loads are issued before the first is used.
 * smem: padded keys and positions, values, the scan's scratch, the
 * minimum and maximum (mm[0..1]), a flag (mm[2]), the digit starts
 * (mm[16..31]) and the counting pass's counters (sp_qsort_smem_leaf). */
template <int ITEMS, bool VALS>
__device__ void qs_leaf_sort(const unsigned *X, const unsigned *XV, unsigned *A, unsigned *AV,
                             unsigned long long start, unsigned len, unsigned char *smem)
{
    const unsigned bs = blockDim.x, tid = threadIdx.x, cap = ITEMS * bs, capp = cap + cap / 32;
    unsigned *sk = (unsigned *)smem, *si = sk + capp, *sv = si + capp;
    unsigned long long *scratch = (unsigned long long *)(sv + cap);
    unsigned *mm = (unsigned *)(scratch + 33 * 4);
    /* the counting pass's counters after mm's 32 words */
    unsigned *bcnt = mm + 32;
    const unsigned blog = qs_leafb_log(cap);
    if (tid == 0) {
        mm[0] = 0xffffffffu;
        mm[1] = 0;
        mm[2] = 0; /* a sub-bucket over QS_LEAFB_MAX */
    }
    for (unsigned b = tid; b < (1u << blog); b += bs)
        bcnt[b] = 0;
    unsigned lo = 0xffffffffu, hi = 0;
    {
        unsigned xr[ITEMS], vr[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            unsigned i = tid + j * bs;
            xr[j] = i < len ? X[start + i] : 0;
            vr[j] = VALS && i < len ? XV[start + i] : 0;
        }
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            unsigned i = tid + j * bs;
            if (i < len) {
                sk[qs_pad(i)] = xr[j];
                if (VALS)
                    sv[i] = vr[j];
                lo = min(lo, xr[j]);
                hi = max(hi, xr[j]);
            }
        }
    }
    for (int d = 16; d; d >>= 1) {
        lo = min(lo, __shfl_xor_sync(QS_FULL, lo, d));
        hi = max(hi, __shfl_xor_sync(QS_FULL, hi, d));
    }
    __syncthreads(); /* mm set */
    if ((tid & 31) == 0) {
        atomicMin(&mm[0], lo);
        atomicMax(&mm[1], hi);
    }
    __syncthreads();
    lo = mm[0];
    hi = mm[1];
    unsigned bits = len < 2 || lo == hi ? 0 : 32 - __clz(hi - lo);
    if (bits) {
        unsigned k[ITEMS], id[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            unsigned p = tid * ITEMS + j;
            k[j] = p < len ? sk[qs_pad(p)] - lo : 0xffffffffu; /* pads: last, and stay last */
            id[j] = p;
        }
        unsigned lsd_bits = bits;
        /* One counting pass over the top blog bits of key - lo: sub-bucket
         * k >> sh (2^blog of them, about one key each when the keys spread
         * evenly), ranks by shared atomics (so not stable: positions travel
         * with the keys), a block scan of the counts, every key moved to
         * its sub-bucket, then each thread insertion-sorts the keys of its
         * run of sub-buckets (keys of different sub-buckets are already in
         * order, so the work is the inversions inside sub-buckets). A
         * sub-bucket of more than QS_LEAFB_MAX keys spanning more than one
         * value (sh > 0) would make that work quadratic: then nothing has
         * moved yet and the digit passes below sort as before. Uniform keys
         * at 2^28 take this path, 16-bit spans, instead of four passes.
         * Keys spanning at most 2^blog values need no insertion sorts. */
        if (bits > 4) { /* at most 4 bits: one digit pass is as cheap */
            const unsigned sh = bits > blog ? bits - blog : 0, nbk = 1u << blog;
            unsigned short r[ITEMS];
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                unsigned p = tid * ITEMS + j;
                unsigned act = __ballot_sync(QS_FULL, p < len);
                r[j] = 0;
                if (p < len) {
                    unsigned rk = qs_agg_add(bcnt, k[j] >> sh, act);
                    r[j] = (unsigned short)min(rk, 0xffffu);
                    if (sh && rk >= QS_LEAFB_MAX)
                        atomicOr(&mm[2], 1u);
                }
            }
            __syncthreads();
            if (!mm[2]) {
                unsigned per = (nbk + bs - 1) / bs, c0 = min(tid * per, nbk),
                         c1 = min(c0 + per, nbk), sum = 0;
                for (unsigned b = c0; b < c1; b++)
                    sum += bcnt[b];
                unsigned run = qs_block_excl32(sum, (unsigned *)scratch);
                for (unsigned b = c0; b < c1; b++) {
                    unsigned t = bcnt[b];
                    bcnt[b] = run;
                    run += t;
                }
                __syncthreads();
#pragma unroll
                for (int j = 0; j < ITEMS; j++) {
                    unsigned p = tid * ITEMS + j;
                    if (p < len) {
                        unsigned dest = qs_pad(bcnt[k[j] >> sh] + r[j]);
                        sk[dest] = k[j];
                        if (VALS)
                            si[dest] = id[j];
                    }
                }
                __syncthreads();
                /* sh == 0: a sub-bucket is one value, the keys are in
                 * order already (and a thread's run may be long: many
                 * copies of few values) */
                unsigned a = c0 < nbk ? bcnt[c0] : len, e = c1 < nbk ? bcnt[c1] : len;
                for (unsigned i = a + 1; sh && i < e; i++) {
                    unsigned key = sk[qs_pad(i)], pid = VALS ? si[qs_pad(i)] : 0, j = i;
                    while (j > a) {
                        unsigned prev = sk[qs_pad(j - 1)];
                        if (prev <= key)
                            break;
                        sk[qs_pad(j)] = prev;
                        if (VALS)
                            si[qs_pad(j)] = si[qs_pad(j - 1)];
                        j--;
                    }
                    if (j != i) {
                        sk[qs_pad(j)] = key;
                        if (VALS)
                            si[qs_pad(j)] = pid;
                    }
                }
                __syncthreads();
                lsd_bits = 0;
            }
        }
        for (unsigned shift = 0; shift < lsd_bits; shift += 4) {
            unsigned long long c[4] = {0, 0, 0, 0}, excl[4], tot[4];
            unsigned short lr[ITEMS];
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                unsigned d = (k[j] >> shift) & 15;
                lr[j] = (unsigned short)qs_lane16(c, d);
                unsigned long long inc = 1ull << ((d & 3) * 16);
#pragma unroll
                for (int q = 0; q < 4; q++)
                    c[q] += (d >> 2) == (unsigned)q ? inc : 0;
            }
            qs_block_scan4(c, excl, tot, scratch);
            /* digit d starts after all keys of smaller digits: a table
             * after the scan's scratch (the scratch itself may still be
             * read by the scan: no barrier ends it). (Adding the starts to
             * excl in registers instead, by packed arithmetic, made the
             * kernel spill at 64 registers.) */
            unsigned *dstart = mm + 16;
            if (tid < 16) {
                unsigned run = 0;
                for (unsigned d = 0; d < tid; d++)
                    run += qs_lane16(tot, d);
                dstart[tid] = run;
            }
            __syncthreads();
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                unsigned d = (k[j] >> shift) & 15;
                unsigned dest = qs_pad(dstart[d] + qs_lane16(excl, d) + lr[j]);
                sk[dest] = k[j];
                if (VALS)
                    si[dest] = id[j];
            }
            __syncthreads();
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                k[j] = sk[qs_pad(tid * ITEMS + j)];
                if (VALS)
                    id[j] = si[qs_pad(tid * ITEMS + j)];
            }
            /* the next pass writes sk only after its scan's barriers */
        }
    }
    /* sk (and si) now hold the keys in order, minus lo unless bits == 0 */
    unsigned add = bits ? lo : 0;
    for (unsigned i = tid; i < len; i += bs) {
        A[start + i] = sk[qs_pad(i)] + add;
        if (VALS)
            AV[start + i] = bits ? sv[si[qs_pad(i)]] : sv[i];
    }
    __syncthreads();
}

#endif
