/*
 * prim_sort.cu — segmented sort and merge of 64-bit keys, at any block
 * size from 1 to 1024.
 *
 * segsort: one block per segment of `segment` keys (1..SP_PRIM_SEG_MAX) in
 * shared memory; each thread sorts its ceil(segment / blocksize) keys by
 * insertion, then runs are merged pairwise in shared memory (the small
 * merge: each key's place is its rank in its own run plus its rank in the
 * other, found by binary search; ties rank the left run first, so the
 * sort is stable).
 * merge: the big merge of runs in device memory. Each block produces a
 * tile of sp_dist outputs of one pair of runs (the splitter distance): two
 * threads find where the tile's first and last diagonals cross the merge
 * path (the splitters), the block stages the two input ranges in shared
 * memory, and each thread merges ceil(sp_dist / blocksize) outputs from
 * its own diagonal. Runs of any length; a round's tiles are counted per
 * pair, so no tile spans two pairs.
 */
#include "prim.cuh"

/* Number of keys of a[0..len) below x (lower bound), or not above x. */
__device__ __forceinline__ int rank_in(const uint64_t *a, int len, uint64_t x, bool upper)
{
    int lo = 0, hi = len;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < x || (upper && a[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Segments of seg keys; dynamic shared memory: two buffers of seg keys. */
__global__ static void segsort(const uint64_t *in, uint64_t *out, int64_t n, int seg)
{
    extern __shared__ uint64_t buf[];
    const int bs = blockDim.x, t = threadIdx.x, items = (seg + bs - 1) / bs;
    int64_t base = (int64_t)blockIdx.x * seg;
    int len = (int)(n - base < seg ? n - base : seg);
    uint64_t *a = buf, *b = buf + seg;
    for (int i = t; i < len; i += bs)
        a[i] = in[base + i];
    __syncthreads();
    int lo = t * items < len ? t * items : len;  /* this thread's run: insertion sort */
    int hi = lo + items < len ? lo + items : len;
    for (int i = lo + 1; i < hi; i++) {
        uint64_t x = a[i];
        int j = i - 1;
        while (j >= lo && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
    for (int w = items; w < len; w *= 2) {
        __syncthreads();
        for (int i = t; i < len; i += bs) {
            int pair = i / (2 * w) * (2 * w), off = i - pair;
            bool left = off < w;
            int lstart = pair, rstart = pair + w;
            int llen = w, rlen = len - rstart < w ? len - rstart : w;
            if (rlen < 0)
                rlen = 0;
            const uint64_t *other = left ? a + rstart : a + lstart;
            int r = rank_in(other, left ? rlen : llen, a[i], !left);
            b[pair + (left ? off : off - w) + r] = a[i];
        }
        uint64_t *s = a;
        a = b;
        b = s;
    }
    __syncthreads();
    for (int i = t; i < len; i += bs)
        out[base + i] = a[i];
}

extern "C" int sp_gpu_segsort_seg(const uint64_t *d_in, uint64_t *d_out, int64_t n,
                                  int64_t segment, int bs, cudaStream_t stream, sp_err *err)
{
    if (bs < 1 || bs > SP_PRIM_BS_MAX)
        return sp_fail(err, "segsort: blocksize = %d is outside 1..%d", bs, SP_PRIM_BS_MAX);
    if (segment < 1 || segment > SP_PRIM_SEG_MAX)
        return sp_fail(err, "segsort: segment = %lld is outside 1..%d (two buffers of it in "
                       "shared memory)", (long long)segment, SP_PRIM_SEG_MAX);
    if (n <= 0)
        return 0;
    segsort<<<sp_grid(n, segment), bs, 2 * (size_t)segment * sizeof(uint64_t), stream>>>(
        d_in, d_out, n, (int)segment);
    SP_LAUNCHED("segsort", err);
    return 0;
}

extern "C" int sp_gpu_segsort(const uint64_t *d_in, uint64_t *d_out, int64_t n, int bs,
                              cudaStream_t stream, sp_err *err)
{
    return sp_gpu_segsort_seg(d_in, d_out, n, SP_PRIM_SEG, bs, stream, err);
}

/* One round: runs of `run` keys of in merged pairwise into out; each pair
 * cut into tiles_per_pair tiles of `tile` outputs (the last shorter), a
 * block a tile; blocks past the end of a short last pair have nothing to
 * do. Dynamic shared memory: tile keys. */
__global__ static void merge_round(const uint64_t *in, uint64_t *out, int64_t n, int64_t run,
                                   int tile, int64_t tiles_per_pair)
{
    extern __shared__ uint64_t s[];
    __shared__ int64_t split[2];
    int64_t pair = (int64_t)blockIdx.x / tiles_per_pair;
    int64_t p0 = pair * 2 * run, d0 = ((int64_t)blockIdx.x % tiles_per_pair) * tile;
    const uint64_t *A = in + p0;
    int64_t la = n - p0 < run ? n - p0 : run;
    int64_t lb = n - p0 - run < 0 ? 0 : (n - p0 - run < run ? n - p0 - run : run);
    const uint64_t *B = A + la;
    if (d0 >= la + lb)
        return;                 /* the whole block: before any barrier */
    int64_t d1 = d0 + tile < la + lb ? d0 + tile : la + lb;
    for (int q = threadIdx.x; q < 2; q += blockDim.x)  /* one thread does both at bs 1 */
        split[q] = sp_merge_path(A, la, B, lb, q ? d1 : d0);
    __syncthreads();
    int64_t a0 = split[0], a1 = split[1], b0 = d0 - a0, b1 = d1 - a1;
    int na = (int)(a1 - a0), nb = (int)(b1 - b0);
    for (int i = threadIdx.x; i < na + nb; i += blockDim.x)
        s[i] = i < na ? A[a0 + i] : B[b0 + i - na];
    __syncthreads();
    const uint64_t *sa = s, *sb = s + na;
    int items = (tile + (int)blockDim.x - 1) / (int)blockDim.x;
    int d = threadIdx.x * items;
    if (d >= na + nb)
        return;
    int ia = (int)sp_merge_path(sa, na, sb, nb, d), ib = d - ia;
    uint64_t *o = out + p0 + d0 + d;
    for (int j = 0; j < items && d + j < na + nb; j++) {
        bool takea = ib >= nb || (ia < na && sa[ia] <= sb[ib]);
        o[j] = takea ? sa[ia++] : sb[ib++];
    }
}

extern "C" int sp_gpu_merge_dist(const uint64_t *d_in, uint64_t *d_a, uint64_t *d_b, int64_t n,
                                 int64_t run, int64_t sp_dist, int bs,
                                 const uint64_t **d_result, cudaStream_t stream, sp_err *err)
{
    if (bs < 1 || bs > SP_PRIM_BS_MAX)
        return sp_fail(err, "merge: blocksize = %d is outside 1..%d", bs, SP_PRIM_BS_MAX);
    if (run < 1)
        return sp_fail(err, "merge: runs of %lld keys (1 or more)", (long long)run);
    if (sp_dist < 1 || sp_dist > SP_PRIM_SP_DIST_MAX)
        return sp_fail(err, "merge: sp_dist = %lld is outside 1..%d (a tile of it in shared "
                       "memory)", (long long)sp_dist, SP_PRIM_SP_DIST_MAX);
    const uint64_t *src = d_in;
    uint64_t *dst = d_a;
    for (; run < n; run *= 2) {
        int64_t tile = sp_dist < 2 * run ? sp_dist : 2 * run;
        int64_t per_pair = (2 * run + tile - 1) / tile, pairs = (n + 2 * run - 1) / (2 * run);
        int threads = tile < bs ? (int)tile : bs;
        if (pairs * per_pair > INT32_MAX)
            return sp_fail(err, "merge: %lld tiles in one round (sp_dist %lld too small for "
                           "%lld keys)", (long long)(pairs * per_pair), (long long)sp_dist,
                           (long long)n);
        merge_round<<<(unsigned)(pairs * per_pair), threads, (size_t)tile * sizeof(uint64_t),
                      stream>>>(src, dst, n, run, (int)tile, per_pair);
        SP_LAUNCHED("merge_round", err);
        src = dst;
        dst = dst == d_a ? d_b : d_a;
    }
    *d_result = src;
    return 0;
}

extern "C" int sp_gpu_merge(const uint64_t *d_in, uint64_t *d_a, uint64_t *d_b, int64_t n,
                            int64_t run, int bs, const uint64_t **d_result, cudaStream_t stream,
                            sp_err *err)
{
    return sp_gpu_merge_dist(d_in, d_a, d_b, n, run, (int64_t)bs * SP_PRIM_MERGE_ITEMS, bs,
                             d_result, stream, err);
}
