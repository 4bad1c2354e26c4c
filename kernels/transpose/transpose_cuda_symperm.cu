/*
 * transpose_cuda_symperm.cu — the transposition of a structurally
 * symmetric matrix in one pass (transpose_symperm.h): colptr = rowptr,
 * rowidx = colidx, and each CSC slot q (row r, column c = colidx[q]) takes
 * the value of its mirror, the position of column r in row c.
 *
 * The pass is a gather: thread t of a tile handles positions in order, so
 * the reads of colidx and the writes of rowidx and cval are coalesced;
 * only the mirror's value and row c's pointers and columns are read out
 * of order. The two copies are folded into the pass: rowidx[q] =
 * colidx[q] is written from the colidx value already read, and the
 * threads copy rowptr into colptr, so the traffic is the 24 bytes a
 * nonzero of the CSR in and the CSC out, plus the mirrors' reads.
 *
 * Finding the mirror (the `lookup` axis, enum sp_symperm_lookup): the
 * first version searched row c (search, 1): about five dependent probes of
 * colidx plus rowptr[c], rowptr[c + 1] and the value, each a sector of its
 * own when row c is far from q (a 27-point stencil's mirrors lie up to n^2
 * rows away): an estimated 150 bytes of L2 traffic a nonzero. The rank
 * guess (guess, 2; sp_symperm_guess) reads colidx once at the position
 * whose rank mirrors q's and searches only when that column is not r:
 * exact on a stencil's interior rows (it takes 0.906 of the slots of the
 * 27-point 40^3, 0.952 of 80^3, 0.997 of the 5-point 301^2, counted
 * serially), and the search still finds every mirror elsewhere. Row c's
 * two pointers come from one 16-byte load when they lie in one aligned
 * quad (sp_symperm_bounds). guess-ef (3) stores the CSC evict-first; pair
 * (4) keeps two slots a thread in flight and reads the value with the
 * guessed column; pair-ef (5) both.
 *
 * The check is the lookup itself: a slot whose mirror is missing sets a
 * device flag (once a warp, then the warp stops); every block reads the
 * flag when it starts and returns at once when it is set. The launch then
 * reads the flag back (a device-to-host copy and a wait for the stream,
 * inside the timed launch) and, if it is set, builds the whole CSC by the
 * CUB sort route (transpose_cub_sort.cu), which overwrites every array the
 * pass wrote: correct on every matrix, and a non-symmetric one costs a
 * (usually short) failed pass, one flag read and the CUB route, all timed.
 * Rectangular matrices go to the CUB route at once.
 *
 * Device status: the search version (lookup 1) ran on the H100 in
 * session 4 (gpu_transpose/symperm_* passed, memcheck 0 errors, racecheck
 * 0 hazards). Session 5 (symp2), H100, every lookup: gpu_transpose/
 * symperm_* 2/2 and symmetric_cases_every_kernel 1/1 passed (lookup 2,
 * the default then, at block sizes 64, 256, 1024, lookups 1, 3, 4, 5 at
 * 64, 256, 1024, 128), memcheck on symperm_* 0 errors, racecheck on
 * symperm_symmetric_and_almost_symmetric 0 hazards; all 20 block size x
 * lookup runs on the three stencils below exact (rel_error 0). Median of
 * 20, ms (cuSPARSE csr2cscEx2 in the same sweep), best block size:
 *
 *   lookup              band 2e6 bw 8   5-point 3000^2   27-point 160^3
 *   1 search            0.489 (128)     0.738 (128)      3.746 (1024)
 *   2 guess             0.452 (128)     0.736 (128)      2.286 (1024)
 *   3 guess-ef          0.448 (128)     0.714 (128)      2.216 (512)
 *   4 pair              0.442 (128)     0.692 (128)      1.893 (128)
 *   5 pair-ef           0.405 (128)     0.616 (128)      1.858 (1024)
 *   cuSPARSE            1.674           2.295            5.388
 *
 * The guess alone took the 27-point from 3.75 to 2.29 ms; two slots in
 * flight and evict-first stores took it to 1.86 (2.90x cuSPARSE, 48 % of
 * the copy rate), the band and the 5-point to 4.14x and 3.73x.
 */
