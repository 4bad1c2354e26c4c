/*
 * qsort_thread.cu — GPU quicksort, one thread per subproblem, levels
 * launched from the host. At each level every thread takes one subproblem,
 * picks the median of three keys at hashed positions, partitions it three
 * ways (<, =, > pivot) into the other buffer in two sequential sweeps
 * (count, then write), copies the equal keys home, and hands both sides to
 * the next level; sides up to 16 keys it finishes itself by insertion
 * sort, and a subproblem deeper than SP_QSORT_THREAD_DEPTH is heap-sorted,
 * so no input goes quadratic.
 *
 * One thread cannot stream a large subproblem fast: at about 20 ns a key,
 * a lone thread would spend seconds on the first level of 2^28 keys, and
 * a few thousand threads cannot keep the memory busy. So subproblems
 * longer than `cutoff` (default 4096) are first split by the wide passes
 * of qsort_level.cu (many blocks per subproblem), and the threads take
 * over from there (2^28 keys: about 10^5 threads).
 */
#include "qsort_level.cuh"

struct qs_bufs {
    unsigned *k[2], *v[2]; /* v[*] NULL: keys only */
};

/* Insertion sort of [s, s + len) of keys k (and values v). */
__device__ void qs_insertion(unsigned *k, unsigned *v, unsigned long long s, unsigned len)
{
    for (unsigned i = 1; i < len; i++) {
        unsigned x = k[s + i], xv = v ? v[s + i] : 0, j = i;
        while (j > 0 && k[s + j - 1] > x) {
            k[s + j] = k[s + j - 1];
            if (v)
                v[s + j] = v[s + j - 1];
            j--;
        }
        k[s + j] = x;
        if (v)
            v[s + j] = xv;
    }
}

__device__ void qs_sift(unsigned *k, unsigned *v, unsigned long long s, unsigned root,
                        unsigned len)
{
    for (;;) {
        unsigned c = 2 * root + 1;
        if (c >= len)
            return;
        if (c + 1 < len && k[s + c + 1] > k[s + c])
            c++;
        if (k[s + root] >= k[s + c])
            return;
        unsigned t = k[s + root];
        k[s + root] = k[s + c];
        k[s + c] = t;
        if (v) {
            t = v[s + root];
            v[s + root] = v[s + c];
            v[s + c] = t;
        }
        root = c;
    }
}

/* Heap sort of [s, s + len): the depth limit's O(n log n) guarantee. */
__device__ void qs_heapsort(unsigned *k, unsigned *v, unsigned long long s, unsigned len)
{
    for (unsigned i = len / 2; i-- > 0;)
        qs_sift(k, v, s, i, len);
    for (unsigned e = len; e-- > 1;) {
        unsigned t = k[s];
        k[s] = k[s + e];
        k[s + e] = t;
        if (v) {
            t = v[s];
            v[s] = v[s + e];
            v[s + e] = t;
        }
        qs_sift(k, v, s, 0, e);
    }
}

/* Copy [s, s + len) of buffer xb home (buffer 0) unless it is there. */
__device__ void qs_home(const qs_bufs &b, unsigned xb, unsigned long long s, unsigned len)
{
    if (xb == 0)
        return;
    for (unsigned i = 0; i < len; i++) {
        b.k[0][s + i] = b.k[1][s + i];
        if (b.v[0])
            b.v[0][s + i] = b.v[1][s + i];
    }
}

/* The median of a, b, c. */
__device__ __forceinline__ unsigned qs_med3(unsigned a, unsigned b, unsigned c)
{
    return max(min(a, b), min(max(a, b), c));
}

