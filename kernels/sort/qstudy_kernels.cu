/*
 * qstudy_kernels.cu — the kernels of study 004's quicksort variants
 * (qstudy.h), each a step the seed describes, and their launchers
 * (qstudy_dev.cuh). Which variant launches which, level by level, is the
 * driver's business (qstudy_driver.cu).
 */
#include "qstudy_dev.cuh"

static unsigned grid_of(int64_t items, int bs)
{
    return (unsigned)((items + bs - 1) / bs);
}

/* 1: each thread partitions its subproblem alone, in place (Lomuto around
 * the last key), and writes its children. */
__global__ void qst_lomuto_thread(qst_arrays A)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= A.nsub)
        return;
    int32_t s = A.delims[t].x, e = A.delims[t].y;
    uint32_t pivot = A.keys[e];
    int64_t i = s;
    for (int64_t j = s; j <= e; j++)    /* the pivot itself last: it lands at i */
        if (A.keys[j] <= pivot)
            qst_swap(A.keys, A.vals, i++, j);
    qst_write_children(A.app, t, s, e, (int32_t)(i - 1));
}

/* A work-item's key and subproblem: through the Map, or (no Map) the
 * work-item is the key and looks its subproblem up; -1: idle. */
__device__ __forceinline__ int32_t qst_work_item(const qst_arrays &A, int64_t g, int map,
                                                 int64_t *idx)
{
    if (map) {
        *idx = A.map_idx[g];
        return A.map_sub[g];
    }
    *idx = g;
    return qst_find_sub(A.delims, A.nsub, g);
}

/* 2-4, 9, first kernel: every key but the pivot into Smaller or Greater at
 * its own index. */
__global__ void qst_split(qst_arrays A, int64_t gws, int map)
{
    int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, idx;
    if (g >= gws)
        return;
    int32_t sub = qst_work_item(A, g, map, &idx);
    if (sub < 0)
        return;
    int32_t e = A.delims[sub].y;
    if (idx == e)
        return;
    qst_split_one(A.keys[idx], A.vals ? A.vals[idx] : 0, A.keys[e], idx, A.sm_key, A.sm_val,
                  A.sm_flag, A.gr_key, A.gr_val, A.gr_flag);
}

/* 2-4, second kernel: a thread per subproblem compacts it serially. */
__global__ void qst_compact_serial_k(qst_arrays A)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= A.nsub)
        return;
    int32_t s = A.delims[t].x, e = A.delims[t].y;
    uint32_t pk = A.keys[e], pv = A.vals ? A.vals[e] : 0;
    int32_t p = qst_compact_serial(A.keys + s, A.vals ? A.vals + s : NULL, e - s + 1, pk, pv,
                                   A.sm_key + s, A.sm_val ? A.sm_val + s : NULL, A.sm_flag + s,
                                   A.gr_key + s, A.gr_val ? A.gr_val + s : NULL, A.gr_flag + s);
    qst_write_children(A.app, t, s, e, s + p);
}

/* 9: one side (Smaller or Greater, slots [s, e)) written over keys from
 * *at on, window by window: Cache marks the holes, each thread scans them
 * up to itself, a key that is no hole goes to at + its slot - the holes
 * before it, and at moves by the keys written. */
__device__ void qst_compact_side(qst_arrays &A, int32_t s, int32_t e, const uint32_t *k,
                                 const uint32_t *v, const uint8_t *f, int *cache, int *scan,
                                 int32_t *at)
{
    int W = blockDim.x, t = threadIdx.x;
    for (int64_t base = s; base < e; base += W) {
        int64_t i = base + t;
        int hole = i < e ? !f[i] : 1;
        cache[t] = hole;
        __syncthreads();
        scan[t] = qst_own_scan(cache, t);
        __syncthreads();
        if (!hole) {
            int64_t to = *at + t - scan[t];
            A.keys[to] = k[i];
            if (A.vals)
                A.vals[to] = v[i];
        }
        *at += W - scan[W - 1];
        __syncthreads();        /* before the next window rewrites cache and scan */
    }
}

/* 9, second kernel: a block per subproblem compacts Smaller, places the
 * pivot, compacts Greater; thread 0 writes the children. */
