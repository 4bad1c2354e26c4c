/*
 * qsort_level.cu — one wide partition pass over every subproblem of a
 * level, many blocks per subproblem: each subproblem is cut into tiles of
 * SP_QSORT_TILE_WINDOWS windows, one block per tile. Kernels in launch
 * order: choose splitters (one block per subproblem), lay out tiles and
 * counters (one block), count each tile's buckets, scan the counters
 * (bucket-major per subproblem, so the scan gives every tile's offset in
 * every bucket), scatter each tile window by window, hand out the buckets.
 * Plus the task kernel that finishes buckets (block-local sort, or copy
 * back to the caller's arrays) and the host glue the designs share.
 */
#include <string.h>

#include "qsort_level.cuh"

#define QS_SCAN_CHUNK 4096
#define QS_SCAN_THREADS 256

/* Exclusive block scan of v; *total gets the block's sum. scratch: 33. */
template <typename T>
__device__ T qs_block_excl(T v, T *total, T *scratch)
{
    return qs_block_excl_t<T, true>(v, total, scratch);
}

__global__ void qs_k_first(qs_seg *segs, unsigned long long n)
{
    segs[0] = qs_seg{0, (unsigned)n, 0};
}

/* One block per subproblem: its splitters into spl[s * 256 ..]. */
__global__ void __launch_bounds__(1024) qs_k_sample(const qs_seg *segs, const unsigned *X, unsigned long long target,
                            unsigned level, unsigned *spl, qs_info *info)
{
    __shared__ unsigned samples[SP_QSORT_SAMPLES_MAX], sp[256], nsp;
    qs_seg g = segs[blockIdx.x];
    unsigned seed = qs_hash((unsigned)g.start ^ qs_hash(g.len + 977u * level));
    unsigned m = qs_splitters(X, g.start, g.len, target, seed, samples, sp, &nsp);
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
        spl[blockIdx.x * 256ull + i] = sp[i];
    if (threadIdx.x == 0)
        info[blockIdx.x].nsp = m;
}

/* One block: tiles and counter entries of each subproblem, their starts,
 * and the totals into ctr. */
__global__ void __launch_bounds__(1024) qs_k_plan(const qs_seg *segs, unsigned nsegs, qs_info *info,
                          unsigned long long tile, unsigned long long cnt_cap, qs_ctr *ctr)
{
    __shared__ unsigned long long scratch[33];
    unsigned long long carry_t = 0, carry_e = 0;
    for (unsigned c0 = 0; c0 < nsegs; c0 += blockDim.x) {
        unsigned s = c0 + threadIdx.x;
        unsigned long long nt = 0, e = 0, tot;
        if (s < nsegs) {
            nt = (segs[s].len + tile - 1) / tile;
            e = (2ull * info[s].nsp + 1) * nt;
        }
        unsigned long long xt = qs_block_excl(nt, &tot, scratch);
        unsigned long long ct = carry_t;
        carry_t += tot;
        unsigned long long xe = qs_block_excl(e, &tot, scratch);
        if (s < nsegs) {
            info[s].nt = (unsigned)nt;
            info[s].tile_base = ct + xt;
            info[s].cbase = carry_e + xe;
        }
        carry_e += tot;
    }
    if (threadIdx.x == 0) {
        /* a short bound: nothing is counted or scattered, the host sees it */
        bool over = carry_e > cnt_cap;
        ctr->tiles = over ? 0 : carry_t;
        ctr->entries = over ? 0 : carry_e;
        if (over)
            atomicOr(&ctr->overflow, 1u);
    }
}

/* The subproblem that tile `bid` belongs to: the last with tile_base <= bid. */
__device__ inline unsigned qs_tile_seg(const qs_info *info, unsigned nsegs, unsigned long long bid)
{
    unsigned lo = 0, hi = nsegs; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (info[mid].tile_base <= bid)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* One block per tile: its bucket counts, bucket-major. */
__global__ void __launch_bounds__(1024) qs_k_count(const qs_seg *segs, unsigned nsegs, const qs_info *info,
                           const unsigned *spl, const unsigned *X, unsigned long long tile,
                           const qs_ctr *ctr, unsigned *cnt)
{
    __shared__ unsigned sp[256], hist[512];
    unsigned long long bid = blockIdx.x;
    if (bid >= ctr->tiles)
        return;
    unsigned s = qs_tile_seg(info, nsegs, bid);
    qs_seg g = segs[s];
    qs_info f = info[s];
    unsigned long long t = bid - f.tile_base, lo = g.start + t * tile;
    unsigned long long hi = min(lo + tile, g.start + g.len);
    unsigned nb = 2 * f.nsp + 1;
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
        sp[i] = spl[s * 256ull + i];
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x)
        hist[b] = 0;
    __syncthreads();
    __shared__ unsigned short tab[QS_LUT_CELLS + 1];
    qs_lut L = qs_lut_make(sp, f.nsp, tab);
    qs_count_range(X, lo, hi, L, hist);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x)
        cnt[f.cbase + b * (unsigned long long)f.nt + t] = hist[b];
}

