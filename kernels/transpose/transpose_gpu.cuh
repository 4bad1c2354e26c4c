/*
 * transpose_gpu.cuh — the state every GPU transposition kernel shares: the
 * host CSR it was prepared from, the CSR on the device, the CSC in the
 * operation's layout (one buffer, so the result comes back in one copy),
 * work arrays; and the shared steps of its life (transpose_gpu.cu). The
 * harness times the steps; nothing here reads a clock.
 */
#ifndef SP_TRANSPOSE_GPU_CUH
#define SP_TRANSPOSE_GPU_CUH

#include "../prim/prim.cuh"
#include "transpose_gpu.h"

typedef struct sp_gpu_trans {
    const char *name;
    const sp_csr *A;            /* the host CSR (the problem's), read by upload */
    int32_t rows, cols, nnz;
    int bs;
    /* The `precision` axis: the values on the device are V = double, or
     * float (vb = 4) rounded from A's in upload (prepare's conversion
     * buffer val32); every array of values below holds V. */
    sp_precision prec;
    size_t vb;
    float *val32;               /* single: A's values rounded to float (host) */
    int32_t *rowptr, *colidx;   /* the CSR */
    void *val;
    bool separate;              /* the CSC in three arrays of its own (cuSPARSE) */
    void *out;                  /* else one: V val[nnz] (8-byte padded) | colptr | rowidx */
    void *cval;
    int32_t *colptr, *rowidx;
    /* work arrays; which are set depends on the kernel */
    int32_t *w32a, *w32b, *w32c, *w32d;   /* int32 arrays of nnz or cols */
    int32_t *w32e, *w32f;
    void *wval2;                           /* nnz values (V) */
    uint64_t *w64a, *w64b;                 /* 64-bit keys */
    void *wval;                            /* nnz values (V) */
    int32_t *count;                        /* one counter */
    void *scan_temp, *lib_temp;            /* scan levels; CUB or cuSPARSE buffer */
    size_t lib_bytes;
    int32_t units;                         /* ScanTrans */
    sp_wintrans_plan plan;                 /* windowed ScanTrans */
    int32_t *flag;                         /* its device check (a view into w32a) */
    int route;                             /* symperm: the last launch's route */
    sp_radix_plan radix;                   /* the radix route's passes */
    int32_t small_nnz;                     /* one block up to this nnz (0: the default) */
    int lookup;                            /* symperm: its `lookup` axis */
    cusparseHandle_t handle;
} sp_gpu_trans;

/* The harness's stream (the legacy default stream without an sp_exec). */
static inline cudaStream_t sp_trans_stream(const sp_exec *ex)
{
    return ex ? (cudaStream_t)ex->stream : (cudaStream_t)0;
}

/* A state for A with the kernel's name at the `precision` of p, in host
 * memory (no CUDA call; in single A's values rounded to float here, the
 * conversion): the end of every kernel's prepare. NULL with the reason in
 * err. */
sp_gpu_trans *sp_trans_gpu_new(const char *name, const sp_problem *pb, const sp_params *p,
                               sp_err *err);

/* Call the template fn<V> of g's value type (float in single, else double)
 * with the arguments that follow: the one place a kernel picks it. */
#define SP_TRANS_BY_VALUE(g, fn, ...)                                                     \
    ((g)->prec == SP_SINGLE ? fn<float>(__VA_ARGS__) : fn<double>(__VA_ARGS__))
/* cudaMalloc of n elements of elem bytes, never zero bytes. */
int sp_trans_gpu_alloc(void **p, size_t n, size_t elem, sp_err *err);
/* One step of a kernel on its state (its work arrays, its analyse, its
 * launch): fn gets the state and the harness's stream (ex->stream),
 * enqueues there and returns without waiting. */
typedef int (*sp_trans_step)(sp_gpu_trans *g, cudaStream_t stream, sp_err *err);
/* fn on state; fails, naming the kernel, without a state. */
int sp_trans_gpu_step(void *state, const sp_exec *ex, const char *kernel, sp_trans_step fn,
                      sp_err *err);
/* A kernel's upload: the CSR and the CSC allocated on the device and the
 * CSR copied there on ex->stream, then work (the kernel's work arrays and
 * library buffers; NULL: none). On failure what was made stays in the
 * state, for release. */
int sp_trans_gpu_upload(void *state, const sp_exec *ex, sp_trans_step work, sp_err *err);

/* The CUB sort route (transpose_cub_sort.cu), shared with the symmetric
 * fast path's fallback: its work arrays (w32a..d, lib_temp; an upload
 * step), then the whole CSC enqueued on `stream` at block size
 * SP_TRANS_CUB_BS. */
#define SP_TRANS_CUB_BS 256
int sp_trans_cub_alloc(sp_gpu_trans *g, cudaStream_t stream, sp_err *err);
int sp_trans_cub_route(sp_gpu_trans *g, cudaStream_t stream, sp_err *err);