__global__ void qst_compact_window_k(qst_arrays A)
{
    extern __shared__ int qst_smem[];
    int *cache = qst_smem, *scan = qst_smem + blockDim.x;
    int64_t b = blockIdx.x;
    int32_t s = A.delims[b].x, e = A.delims[b].y;
    uint32_t pk = A.keys[e], pv = A.vals ? A.vals[e] : 0;
    __syncthreads();            /* everyone has the pivot before keys[e] is written */
    int32_t at = s;
    qst_compact_side(A, s, e, A.sm_key, A.sm_val, A.sm_flag, cache, scan, &at);
    int32_t p = at++;
    if (threadIdx.x == 0) {
        A.keys[p] = pk;
        if (A.vals)
            A.vals[p] = pv;
    }
    qst_compact_side(A, s, e, A.gr_key, A.gr_val, A.gr_flag, cache, scan, &at);
    if (threadIdx.x == 0)
        qst_write_children(A.app, b, s, e, p);
}

/* 3, 4 (base, R1, R2) once every subproblem fits a block: both steps in one
 * kernel, a block per subproblem, `items` consecutive keys a thread; the
 * split into global Smaller/Greater, or into shared memory (R2); then
 * thread 0 compacts serially and writes the children. */
__global__ void qst_block_split_k(qst_arrays A, int items, int shared)
{
    extern __shared__ uint32_t qst_words[];
    int64_t b = blockIdx.x;
    int32_t s = A.delims[b].x, e = A.delims[b].y, len = e - s + 1, cap = blockDim.x * items;
    uint32_t pk = A.keys[e], pv = A.vals ? A.vals[e] : 0;
    uint32_t *sk, *sv, *gk, *gv;
    uint8_t *sf, *gf;
    if (shared) {               /* cap slots each: keys, values, then the flags */
        sk = qst_words, gk = sk + cap;
        sv = A.vals ? gk + cap : NULL;
        gv = A.vals ? sv + cap : NULL;
        sf = (uint8_t *)(gk + (A.vals ? 3 : 1) * cap), gf = sf + cap;
    } else {
        sk = A.sm_key + s, gk = A.gr_key + s, sf = A.sm_flag + s, gf = A.gr_flag + s;
        sv = A.sm_val ? A.sm_val + s : NULL, gv = A.gr_val ? A.gr_val + s : NULL;
    }
    for (int k = 0; k < items; k++) {
        int32_t j = threadIdx.x * items + k;
        if (j < len - 1)
            qst_split_one(A.keys[s + j], A.vals ? A.vals[s + j] : 0, pk, j, sk, sv, sf, gk, gv,
                          gf);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int32_t p = qst_compact_serial(A.keys + s, A.vals ? A.vals + s : NULL, len, pk, pv, sk,
                                       sv, sf, gk, gv, gf);
        qst_write_children(A.app, b, s, e, s + p);
    }
}

/* 5-7, wide phase: each key's place by counting, written out of place. */
__global__ void qst_count_k(qst_arrays A, int64_t gws, int map)
{
    int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, idx;
    if (g >= gws)
        return;
    int32_t sub = qst_work_item(A, g, map, &idx);
    if (sub < 0)
        return;
    int32_t s = A.delims[sub].x, e = A.delims[sub].y;
    int32_t to = s + qst_count_place(A.keys + s, e - s + 1, (int32_t)(idx - s));
    A.tmp_key[to] = A.keys[idx];
    if (A.vals)
        A.tmp_val[to] = A.vals[idx];
    if (idx == e)
        A.pivots[sub] = to;
}

/* 5, 6, second kernel: the children from the pivots' places. */
__global__ void qst_children_k(qst_arrays A)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < A.nsub)
        qst_write_children(A.app, t, A.delims[t].x, A.delims[t].y, A.pivots[t]);
}

/* 5-7 once every subproblem fits a block: a block per subproblem, a thread
 * per key counting in global memory or (5 R1) in a shared copy; the
 * pivot's thread records its place, thread 0 the children (not for 7,
 * whose host makes them). */
__global__ void qst_block_count_k(qst_arrays A, int shared, int host_update)
{
    extern __shared__ uint32_t qst_words[];
    __shared__ int32_t pivot_at;
    int64_t b = blockIdx.x;
    int32_t s = A.delims[b].x, e = A.delims[b].y, len = e - s + 1, j = threadIdx.x;
    const uint32_t *src = A.keys + s;
    if (shared) {
        if (j < len)
            qst_words[j] = A.keys[s + j];
        __syncthreads();
        src = qst_words;
    }
    if (j < len) {
        int32_t to = s + qst_count_place(src, len, j);
        A.tmp_key[to] = src[j];
        if (A.vals)
            A.tmp_val[to] = A.vals[s + j];
        if (j == len - 1)
            A.pivots[b] = pivot_at = to;
    }
    __syncthreads();
    if (j == 0 && !host_update)
        qst_write_children(A.app, b, s, e, pivot_at);
}