/* Exclusive scan of cnt[0..entries), in place: chunk sums, their scan,
 * then each chunk scanned from its start. */
__global__ void qs_k_scan_reduce(const unsigned *cnt, const qs_ctr *ctr, unsigned *part)
{
    __shared__ unsigned scratch[33];
    unsigned long long E = ctr->entries, base = (unsigned long long)blockIdx.x * QS_SCAN_CHUNK;
    if (base >= E)
        return;
    unsigned s = 0, tot;
    for (unsigned i = threadIdx.x; i < QS_SCAN_CHUNK; i += blockDim.x)
        if (base + i < E)
            s += cnt[base + i];
    qs_block_excl(s, &tot, scratch);
    if (threadIdx.x == 0)
        part[blockIdx.x] = tot;
}

__global__ void qs_k_scan_top(unsigned *part, const qs_ctr *ctr)
{
    __shared__ unsigned scratch[33];
    unsigned long long P = (ctr->entries + QS_SCAN_CHUNK - 1) / QS_SCAN_CHUNK;
    unsigned carry = 0, tot;
    for (unsigned long long c0 = 0; c0 < P; c0 += blockDim.x) {
        unsigned long long i = c0 + threadIdx.x;
        unsigned v = i < P ? part[i] : 0;
        unsigned x = qs_block_excl(v, &tot, scratch);
        if (i < P)
            part[i] = carry + x;
        carry += tot;
    }
}

__global__ void qs_k_scan_down(unsigned *cnt, const qs_ctr *ctr, const unsigned *part)
{
    __shared__ unsigned scratch[33];
    const int per = QS_SCAN_CHUNK / QS_SCAN_THREADS;
    unsigned long long E = ctr->entries, base = (unsigned long long)blockIdx.x * QS_SCAN_CHUNK;
    if (base >= E)
        return;
    unsigned long long b0 = base + (unsigned long long)threadIdx.x * per;
    unsigned v[per], s = 0, tot;
#pragma unroll
    for (int j = 0; j < per; j++) {
        v[j] = b0 + j < E ? cnt[b0 + j] : 0;
        s += v[j];
    }
    unsigned run = part[blockIdx.x] + qs_block_excl(s, &tot, scratch);
#pragma unroll
    for (int j = 0; j < per; j++)
        if (b0 + j < E) {
            cnt[b0 + j] = run;
            run += v[j];
        }
}

/* One block per tile: scatter it to the other buffer. REGS: a window of
 * QS_SCATTER_ITEMS keys per thread held in registers, at most 512
 * threads, and registers for three blocks per SM (its shared memory,
 * 10 bytes a key, would take four). */
template <bool VALS, bool REGS>
__global__ void __launch_bounds__(REGS ? 512 : 1024, REGS ? 3 : 1) qs_k_scatter(const qs_seg *segs, unsigned nsegs, const qs_info *info,
                             const unsigned *spl, const unsigned *X, const unsigned *XV,
                             unsigned *Y, unsigned *YV, unsigned long long tile, unsigned W,
                             const qs_ctr *ctr, const unsigned *cnt)
{
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned *sp = (unsigned *)smem;
    unsigned long long *off = (unsigned long long *)(smem + 1024);
    qs_window w = qs_window_at(smem + 1024 + 4096, W);
    unsigned long long bid = blockIdx.x;
    if (bid >= ctr->tiles)
        return;
    unsigned s = qs_tile_seg(info, nsegs, bid);
    qs_seg g = segs[s];
    qs_info f = info[s];
    unsigned long long t = bid - f.tile_base, lo = g.start + t * tile;
    unsigned long long hi = min(lo + tile, g.start + g.len);
    unsigned nb = 2 * f.nsp + 1, first = cnt[f.cbase];
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
        sp[i] = spl[s * 256ull + i];
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x)
        off[b] = g.start + (cnt[f.cbase + b * (unsigned long long)f.nt + t] - first);
    __syncthreads();
    __shared__ unsigned short tab[QS_LUT_CELLS + 1];
    qs_lut L = qs_lut_make(sp, f.nsp, tab);
    qs_scatter_range<VALS, REGS>(X, XV, Y, YV, lo, hi, L, off, w, W);
}