#ifdef __CUDACC__
/* sp_segment_of by a whole warp, 32 probes a step: about log32(len)
 * dependent loads instead of log2(len) (one thread's binary search over
 * 4·10^6 rows is 22 loads one after the other, the serial prologue of
 * every tile's block). Every lane calls it with the same arguments and
 * gets the answer. Invariant: ptr[lo] <= k, and hi == len or ptr[hi] > k. */
__device__ __forceinline__ int32_t sp_warp_segment_of(const int32_t *__restrict__ ptr,
                                                      int32_t len, int64_t k)
{
    const int lane = threadIdx.x & 31;
    int32_t lo = 0, hi = len;
    while (hi - lo > 32) {
        const int64_t span = hi - lo;
        const unsigned le = __ballot_sync(SP_FULL_MASK, ptr[lo + span * lane / 32] <= k);
        const int last = 31 - __clz(le);   /* lane 0 probes lo: always set */
        const int32_t nlo = lo + (int32_t)(span * last / 32);
        hi = last == 31 ? hi : lo + (int32_t)(span * (last + 1) / 32);
        lo = nlo;
    }
    const int32_t j = lo + lane;
    const unsigned le = __ballot_sync(SP_FULL_MASK, j < hi && ptr[j] <= k);
    return lo + (31 - __clz(le));
}

/* sp_segment_of by a warp, starting from a guess: the 32 entries from
 * guess - 15 are read at once (one line: rows of about equal length put
 * the answer there, so one load); when the answer is not among them the
 * warp falls back to `wide` (1: sp_warp_segment_of; 0: lane 0's binary
 * search, broadcast). Every lane calls it with the same arguments. */
__device__ __forceinline__ int32_t sp_warp_segment_near(const int32_t *__restrict__ ptr,
                                                        int32_t len, int64_t k, int64_t guess,
                                                        bool wide)
{
    const int lane = threadIdx.x & 31;
    int64_t lo = guess - 15;
    lo = lo < (int64_t)len - 32 ? lo : (int64_t)len - 32;
    lo = lo > 0 ? lo : 0;
    const int64_t j = lo + lane;
    const unsigned le = __ballot_sync(SP_FULL_MASK, j < len && ptr[j] <= k);
    const int last = 31 - __clz(le);
    /* found: ptr[lo] <= k, and the next entry past the last one <= k is
     * in the window (> k) or the window ends at len */
    if ((le & 1u) && (last < 31 || lo + 32 >= len))
        return (int32_t)lo + last;
    if (wide)
        return sp_warp_segment_of(ptr, len, k);
    int32_t r = lane == 0 ? sp_segment_of(ptr, len, k) : 0;
    return __shfl_sync(SP_FULL_MASK, r, 0);
}

/* The first and the last row of the positions [k0, k1) (k0 < k1) into
 * *first and *last (the caller's __shared__ ints): warps 0 and 1 search at
 * once (warp 0 both when the block has one), each from the row the
 * average row length predicts (sp_warp_segment_near; `wide` picks its
 * fallback). Every thread of the block calls it; no barrier inside.
 * Against one thread's binary search before (22 dependent loads over
 * 4·10^6 rows), H100: olm1000's one-block path 0.015 -> 0.012 ms, carry
 * 1.6-2.3 % faster on R-MAT, uniform and denserow, radix 2-5 %; symperm:
 * see SYMPERM_WIDE in transpose_cuda_symperm.cu. */
__device__ __forceinline__ void sp_tile_row_range(const int32_t *__restrict__ rowptr,
                                                  int32_t rows, int64_t k0, int64_t k1,
                                                  int32_t *first, int32_t *last, bool wide)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int other = blockDim.x > 32 ? 1 : 0;
    if (warp == 0 || warp == other) {
        const int64_t nnz = rowptr[rows];
        const int64_t a = nnz > 0 ? k0 * rows / nnz : 0, b = nnz > 0 ? (k1 - 1) * rows / nnz : 0;
        if (warp == 0) {
            int32_t r = sp_warp_segment_near(rowptr, rows + 1, k0, a, wide);
            if (lane == 0)
                *first = r;
        }
        if (warp == other) {
            int32_t r = sp_warp_segment_near(rowptr, rows + 1, k1 - 1, b, wide);
            if (lane == 0)
                *last = r;
        }
    }
}

/* The rows of a tile's positions [k0, k1) into rowof[0 .. k1 - k0), row
 * by row from rowptr (each thread some rows, no search per position);
 * false, nothing filled, when the tile spans more than `most` rows (empty
 * rows: the caller searches rowptr per position instead). Every thread of
 * the block calls it; s_first and s_last are the caller's __shared__
 * ints; one barrier inside, none after the fill. */