/* 8: a block of W threads slides over its subproblem. Per window: Cache
 * flags the keys <= pivot, each thread scans the flags up to itself, and
 * thread 0 alone swaps each flagged key to s + ex + its scan - 1 in order
 * (in parallel two swaps could hit one slot: the seed's reason for serial
 * writes); ex (Ex_Index) then grows by the window's count. The pivot is
 * flagged too and, last, lands at s + ex - 1: a Lomuto partition. */
__global__ void qst_window_lomuto_k(qst_arrays A)
{
    extern __shared__ int qst_smem[];
    int W = blockDim.x, t = threadIdx.x;
    int *cache = qst_smem, *scan = qst_smem + W;
    int64_t b = blockIdx.x;
    int32_t s = A.delims[b].x, e = A.delims[b].y;
    uint32_t pivot = A.keys[e];
    int64_t ex = 0;             /* thread 0's Ex_Index */
    for (int64_t base = s; base <= e; base += W) {
        int64_t i = base + t;
        cache[t] = i <= e && A.keys[i] <= pivot;
        __syncthreads();
        scan[t] = qst_own_scan(cache, t);
        __syncthreads();
        if (t == 0) {
            int64_t cnt = e - base + 1 < W ? e - base + 1 : W;
            for (int64_t j = 0; j < cnt; j++)
                if (cache[j])
                    qst_swap(A.keys, A.vals, s + ex + scan[j] - 1, base + j);
            ex += scan[W - 1];
        }
        __syncthreads();        /* the swaps done before the next window is read */
    }
    if (t == 0)
        qst_write_children(A.app, b, s, e, (int32_t)(s + ex - 1));
}

/* ---- launchers -------------------------------------------------------- */

void qst_launch_lomuto_thread(const qst_arrays &A, int bs, cudaStream_t s)
{
    qst_lomuto_thread<<<grid_of(A.nsub, bs), bs, 0, s>>>(A);
}

void qst_launch_split(const qst_arrays &A, int64_t gws, int map, int bs, cudaStream_t s)
{
    qst_split<<<grid_of(gws, bs), bs, 0, s>>>(A, gws, map);
}

void qst_launch_compact_serial(const qst_arrays &A, int bs, cudaStream_t s)
{
    qst_compact_serial_k<<<grid_of(A.nsub, bs), bs, 0, s>>>(A);
}

void qst_launch_compact_window(const qst_arrays &A, int window, cudaStream_t s)
{
    qst_compact_window_k<<<(unsigned)A.nsub, window, 2 * window * sizeof(int), s>>>(A);
}

/* Threads a block: enough for `longest` keys at `items` a thread, in warps. */
static int block_threads(int64_t longest, int items)
{
    int64_t t = (longest + items - 1) / items;
    return (int)((t + 31) / 32 * 32);
}

void qst_launch_block_split(const qst_arrays &A, int64_t longest, int items, int shared,
                            cudaStream_t s)
{
    int threads = block_threads(longest, items);
    size_t cap = (size_t)threads * items;
    size_t smem = shared ? cap * (A.vals ? 16 : 8) + cap * 2 : 0;
    qst_block_split_k<<<(unsigned)A.nsub, threads, smem, s>>>(A, items, shared);
}

void qst_launch_count(const qst_arrays &A, int64_t gws, int map, int bs, cudaStream_t s)
{
    qst_count_k<<<grid_of(gws, bs), bs, 0, s>>>(A, gws, map);
}

void qst_launch_children(const qst_arrays &A, int bs, cudaStream_t s)
{
    qst_children_k<<<grid_of(A.nsub, bs), bs, 0, s>>>(A);
}

void qst_launch_block_count(const qst_arrays &A, int64_t longest, int shared, int host_update,
                            cudaStream_t s)
{
    int threads = block_threads(longest, 1);
    size_t smem = shared ? (size_t)threads * 4 : 0;
    qst_block_count_k<<<(unsigned)A.nsub, threads, smem, s>>>(A, shared, host_update);
}

void qst_launch_window_lomuto(const qst_arrays &A, int window, cudaStream_t s)
{
    qst_window_lomuto_k<<<(unsigned)A.nsub, window, 2 * window * sizeof(int), s>>>(A);
}