/* Append to a list with a capacity; a full list raises ctr->overflow
 * (a workspace bound was wrong: reported, never written past). */
__device__ inline void qs_append(qs_seg *list, unsigned *count, unsigned long long cap,
                                 qs_ctr *ctr, qs_seg t)
{
    unsigned i = atomicAdd(count, 1u);
    if (i < cap)
        list[i] = t;
    else
        atomicOr(&ctr->overflow, 1u);
}

struct qs_out {
    qs_seg *next, *leaf, *tl;
    unsigned long long next_cap, leaf_cap, tl_cap;
    qs_queue q;
};

/* One block per subproblem, a thread per bucket: long range buckets to the
 * next pass (or the queue); long equal buckets copied back to the caller's
 * arrays in chunks when the pass wrote the workspace's. Thread mode: short
 * range buckets to the thread list, short equal ones copied. Otherwise
 * thread 0 joins runs of adjacent short buckets (a bucket's keys all lie
 * below the next bucket's, so any run is sorted by sorting it as one) into
 * tasks of up to `cutoff` keys: a block-local sort when a range bucket of
 * two or more keys is in it, else a copy. Joining keeps the tasks near the
 * cutoff, not the thousands of one-key equal buckets uniform keys make. */
__global__ void __launch_bounds__(1024) qs_k_children(const qs_seg *segs, const qs_info *info,
                                                      const unsigned *cnt, unsigned ybuf,
                                                      unsigned long long big,
                                                      unsigned cutoff, int mode, qs_out out,
                                                      qs_ctr *ctr)
{
    __shared__ unsigned blen[512], bpos[512], rs[512], rl[512];
    __shared__ unsigned char rsort[512];
    __shared__ unsigned nruns, base;
    qs_seg g = segs[blockIdx.x];
    qs_info f = info[blockIdx.x];
    unsigned nb = 2 * f.nsp + 1, first = cnt[f.cbase];
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x) {
        unsigned bs = cnt[f.cbase + b * (unsigned long long)f.nt] - first;
        unsigned be = b + 1 < nb ? cnt[f.cbase + (b + 1) * (unsigned long long)f.nt] - first : g.len;
        unsigned len = be - bs;
        unsigned long long start = g.start + bs;
        blen[b] = len;
        bpos[b] = bs;
        bool range = !(b & 1);
        if (range && len > big) {
            qs_seg t = {start, len, ybuf | (QS_TASK_PART << 1)};
            if (mode == QS_MODE_QUEUE)
                qs_push(out.q, t);
            else
                qs_append(out.next, &ctr->nnext, out.next_cap, ctr, t);
        } else if (mode == QS_MODE_THREAD && range && len >= 2) {
            qs_append(out.tl, &ctr->nthread, out.tl_cap, ctr, qs_seg{start, len, ybuf});
        } else if (ybuf && len > 0 && (mode == QS_MODE_THREAD || len > cutoff)) {
            for (unsigned c0 = 0; c0 < len; c0 += SP_QSORT_COPY_CHUNK) {
                qs_seg t = {start + c0, min(len - c0, (unsigned)SP_QSORT_COPY_CHUNK),
                            ybuf | (QS_TASK_COPY << 1)};
                if (mode == QS_MODE_QUEUE)
                    qs_push(out.q, t);
                else
                    qs_append(out.leaf, &ctr->nleaf, out.leaf_cap, ctr, t);
            }
        }
    }
    if (mode == QS_MODE_THREAD)
        return;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned r = 0, open = 0;
        for (unsigned b = 0; b < nb; b++) {
            unsigned len = blen[b];
            bool range = !(b & 1), sort = range && len >= 2;
            if (len == 0)
                continue;
            bool joins = len <= cutoff && (sort || ybuf);
            if (!joins) {
                open = 0;
                continue;
            }
            if (open && rl[r - 1] + len <= cutoff) {
                rl[r - 1] += len;
                rsort[r - 1] |= sort;
            } else {
                rs[r] = bpos[b];
                rl[r] = len;
                rsort[r] = sort;
                r++;
                open = 1;
            }
        }
        nruns = r;
        if (mode != QS_MODE_QUEUE)
            base = atomicAdd(&ctr->nleaf, r);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < nruns; i += blockDim.x) {
        qs_seg t = {g.start + rs[i], rl[i], ybuf | ((rsort[i] ? QS_TASK_SORT : QS_TASK_COPY) << 1)};
        if (mode == QS_MODE_QUEUE)
            qs_push(out.q, t);
        else if (base + i < out.leaf_cap)
            out.leaf[base + i] = t;
        else
            atomicOr(&ctr->overflow, 1u);
    }
}