__device__ __forceinline__ bool sp_tile_fill_rows(const int32_t *__restrict__ rowptr,
                                                  int32_t rows, int64_t k0, int64_t k1,
                                                  int32_t most, int32_t *rowof,
                                                  int32_t *s_first, int32_t *s_last)
{
    if (k0 < k1)
        sp_tile_row_range(rowptr, rows, k0, k1, s_first, s_last, true);
    __syncthreads();
    if (k0 >= k1 || *s_last - *s_first + 1 > most)
        return false;
    const int32_t r0 = *s_first, nrows = *s_last - *s_first + 1;
    for (int32_t i = threadIdx.x; i < nrows; i += blockDim.x) {
        int64_t a = rowptr[r0 + i], b = rowptr[r0 + i + 1];
        a = a > k0 ? a : k0;
        b = b < k1 ? b : k1;
        for (int64_t q = a; q < b; q++)
            rowof[q - k0] = r0 + i;
    }
    return true;
}

/* Stable ranks by warp runs (the radix scatter, the one-block counting
 * path): each warp walks its run of positions 32 at a time and keeps a
 * 16-bit counter per key, two to a 32-bit word, in `mine`. The rank of
 * this lane's key among the `active` lanes with the same key (lane
 * order), after the run's counter of that key; the group's leader then
 * adds the group (a count <= 65535: no carry into the other half). */
__device__ __forceinline__ int32_t sp_run_rank16(uint32_t *mine, int32_t key, unsigned active)
{
    const int lane = threadIdx.x & 31;
    const unsigned peers = __match_any_sync(active, key);
    const int half = (key & 1) * 16;
    const uint32_t before = (mine[key >> 1] >> half) & 0xffffu;
    __syncwarp(active);
    if (lane == __ffs(peers) - 1)
        atomicAdd(mine + (key >> 1), (uint32_t)__popc(peers) << half);
    __syncwarp(active);   /* the counter read next round sees the add */
    return (int32_t)before + __popc(peers & ((1u << lane) - 1u));
}

/* After the runs: each warp's counters (warps x words, word-major per
 * warp) become its run's start inside each key's share (an exclusive sum
 * over the warps, both halves at once: a half's total <= 65535), and
 * totals[key] the share's size, for keys < nkeys. Block-wide (blockDim
 * threads), no barrier inside. */
__device__ __forceinline__ void sp_run_starts16(uint32_t *counters, int32_t words, int warps,
                                                int32_t nkeys, int32_t *totals)
{
    for (int32_t i = threadIdx.x; i < words; i += blockDim.x) {
        uint32_t run = 0;
        for (int w = 0; w < warps; w++) {
            uint32_t c = counters[w * words + i];
            counters[w * words + i] = run;
            run += c;
        }
        totals[2 * i] = (int32_t)(run & 0xffffu);
        if (2 * i + 1 < nkeys)
            totals[2 * i + 1] = (int32_t)(run >> 16);
    }
}

/* a[0, n) (shared memory) becomes its exclusive sum in place, each of the
 * THREADS threads a chunk of n / THREADS rounded up; the sums are also
 * written to copy[0, n) when copy is not NULL (a global array). Block-wide,
 * no barrier inside (the caller's, before and after). */
template <typename BlockScan, int THREADS>
__device__ __forceinline__ void sp_block_excl_inplace(int32_t *a, int32_t n,
                                                      typename BlockScan::TempStorage &tmp,
                                                      int32_t *copy)
{
    const int32_t per = (n + THREADS - 1) / THREADS;
    const int32_t i0 = (int32_t)threadIdx.x * per;
    int32_t sum = 0, excl = 0;
    for (int32_t j = 0; j < per && i0 + j < n; j++)
        sum += a[i0 + j];
    BlockScan(tmp).ExclusiveSum(sum, excl);
    for (int32_t j = 0; j < per && i0 + j < n; j++) {
        const int32_t c = a[i0 + j];
        a[i0 + j] = excl;
        if (copy)
            copy[i0 + j] = excl;
        excl += c;
    }
}

/* The key's slot offset inside its share for this warp: the run's start
 * (after sp_run_starts16) + the lane's rank. */
__device__ __forceinline__ int32_t sp_run_start16(const uint32_t *mine, int32_t key)
{
    return (int32_t)((mine[key >> 1] >> ((key & 1) * 16)) & 0xffffu);
}
#endif

/* Small matrices in one block and one launch (transpose_small.cu): fits
 * when nnz <= g->small_nnz (SP_TRANS_SMALL_NNZ when 0) and cols <
 * SP_TRANS_SMALL_COLS; init sets the kernels' shared-memory limits and
 * asks once a process whether the cluster path runs here (once a state,
 * in the kernel's analyse); route enqueues the one launch on `stream`. */
int sp_trans_small_fits(const sp_gpu_trans *g);
int sp_trans_small_init(sp_err *err);
int sp_trans_small_route(sp_gpu_trans *g, cudaStream_t stream, sp_err *err);

#endif
