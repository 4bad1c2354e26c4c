/*
 * qsort_queue.cu — GPU quicksort without host round trips. The first wide
 * pass over [0, n) runs as in the block design, its launch sizes known from
 * n alone; its buckets go to a device-side work queue (Vyukov's bounded
 * queue, qs_push), which one persistent grid (as many blocks as fit at
 * once) serves until nothing is pending. A block takes a task and either
 * sorts it in shared memory, copies it home, or partitions it alone (its
 * own sample, histogram and window-by-window scatter), then finishes the
 * short buckets itself and pushes the long ones. The host launches a fixed
 * sequence of kernels and reads nothing back.
 *
 * Capacity: tasks waiting in the queue are disjoint (a task is taken
 * before its children exist), and after the first pass only buckets longer
 * than `cutoff` are pushed, so n / (cutoff + 1) slots plus the first
 * pass's tasks suffice (sp_qsort_plan).
 */
#include "qsort_level.cuh"

/* Take the next task (thread 0); 0 when nothing is pending any more. */
__device__ int qs_pop(qs_queue q, qs_seg *task)
{
    unsigned long long tk = atomicAdd(&q.ctr->q_head, 1ull);
    qs_slot *s = &q.slot[tk % q.cap];
    for (;;) {
        if (*(volatile unsigned long long *)&s->seq == tk + 1) {
            __threadfence();
            volatile qs_seg *vt = &s->task;
            task->start = vt->start;
            task->len = vt->len;
            task->info = vt->info;
            __threadfence();
            *(volatile unsigned long long *)&s->seq = tk + q.cap;
            return 1;
        }
        if (*(volatile unsigned long long *)&q.ctr->q_pending == 0)
            return 0;
        __nanosleep(128);
    }
}

/* Partition task t alone, then finish its short buckets and push the
 * long ones. smem: splitters, offsets, histogram, then the region. */
template <int ITEMS, bool VALS>
__device__ void qs_block_partition(qs_queue q, qs_seg t, unsigned **k, unsigned **v,
                                   unsigned cutoff, unsigned W, unsigned char *smem)
{
    unsigned *sp = (unsigned *)smem;
    unsigned long long *off = (unsigned long long *)(smem + 1024);
    unsigned *hist = (unsigned *)(smem + 1024 + 4096);
    unsigned char *region = smem + 1024 + 4096 + 2048;
    __shared__ unsigned nsp;
    unsigned xb = t.info & 1, yb = xb ^ 1;
    const unsigned *X = k[xb], *XV = v[xb];
    unsigned *Y = k[yb], *YV = v[yb];
    unsigned seed = qs_hash((unsigned)t.start ^ qs_hash(t.len + 7919u));
    unsigned m = qs_splitters(X, t.start, t.len, cutoff, seed, (unsigned *)region, sp, &nsp);
    unsigned nb = 2 * m + 1;
    __shared__ unsigned short tab[QS_LUT_CELLS + 1];
    qs_lut L = qs_lut_make(sp, m, tab);
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x)
        hist[b] = 0;
    __syncthreads();
    qs_count_range(X, t.start, t.start + t.len, L, hist);
    __syncthreads();
    qs_scan_small(hist, (unsigned *)region, nb);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x)
        off[b] = t.start + ((unsigned *)region)[b];
    __syncthreads();
    qs_scatter_range<VALS>(X, XV, Y, YV, t.start, t.start + t.len, L, off,
                           qs_window_at(region, W), W);
    /* off[b] is now the end of bucket b. Every thread fences its writes
     * to Y before a child that reads them is published to other blocks. */
    __threadfence();
    __syncthreads();
    /* then, as qs_k_children: long range buckets pushed, long equal ones
     * copied home, runs of adjacent short ones sorted (or copied) as one */
    unsigned long long rs = 0;
    unsigned rl = 0;
    bool open = false, rsort = false;
    for (unsigned b = 0; b <= nb; b++) {
        unsigned len = b < nb ? hist[b] : 0;
        unsigned long long start = b < nb ? off[b] - len : 0;
        bool range = !(b & 1), sort = range && len >= 2;
        bool joins = b < nb && len > 0 && len <= cutoff && (sort || yb);
        if (b < nb && len == 0)
            continue;
        if (open && (!joins || rl + len > cutoff)) {
            if (rsort)
                qs_leaf_sort<ITEMS, VALS>(Y, YV, k[0], v[0], rs, rl, region);
            else
                qs_copy_range(Y, YV, k[0], v[0], rs, rl);
            open = false;
        }
        if (b == nb)
            break;
        if (joins) {
            if (open) {
                rl += len;
                rsort |= sort;
            } else {
                rs = start;
                rl = len;
                rsort = sort;
                open = true;
            }
        } else if (range && len > cutoff) {
            if (threadIdx.x == 0)
                qs_push(q, qs_seg{start, len, yb | (QS_TASK_PART << 1)});
        } else if (yb) {
            qs_copy_range(Y, YV, k[0], v[0], start, len);
        }
    }
}