/* One block per task: block-local sort into the caller's arrays, or copy. */
template <int ITEMS, bool VALS>
__global__ void __launch_bounds__(QS_LEAF_THREADS(ITEMS)) qs_k_leaf(const qs_seg *tasks, unsigned *A, unsigned *AV, unsigned *B,
                          unsigned *BV)
{
    extern __shared__ __align__(16) unsigned char smem[];
    qs_seg t = tasks[blockIdx.x];
    const unsigned *X = t.info & 1 ? B : A, *XV = t.info & 1 ? BV : AV;
    if ((t.info >> 1) == QS_TASK_COPY)
        qs_copy_range(X, XV, A, VALS ? AV : NULL, t.start, t.len);
    else
        qs_leaf_sort<ITEMS, VALS>(X, XV, A, AV, t.start, t.len, smem);
}

int qs_ctx_init(qs_ctx *c, sp_qsort_design d, uint32_t *keys, uint32_t *vals, int64_t n,
                void *ws, const sp_qsort_opts *o, cudaStream_t st, sp_err *err)
{
    memset(c, 0, sizeof *c);
    if (sp_qsort_plan(d, n, vals != NULL, o, &c->L, err))
        return -1;
    if (n > 1 && (!keys || !ws))
        return sp_fail(err, "qsort_%s: %s is NULL", sp_qsort_design_name(d),
                       !keys ? "keys" : "workspace");
    char *w = (char *)ws;
    c->design = d;
    c->o = *o;
    c->n = n;
    c->st = st;
    c->buf[0] = keys;
    c->vbuf[0] = vals;
    c->buf[1] = (unsigned *)(w + c->L.tmp_keys);
    c->vbuf[1] = vals ? (unsigned *)(w + c->L.tmp_vals) : NULL;
    c->segs[0] = (qs_seg *)(w + c->L.segs[0]);
    c->segs[1] = (qs_seg *)(w + c->L.segs[1]);
    c->info = (qs_info *)(w + c->L.info);
    c->spl = (unsigned *)(w + c->L.splitters);
    c->cnt = (unsigned *)(w + c->L.cnt);
    c->part = (unsigned *)(w + c->L.part);
    c->leaf = (qs_seg *)(w + c->L.leaf);
    c->ctr = (qs_ctr *)(w + c->L.ctr);
    c->tl[0] = (qs_seg *)(w + c->L.tl[0]);
    c->tl[1] = (qs_seg *)(w + c->L.tl[1]);
    c->q = qs_queue{(qs_slot *)(w + c->L.queue), (unsigned long long)c->L.queue_cap, c->ctr};
    /* the thread design's task list holds copies only */
    c->items = d == SP_QSORT_THREAD ? 1 : sp_qsort_leaf_items(o->blocksize, o->cutoff);
    return 0;
}

/* The only host synchronisation inside a launch (qsort_level.cuh says why). */
int qs_read_ctr(qs_ctx *c, qs_ctr *h, sp_err *err)
{
    SP_CUDA(cudaMemcpyAsync(h, c->ctr, sizeof *h, cudaMemcpyDeviceToHost, c->st), err);
    SP_CUDA(cudaStreamSynchronize(c->st), err);
    if (h->overflow)
        return sp_fail(err, "qsort_%s: a task list outgrew its workspace bound (a bug)",
                       sp_qsort_design_name(c->design));
    return 0;
}

qs_prof *qs_profile = NULL;