#include "transpose_gpu.cuh"
#include "transpose_symperm.h"

#define KERNEL "transpose_cuda_symperm"

/* Slot q's row index and value: plain stores, or evict-first (EF: the
 * CSC is not read again in the pass, so it need not keep the mirrors'
 * rows out of L2). */
template <bool EF, typename V>
__device__ static __forceinline__ void symperm_store(int32_t *ri, V *cv, int32_t c, V v)
{
    if (EF) {
        __stcs(ri, c);
        __stcs(cv, v);
    } else {
        *ri = c;
        *cv = v;
    }
}

/* Slots q0 and q1 (those below k1) of the pair lookups: each step's
 * loads (columns, row bounds, the guess's column and value) issued for
 * both slots before the first is used, so twice the loads are in flight
 * per thread; the value at the guess read with its column (a wasted read
 * on a miss, one dependent read less on a hit). */
template <bool EF, typename V>
__device__ static __forceinline__ void
symperm_pair(const int32_t *__restrict__ rowptr, int32_t rows, const int32_t *__restrict__ colidx,
             const V *__restrict__ val, sp_symperm_stage s, int64_t q0, int64_t q1, int64_t k1,
             int32_t *__restrict__ rowidx, V *__restrict__ cval, bool *missing)
{
    const bool v0 = q0 < k1, v1 = q1 < k1;
    int32_t c0 = v0 ? __ldg(colidx + q0) : 0, c1 = v1 ? __ldg(colidx + q1) : 0;
    int32_t r0 = 0, a0 = 0, b0 = 0, r1 = 0, a1 = 0, b1 = 0;
    if (v0)
        sp_symperm_row_bounds(rowptr, rows, s, q0, &r0, &a0, &b0);
    if (v1)
        sp_symperm_row_bounds(rowptr, rows, s, q1, &r1, &a1, &b1);
    int32_t ac0 = 0, bc0 = 0, ac1 = 0, bc1 = 0;
    if (v0 && c0 != r0)
        sp_symperm_bounds(rowptr, rows, s, c0, &ac0, &bc0);
    if (v1 && c1 != r1)
        sp_symperm_bounds(rowptr, rows, s, c1, &ac1, &bc1);
    int64_t g0 = v0 ? sp_symperm_guess(q0, r0, a0, b0, c0, ac0, bc0) : -1;
    int64_t g1 = v1 ? sp_symperm_guess(q1, r1, a1, b1, c1, ac1, bc1) : -1;
    int32_t x0 = -1, x1 = -1;
    V y0 = 0, y1 = 0;
    if (g0 >= 0)
        x0 = __ldg(colidx + g0), y0 = __ldg(val + g0);
    if (g1 >= 0)
        x1 = __ldg(colidx + g1), y1 = __ldg(val + g1);
    if (v0) {
        int32_t p = x0 == r0 ? (int32_t)g0 : sp_symperm_search(colidx, ac0, bc0, r0);
        if (p < 0)
            *missing = true;
        else {
            symperm_store<EF>(rowidx + q0, cval + q0, c0, p == g0 ? y0 : __ldg(val + p));
        }
    }
    if (v1) {
        int32_t p = x1 == r1 ? (int32_t)g1 : sp_symperm_search(colidx, ac1, bc1, r1);
        if (p < 0)
            *missing = true;
        else {
            symperm_store<EF>(rowidx + q1, cval + q1, c1, p == g1 ? y1 : __ldg(val + p));
        }
    }
}

/* One tile of SP_SYMPERM_ITEMS x blockDim.x positions per block; warp w
 * takes SP_SYMPERM_ITEMS x 32 consecutive positions, 32 at a time (the
 * scatter kernel's split), or 64 at a time for the pair lookups. Dynamic
 * shared memory: the stage, tile + 1 ints. Blocks past the last tile only
 * copy rowptr. The CSR is read-only and the CSC its own buffer
 * (__restrict__: read-only cache loads); the flag alone is shared between
 * blocks. */
