/*
 * prim_sort.cu — segmented sort and merge of 64-bit keys.
 *
 * segsort: one block per segment of SP_PRIM_SEG keys in shared memory; each
 * thread sorts its SP_PRIM_SEG / blocksize keys by insertion, then runs are
 * merged pairwise in shared memory (the small merge: each key's place is
 * its rank in its own run plus its rank in the other, found by binary
 * search; ties rank the left run first, so the sort is stable).
 * merge: the big merge of runs in device memory. Each block produces a
 * tile of blocksize * SP_PRIM_MERGE_ITEMS outputs (at most one pair of runs):
 * thread 0 finds where the tile's first and last diagonals cross the merge
 * path (the splitters), the block stages the two input ranges in shared
 * memory, and each thread merges SP_PRIM_MERGE_ITEMS outputs from its own
 * diagonal.
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

__global__ static void segsort(const uint64_t *in, uint64_t *out, int64_t n)
{
    __shared__ uint64_t buf[2][SP_PRIM_SEG];
    const int bs = blockDim.x, t = threadIdx.x, items = SP_PRIM_SEG / bs;
    int64_t base = (int64_t)blockIdx.x * SP_PRIM_SEG;
    int len = (int)(n - base < SP_PRIM_SEG ? n - base : SP_PRIM_SEG);
    uint64_t *a = buf[0], *b = buf[1];
    for (int i = t; i < SP_PRIM_SEG; i += bs)
        a[i] = i < len ? in[base + i] : UINT64_MAX;
    __syncthreads();
    uint64_t *mine = a + t * items;     /* insertion sort of this thread's run */
    for (int i = 1; i < items; i++) {
        uint64_t x = mine[i];
        int j = i - 1;
        while (j >= 0 && mine[j] > x) {
            mine[j + 1] = mine[j];
            j--;
        }
        mine[j + 1] = x;
    }
    for (int w = items; w < SP_PRIM_SEG; w *= 2) {
        __syncthreads();
        for (int i = t; i < SP_PRIM_SEG; i += bs) {
            int pair = i / (2 * w) * (2 * w), off = i - pair;
            bool left = off < w;
            const uint64_t *other = a + pair + (left ? w : 0);
            int r = rank_in(other, w, a[i], !left);
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

extern "C" int sp_gpu_segsort(const uint64_t *d_in, uint64_t *d_out, int64_t n, int bs,
                              cudaStream_t stream, sp_err *err)
{
    if (bs < 32 || bs > SP_PRIM_SEG || SP_PRIM_SEG % bs)
        return sp_fail(err, "segsort: blocksize = %d does not divide the segment of %d keys "
                       "(a power of two in 32..%d)", bs, SP_PRIM_SEG, SP_PRIM_SEG);
    if (n <= 0)
        return 0;
    segsort<<<sp_grid(n, SP_PRIM_SEG), bs, 0, stream>>>(d_in, d_out, n);
    SP_LAUNCHED("segsort", err);
    return 0;
}

/* One round: runs of `run` keys of in merged pairwise into out; tiles of
 * `tile` outputs (a power of two dividing 2 * run). */
__global__ static void merge_round(const uint64_t *in, uint64_t *out, int64_t n, int64_t run,
                                   int tile)
{
    extern __shared__ uint64_t s[];
    __shared__ int64_t split[2];
    int64_t g0 = (int64_t)blockIdx.x * tile;
    int64_t p0 = g0 / (2 * run) * (2 * run);
    const uint64_t *A = in + p0;
    int64_t la = n - p0 < run ? n - p0 : run;
    int64_t lb = n - p0 - run < 0 ? 0 : (n - p0 - run < run ? n - p0 - run : run);
    const uint64_t *B = A + la;
    int64_t d0 = g0 - p0, d1 = d0 + tile < la + lb ? d0 + tile : la + lb;
    if (threadIdx.x < 2)
        split[threadIdx.x] = sp_merge_path(A, la, B, lb, threadIdx.x ? d1 : d0);
    __syncthreads();
    int64_t a0 = split[0], a1 = split[1], b0 = d0 - a0, b1 = d1 - a1;
    int na = (int)(a1 - a0), nb = (int)(b1 - b0);
    for (int i = threadIdx.x; i < na + nb; i += blockDim.x)
        s[i] = i < na ? A[a0 + i] : B[b0 + i - na];
    __syncthreads();
    const uint64_t *sa = s, *sb = s + na;
    int items = tile / blockDim.x;
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

extern "C" int sp_gpu_merge(const uint64_t *d_in, uint64_t *d_a, uint64_t *d_b, int64_t n,
                            int64_t run, int bs, const uint64_t **d_result, cudaStream_t stream,
                            sp_err *err)
{
    if (bs < 32 || bs > 1024 || (bs & (bs - 1)))
        return sp_fail(err, "merge: blocksize = %d is not a power of two in 32..1024", bs);
    if (run < 1 || (run & (run - 1)))
        return sp_fail(err, "merge: runs of %lld keys (a power of two >= 1)", (long long)run);
    const uint64_t *src = d_in;
    uint64_t *dst = d_a;
    for (; run < n; run *= 2) {
        int64_t tile = (int64_t)bs * SP_PRIM_MERGE_ITEMS;
        if (tile > 2 * run)
            tile = 2 * run;
        int threads = tile < bs ? (int)tile : bs;
        merge_round<<<sp_grid(n, tile), threads, (size_t)tile * sizeof(uint64_t), stream>>>(
            src, dst, n, run, (int)tile);
        SP_LAUNCHED("merge_round", err);
        src = dst;
        dst = dst == d_a ? d_b : d_a;
    }
    *d_result = src;
    return 0;
}