/* Off (returns at once) unless bench/qsort_gpu.cu set qs_profile. */
void qs_phase(cudaStream_t st, int phase)
{
    if (!qs_profile)
        return;
    cudaEvent_t e;
    if (cudaEventCreate(&e) != cudaSuccess)
        return;
    cudaEventRecord(e, st);
    cudaEventSynchronize(e);
    if (qs_profile->started) {
        float ms = 0;
        cudaEventElapsedTime(&ms, qs_profile->last, e);
        if (phase >= 0)
            qs_profile->ms[phase] += ms;
        cudaEventDestroy(qs_profile->last);
    }
    qs_profile->last = e;
    qs_profile->started = 1;
}

int qs_reset(qs_ctx *c, sp_err *err)
{
    SP_CUDA(cudaMemsetAsync(c->ctr, 0, sizeof(qs_ctr), c->st), err);
    return 0;
}

int qs_reset_level(qs_ctx *c, sp_err *err)
{
    SP_CUDA(cudaMemsetAsync(&c->ctr->nnext, 0, 2 * sizeof(unsigned), c->st), err);
    return 0;
}

int qs_first_seg(qs_ctx *c, sp_err *err)
{
    qs_k_first<<<1, 1, 0, c->st>>>(c->segs[0], (unsigned long long)c->n);
    SP_CUDA(cudaGetLastError(), err);
    return 0;
}