/* The prologue's fallback when the guessed window misses (sp_tile_row_range):
 * 0 = lane 0's binary search, 1 = the warp search. H100 (ms, band bs 128
 * / laplace2d bs 128 / laplace3d bs 1024): one thread's binary search
 * alone 0.406 / 0.623 / 1.858; the warp search alone 0.361 / 0.554 /
 * 1.948 (its scattered probes cost laplace3d's mirror gathers cache
 * lines). With the window first (session 5, one call, A/B/A, median of
 * 20): the warp search (this default) 0.367 / 0.562 / 1.904, then 0.363
 * / 0.572 / 1.917, the binary search between them 0.370 / 0.627 / 1.923:
 * the window takes laplace3d's tiles, so its warp-search cost is gone. */
#ifndef SYMPERM_WIDE
#define SYMPERM_WIDE 1
#endif

template <int LOOKUP, typename V>
__global__ static void symperm_gather(const int32_t *__restrict__ rowptr, int32_t rows,
                                      const int32_t *__restrict__ colidx,
                                      const V *__restrict__ val, int32_t nnz, int32_t *flag,
                                      int32_t *__restrict__ colptr, int32_t *__restrict__ rowidx,
                                      V *__restrict__ cval)
{
    extern __shared__ int32_t stage[];
    __shared__ int32_t s_stop, s_r0, s_last;
    const int64_t tile = (int64_t)blockDim.x * SP_SYMPERM_ITEMS;
    const int64_t k0 = (int64_t)blockIdx.x * tile, k1 = k0 + tile < nnz ? k0 + tile : nnz;
    /* the tile's rows (sp_symperm_tile_rows, by the warp search) */
    if (threadIdx.x == 0)
        s_stop = *(volatile int32_t *)flag;
    if (k0 < k1)
        sp_tile_row_range(rowptr, rows, k0, k1, &s_r0, &s_last, SYMPERM_WIDE);
    __syncthreads();
    if (s_stop)
        return;
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r <= rows;
         r += (int64_t)gridDim.x * blockDim.x)
        colptr[r] = rowptr[r];
    if (k0 >= k1)
        return;
    const int32_t s_len = s_last - s_r0 + 2;   /* rowptr[s_r0 ..] bounding the tile's rows */
    sp_symperm_stage s = {NULL, s_r0, s_len};
    if (s_len <= tile + 1) {
        for (int32_t i = threadIdx.x; i < s_len; i += blockDim.x)
            stage[i] = rowptr[s_r0 + i];
        s.stage = stage;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t wk = k0 + (int64_t)warp * 32 * SP_SYMPERM_ITEMS;
    constexpr bool EF = LOOKUP == SP_SYMPERM_GUESS_EF || LOOKUP == SP_SYMPERM_PAIR_EF;
    if constexpr (LOOKUP >= SP_SYMPERM_PAIR) {   /* two steps at once, loads side by side */
        for (int step = 0; step < SP_SYMPERM_ITEMS; step += 2) {
            const int64_t q0 = wk + step * 32 + lane, q1 = q0 + 32;
            if (!__any_sync(SP_FULL_MASK, q0 < k1))
                break;
            bool missing = false;
            symperm_pair<EF>(rowptr, rows, colidx, val, s, q0, q1, k1, rowidx, cval, &missing);
            if (__any_sync(SP_FULL_MASK, missing)) {
                if (lane == 0)
                    *(volatile int32_t *)flag = 1;
                break;
            }
        }
    } else {
        for (int step = 0; step < SP_SYMPERM_ITEMS; step++) {
            const int64_t q = wk + step * 32 + lane;
            const bool valid = q < k1;
            if (!__any_sync(SP_FULL_MASK, valid))
                break;
            bool missing = false;
            if (valid) {
                int32_t c = colidx[q];
                int hit;
                int32_t p = sp_symperm_mirror(rowptr, colidx, rows, s, q, c,
                                              LOOKUP != SP_SYMPERM_SEARCH, &hit);
                missing = p < 0;
                if (!missing)
                    symperm_store<EF>(rowidx + q, cval + q, c, val[p]);
            }
            if (__any_sync(SP_FULL_MASK, missing)) {
                if (lane == 0)
                    *(volatile int32_t *)flag = 1;
                break;
            }
        }
    }
}