template <int ITEMS, bool VALS>
__global__ void __launch_bounds__(QS_LEAF_THREADS(ITEMS)) qs_k_queue(qs_queue q, unsigned *A, unsigned *AV, unsigned *B, unsigned *BV,
                           unsigned cutoff, unsigned W)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ qs_seg task;
    __shared__ int got;
    unsigned *k[2] = {A, B}, *v[2] = {AV, BV};
    for (;;) {
        if (threadIdx.x == 0)
            got = qs_pop(q, &task);
        __syncthreads();
        if (!got)
            return;
        qs_seg t = task;
        unsigned xb = t.info & 1, kind = t.info >> 1;
        if (kind == QS_TASK_COPY)
            qs_copy_range(k[xb], v[xb], A, AV, t.start, t.len);
        else if (kind == QS_TASK_SORT)
            qs_leaf_sort<ITEMS, VALS>(k[xb], v[xb], A, AV, t.start, t.len,
                                      smem + 1024 + 4096 + 2048);
        else
            qs_block_partition<ITEMS, VALS>(q, t, k, v, cutoff, W, smem);
        /* children pushed and data written before the task counts as done */
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0)
            atomicAdd(&q.ctr->q_pending, ~0ull);
    }
}

__global__ void qs_k_queue_init(qs_slot *slot, unsigned long long cap)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         i < cap; i += (unsigned long long)gridDim.x * blockDim.x)
        slot[i].seq = i;
}

/* The persistent grid: as many blocks as can be resident at once. */
template <int ITEMS, bool VALS>
static int qs_serve(qs_ctx *c, sp_err *err)
{
    auto kern = qs_k_queue<ITEMS, VALS>;
    int bs = c->o.blocksize, dev, sms, per_sm = 0;
    size_t smem = sp_qsort_smem_queue(bs, c->o.window, c->o.cutoff);
    SP_CUDA(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
            err);
    SP_CUDA(cudaGetDevice(&dev), err);
    SP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err);
    SP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, bs, smem), err);
    if (per_sm < 1)
        return sp_fail(err, "qsort_queue: blocksize = %d with %zu bytes of shared memory fits "
                            "no block on this device", bs, smem);
    kern<<<sms * per_sm, bs, smem, c->st>>>(c->q, c->buf[0], c->vbuf[0], c->buf[1], c->vbuf[1],
                                            (unsigned)c->o.cutoff, (unsigned)c->o.window);
    SP_CUDA(cudaGetLastError(), err);
    qs_phase(c->st, QS_PH_QUEUE);
    return 0;
}

template <bool VALS>
static int qs_serve_items(qs_ctx *c, sp_err *err)
{
    switch (c->items) {
    case 1: return qs_serve<1, VALS>(c, err);
    case 2: return qs_serve<2, VALS>(c, err);
    case 4: return qs_serve<4, VALS>(c, err);
    case 8: return qs_serve<8, VALS>(c, err);
    case 16: return qs_serve<16, VALS>(c, err);
    }
    return sp_fail(err, "qsort_queue: %d keys per thread (a bug)", c->items);
}

extern "C" int sp_qsort_queue(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                              const sp_qsort_opts *o, cudaStream_t stream, sp_err *err)
{
    qs_ctx c;
    if (qs_ctx_init(&c, SP_QSORT_QUEUE, keys, vals, n, workspace, o, stream, err))
        return -1;
    if (n < 2)
        return 0;
    if (n <= o->cutoff)
        return qs_small(&c, err);
    if (qs_reset(&c, err))
        return -1;
    qs_k_queue_init<<<256, 256, 0, stream>>>(c.q.slot, c.q.cap);
    SP_CUDA(cudaGetLastError(), err);
    if (qs_first_seg(&c, err) || qs_level(&c, 0, 0, 1, QS_MODE_QUEUE, err))
        return -1;
    return vals ? qs_serve_items<true>(&c, err) : qs_serve_items<false>(&c, err);
}