/* The scatter kernel of a level, with its shared memory. */
template <bool VALS, bool REGS>
static int qs_scatter_launch(qs_ctx *c, const qs_seg *segs, unsigned nsegs, int xb,
                             unsigned long long tiles_max, sp_err *err)
{
    const int W = c->o.window, yb = xb ^ 1;
    size_t smem = REGS ? sp_qsort_smem_scatter_regs(W) : sp_qsort_smem_scatter(W);
    SP_CUDA(cudaFuncSetAttribute(qs_k_scatter<VALS, REGS>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
            err);
    qs_k_scatter<VALS, REGS><<<(unsigned)tiles_max, c->o.blocksize, smem, c->st>>>(
        segs, nsegs, c->info, c->spl, c->buf[xb], VALS ? c->vbuf[xb] : NULL, c->buf[yb],
        VALS ? c->vbuf[yb] : NULL, (unsigned long long)c->L.tile, (unsigned)W, c->ctr, c->cnt);
    SP_CUDA(cudaGetLastError(), err);
    return 0;
}

int qs_level(qs_ctx *c, int level, int cur, unsigned nsegs, qs_mode mode, sp_err *err)
{
    int rc;
    const int bs = c->o.blocksize, W = c->o.window, vals = c->vbuf[0] != NULL;
    const int xb = level & 1, yb = xb ^ 1;
    const unsigned long long tile = (unsigned long long)c->L.tile;
    unsigned long long tiles_max = (unsigned long long)c->n / tile + nsegs + 1;
    unsigned long long chunks = (SP_QSORT_BUCKETS * tiles_max + QS_SCAN_CHUNK - 1) / QS_SCAN_CHUNK;
    if (chunks > (unsigned long long)c->L.part_cap)
        chunks = (unsigned long long)c->L.part_cap;
    qs_seg *segs = c->segs[cur];
    cudaStream_t st = c->st;
    if (nsegs > (unsigned long long)c->L.seg_cap)
        return sp_fail(err, "qsort: %u subproblems over the bound %lld (a bug)", nsegs,
                       (long long)c->L.seg_cap);
    qs_k_sample<<<nsegs, bs, 0, st>>>(segs, c->buf[xb], (unsigned long long)c->L.target,
                                      (unsigned)level, c->spl, c->info);
    SP_CUDA(cudaGetLastError(), err);
    qs_k_plan<<<1, 1024, 0, st>>>(segs, nsegs, c->info, tile, (unsigned long long)c->L.cnt_cap,
                                  c->ctr);
    SP_CUDA(cudaGetLastError(), err);
    qs_phase(st, QS_PH_SAMPLE);
    qs_k_count<<<(unsigned)tiles_max, bs, 0, st>>>(segs, nsegs, c->info, c->spl, c->buf[xb],
                                                   tile, c->ctr, c->cnt);
    SP_CUDA(cudaGetLastError(), err);
    qs_phase(st, QS_PH_COUNT);
    qs_k_scan_reduce<<<(unsigned)chunks, QS_SCAN_THREADS, 0, st>>>(c->cnt, c->ctr, c->part);
    SP_CUDA(cudaGetLastError(), err);
    qs_k_scan_top<<<1, 1024, 0, st>>>(c->part, c->ctr);
    SP_CUDA(cudaGetLastError(), err);
    qs_k_scan_down<<<(unsigned)chunks, QS_SCAN_THREADS, 0, st>>>(c->cnt, c->ctr, c->part);
    SP_CUDA(cudaGetLastError(), err);
    qs_phase(st, QS_PH_SCAN);
    /* keys only: with values, the window in registers measured slower
     * than staged (2^28 uniform pairs: scatter 12.28 against 11.66 ms; it
     * spills at three blocks per SM), keys faster (bench/RESULTS.md) */
    const bool regs = !vals && W == QS_SCATTER_ITEMS * bs && bs <= 512;
    if (regs)
        rc = qs_scatter_launch<false, true>(c, segs, nsegs, xb, tiles_max, err);
    else if (vals)
        rc = qs_scatter_launch<true, false>(c, segs, nsegs, xb, tiles_max, err);
    else
        rc = qs_scatter_launch<false, false>(c, segs, nsegs, xb, tiles_max, err);
    if (rc)
        return -1;
    SP_CUDA(cudaGetLastError(), err);
    qs_phase(st, QS_PH_SCATTER);
    qs_out out = {c->segs[cur ^ 1], c->leaf, c->tl[0],
                  (unsigned long long)c->L.seg_cap, (unsigned long long)c->L.leaf_cap,
                  (unsigned long long)c->L.tl_cap, c->q};
    unsigned long long big = c->o.cutoff;
    qs_k_children<<<nsegs, bs, 0, st>>>(segs, c->info, c->cnt, (unsigned)yb, big,
                                        (unsigned)c->o.cutoff, (int)mode, out, c->ctr);
    SP_CUDA(cudaGetLastError(), err);
    qs_phase(st, QS_PH_CHILDREN);
    return 0;
}

/* Launch the task kernel with ITEMS keys per thread. */
template <int ITEMS>
static int qs_leaves_at(qs_ctx *c, const qs_seg *tasks, unsigned ntasks, sp_err *err)
{
    size_t smem = sp_qsort_smem_leaf(c->o.blocksize, ITEMS * c->o.blocksize);
    if (c->vbuf[0]) {
        SP_CUDA(cudaFuncSetAttribute(qs_k_leaf<ITEMS, true>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
                err);
        qs_k_leaf<ITEMS, true><<<ntasks, c->o.blocksize, smem, c->st>>>(
            tasks, c->buf[0], c->vbuf[0], c->buf[1], c->vbuf[1]);
    } else {
        SP_CUDA(cudaFuncSetAttribute(qs_k_leaf<ITEMS, false>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
                err);
        qs_k_leaf<ITEMS, false><<<ntasks, c->o.blocksize, smem, c->st>>>(
            tasks, c->buf[0], NULL, c->buf[1], NULL);
    }
    SP_CUDA(cudaGetLastError(), err);
    return 0;
}

static int qs_tasks(qs_ctx *c, const qs_seg *tasks, unsigned ntasks, sp_err *err)
{
    if (ntasks == 0)
        return 0;
    switch (c->items) {
    case 1: return qs_leaves_at<1>(c, tasks, ntasks, err);
    case 2: return qs_leaves_at<2>(c, tasks, ntasks, err);
    case 4: return qs_leaves_at<4>(c, tasks, ntasks, err);
    case 8: return qs_leaves_at<8>(c, tasks, ntasks, err);
    case 16: return qs_leaves_at<16>(c, tasks, ntasks, err);
    }
    return sp_fail(err, "qsort: %d keys per thread (a bug)", c->items);
}

int qs_leaves(qs_ctx *c, unsigned nleaf, sp_err *err)
{
    if (nleaf > (unsigned long long)c->L.leaf_cap)
        return sp_fail(err, "qsort: %u tasks over the bound %lld (a bug)", nleaf,
                       (long long)c->L.leaf_cap);
    int rc = qs_tasks(c, c->leaf, nleaf, err);
    qs_phase(c->st, QS_PH_LEAVES);
    return rc;
}

__global__ void qs_k_one_task(qs_seg *t, unsigned long long n)
{
    *t = qs_seg{0, (unsigned)n, 0 | (QS_TASK_SORT << 1)};
}

int qs_small(qs_ctx *c, sp_err *err)
{
    qs_k_one_task<<<1, 1, 0, c->st>>>(c->leaf, (unsigned long long)c->n);
    SP_CUDA(cudaGetLastError(), err);
    return qs_tasks(c, c->leaf, 1, err);
}