/* Blocks of the pass: the tiles of the nonzeros, or enough for the row
 * pointers to be copied SP_SYMPERM_ITEMS a thread, whichever is more. */
static unsigned symperm_blocks(const sp_gpu_trans *g)
{
    int64_t tile = (int64_t)g->bs * SP_SYMPERM_ITEMS;
    unsigned a = sp_grid(g->nnz, tile), b = sp_grid((int64_t)g->rows + 1, tile);
    return a > b ? a : b;
}

extern "C" int sp_trans_symperm_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                        sp_err *err)
{
    *state = NULL;
    int bs = 0, lookup = 0;
    if (sp_trans_gpu_blocksize(KERNEL, p, &bs, err) ||
        sp_symperm_lookup_axis(KERNEL, p, &lookup, err))
        return -1;
    sp_gpu_trans *g = sp_trans_gpu_new(KERNEL, pb, p, err);
    if (!g)
        return -1;
    g->bs = bs;
    g->lookup = lookup;
    *state = g;
    return 0;
}

/* The flag of the check, and the CUB route's arrays (its fallback: whether
 * A is symmetric is found in the launch). */
static int symperm_work(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (sp_trans_gpu_alloc((void **)&g->count, 1, 4, err) || sp_trans_cub_alloc(g, stream, err))
        return -1;
    g->flag = g->count;
    return 0;
}

extern "C" int sp_trans_symperm_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, symperm_work, err);
}

/* The pass at g's lookup, values V, on `stream`. */
template <typename V>
static void symperm_pass(sp_gpu_trans *g, cudaStream_t stream)
{
    size_t smem = ((size_t)g->bs * SP_SYMPERM_ITEMS + 1) * 4;
    unsigned grid = symperm_blocks(g);
#define SYMPERM_LAUNCH(L)                                                                  \
    symperm_gather<L, V><<<grid, g->bs, smem, stream>>>(                                       \
        g->rowptr, g->rows, g->colidx, (const V *)g->val, g->nnz, g->flag, g->colptr,          \
        g->rowidx, (V *)g->cval)
    switch (g->lookup) {
    case SP_SYMPERM_SEARCH: SYMPERM_LAUNCH(SP_SYMPERM_SEARCH); break;
    case SP_SYMPERM_GUESS: SYMPERM_LAUNCH(SP_SYMPERM_GUESS); break;
    case SP_SYMPERM_GUESS_EF: SYMPERM_LAUNCH(SP_SYMPERM_GUESS_EF); break;
    case SP_SYMPERM_PAIR: SYMPERM_LAUNCH(SP_SYMPERM_PAIR); break;
    default: SYMPERM_LAUNCH(SP_SYMPERM_PAIR_EF); break;
    }
#undef SYMPERM_LAUNCH
}

/* The pass, the flag read, and the fallback when the flag is set; all on
 * `stream`. */
static int symperm(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (g->rows != g->cols) {
        g->route = SP_SYMPERM_RECTANGULAR;
        return sp_trans_cub_route(g, stream, err);
    }
    SP_CUDA(cudaMemsetAsync(g->flag, 0, 4, stream), err);
    SP_TRANS_BY_VALUE(g, symperm_pass, g, stream);
    SP_LAUNCHED("symperm_gather", err);
    /* A host read-back inside the launch: whether the matrix is symmetric
     * is found on the device, and the host decides whether the CUB route
     * follows. The launch waits here for its own stream. */
    int32_t flag = 0;
    SP_CUDA(cudaMemcpyAsync(&flag, g->flag, 4, cudaMemcpyDeviceToHost, stream), err);
    SP_CUDA(cudaStreamSynchronize(stream), err);
    g->route = flag ? SP_SYMPERM_FALLBACK : SP_SYMPERM_MIRROR;
    return flag ? sp_trans_cub_route(g, stream, err) : 0;
}

extern "C" int sp_trans_symperm_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, KERNEL, symperm, err);
}

extern "C" int sp_trans_symperm_route(const void *state)
{
    return state ? ((const sp_gpu_trans *)state)->route : SP_SYMPERM_NONE;
}