__global__ void __launch_bounds__(1024) qs_k_thread(const qs_seg *in, unsigned count, qs_seg *out, unsigned *nout,
                            unsigned long long cap, qs_bufs b, unsigned cutoff, qs_ctr *ctr)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    qs_seg g = in[i];
    unsigned xb = g.info & 1, yb = xb ^ 1, depth = g.info >> 1;
    unsigned long long s = g.start;
    unsigned len = g.len;
    unsigned *X = b.k[xb], *XV = b.v[xb], *Y = b.k[yb], *YV = b.v[yb];
    if (len <= cutoff) {
        qs_home(b, xb, s, len);
        qs_insertion(b.k[0], b.v[0], s, len);
        return;
    }
    if (depth >= SP_QSORT_THREAD_DEPTH) {
        qs_heapsort(X, XV, s, len);
        qs_home(b, xb, s, len);
        return;
    }
    unsigned h = qs_hash((unsigned)s ^ qs_hash(len + 131u * depth));
    unsigned p = qs_med3(X[s + h % len], X[s + qs_hash(h) % len], X[s + qs_hash(h + 1) % len]);
    unsigned lt = 0, eq = 0;
    for (unsigned j = 0; j < len; j++) {
        unsigned x = X[s + j];
        lt += x < p;
        eq += x == p;
    }
    unsigned a = 0, e = lt, gt = lt + eq;
    for (unsigned j = 0; j < len; j++) {
        unsigned x = X[s + j];
        unsigned d = x < p ? a++ : x == p ? e++ : gt++;
        Y[s + d] = x;
        if (YV)
            YV[s + d] = XV[s + j];
    }
    qs_home(b, yb, s + lt, eq); /* X is read through: safe to write home */
    unsigned long long cs[2] = {s, s + lt + eq};
    unsigned cl[2] = {lt, len - lt - eq};
    for (int c = 0; c < 2; c++) {
        if (cl[c] <= cutoff) {
            qs_home(b, yb, cs[c], cl[c]);
            qs_insertion(b.k[0], b.v[0], cs[c], cl[c]);
            continue;
        }
        unsigned k = atomicAdd(nout, 1u);
        if (k < cap)
            out[k] = qs_seg{cs[c], cl[c], yb | ((depth + 1) << 1)};
        else
            atomicOr(&ctr->overflow, 1u);
    }
}

__global__ void qs_k_put(qs_seg *list, qs_seg t, unsigned *count)
{
    list[0] = t;
    *count = 1;
}

extern "C" int sp_qsort_thread(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                               const sp_qsort_opts *o, cudaStream_t stream, sp_err *err)
{
    qs_ctx c;
    if (qs_ctx_init(&c, SP_QSORT_THREAD, keys, vals, n, workspace, o, stream, err))
        return -1;
    if (n < 2)
        return 0;
    if (qs_reset(&c, err))
        return -1;
    qs_ctr h;
    if (n > o->cutoff) {
        if (qs_first_seg(&c, err))
            return -1;
        unsigned nsegs = 1;
        for (int level = 0, cur = 0; nsegs > 0; level++, cur ^= 1) {
            if (level >= SP_QSORT_MAX_LEVELS)
                return sp_fail(err, "qsort_thread: %u subproblems left after %d levels", nsegs,
                               level);
            if (qs_reset_level(&c, err) || qs_level(&c, level, cur, nsegs, QS_MODE_THREAD, err))
                return -1;
            if (qs_read_ctr(&c, &h, err) || qs_leaves(&c, h.nleaf, err))
                return -1;
            nsegs = h.nnext;
        }
    } else {
        qs_k_put<<<1, 1, 0, stream>>>(c.tl[0], qs_seg{0, (unsigned)n, 0}, &c.ctr->nthread);
        SP_CUDA(cudaGetLastError(), err);
    }
    if (qs_read_ctr(&c, &h, err))
        return -1;
    qs_bufs b = {{c.buf[0], c.buf[1]}, {c.vbuf[0], c.vbuf[1]}};
    unsigned count = h.nthread, bs = (unsigned)o->blocksize;
    for (int level = 0, cur = 0; count > 0; level++, cur ^= 1) {
        if (level > SP_QSORT_THREAD_DEPTH + 1)
            return sp_fail(err, "qsort_thread: %u subproblems left after %d levels", count,
                           level);
        SP_CUDA(cudaMemsetAsync(&c.ctr->nthread_next, 0, sizeof(unsigned), stream), err);
        qs_k_thread<<<(count + bs - 1) / bs, bs, 0, stream>>>(
            c.tl[cur], count, c.tl[cur ^ 1], &c.ctr->nthread_next,
            (unsigned long long)c.L.tl_cap, b, SP_QSORT_THREAD_INSERTION, c.ctr);
        SP_CUDA(cudaGetLastError(), err);
        qs_phase(stream, QS_PH_THREAD);
        if (qs_read_ctr(&c, &h, err))
            return -1;
        count = h.nthread_next;
    }
    return 0;
}
