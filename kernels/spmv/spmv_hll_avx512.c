/*
 * spmv_hll_avx512.c — SpMV on the column-major aligned HLL layout (hll.h;
 * the layout of spmv_hll_aligned_*) in AVX-512, vectorized across rows:
 * each vector lane is one row, so a hack's sixteen rows are two 8-wide
 * sums and a row never needs a horizontal reduction or a masked tail.
 * For a block of 16 rows, column k of the hack is 16 values (two aligned
 * loads), 16 column indices (one load, two halves) and two gathers of x;
 * with hack = 16 (the default) the walk down the columns reads val and col
 * front to back. Columns go two at a time into four sums, so four gathers
 * are in flight. The padding a hack carries (its rows padded to its
 * longest: value 0, the row's last column) is multiplied like the rest;
 * its amount is the run's stored entries.
 *
 * `sigma` > 1 sorts the rows by length, longest first, inside each window
 * of sigma consecutive rows before the hacks are cut (SELL-C-sigma; what
 * Intel's ELLPACK Sparse Block format for AVX-512 does too): rows of like
 * length share a hack, so much of the padding of irregular matrices goes,
 * while x is still read window by window. The sort and the permuted copy
 * are part of the conversion; the kernel writes each block's 16 sums to
 * their rows of y through the permutation (a masked scatter), so y comes
 * out in A's row order with no extra pass. sigma = 1 is no sort.
 *
 * Threads take contiguous ranges of hacks with equal stored entries
 * (sp_split_prefix over the hack offsets, as spmv_hll_aligned_omp), one
 * thread runs in the caller. Compiled for AVX-512F by a target attribute
 * whatever the build's -march; refused, with the reason, on a CPU without
 * it (cpu_isa.h).
 */
#include <omp.h>
#include <stdlib.h>

#include "../cpu_isa.h"
#include "../partition.h"
#include "spmv_gpu_host.h"
#include "spmv_hll.h"

#define WHO "spmv_hll_avx512"

/* The HLL state of the (permuted) matrix, and the permutation: row i of
 * the layout is row perm[i] of A (NULL: the identity, sigma = 1). */
typedef struct avx512_state {
    sp_spmv_hll *hll;
    int32_t *perm;
} avx512_state;

#if SP_AVX512_BUILT
/* One column of a block of 16 rows: 16 indices, two gathers of x, two
 * multiply-adds into *lo (rows 0-7) and *hi (rows 8-15). */
__attribute__((target("avx512f"))) static inline void
column16(const int32_t *c, const double *v, const double *restrict x, __m512d *lo, __m512d *hi)
{
    __m512i ci = _mm512_loadu_si512((const void *)c);
    *lo = _mm512_fmadd_pd(_mm512_loadu_pd(v), _mm512_i32gather_pd(_mm512_castsi512_si256(ci), x, 8),
                          *lo);
    *hi = _mm512_fmadd_pd(_mm512_loadu_pd(v + 8),
                          _mm512_i32gather_pd(_mm512_extracti64x4_epi64(ci, 1), x, 8), *hi);
}

/* Hacks [h0, h1) of H into y (through perm when not NULL). */
__attribute__((target("avx512f"))) static void hacks_avx512(const sp_hll *H, int32_t h0,
                                                            int32_t h1,
                                                            const double *restrict x,
                                                            double *restrict y,
                                                            const int32_t *restrict perm)
{
    const int64_t ld = H->ld;
    for (int32_t h = h0; h < h1; h++) {
        const int32_t w = H->width[h], n = sp_hll_hack_rows(H, h);
        const double *restrict v0 = H->val + H->off[h];
        const int32_t *restrict c0 = H->col + H->off[h];
        double *restrict yh = y + (int64_t)h * H->hack;
        for (int32_t b = 0; b < n; b += 16) {
            const double *restrict v = v0 + b;
            const int32_t *restrict c = c0 + b;
            __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
            __m512d a2 = _mm512_setzero_pd(), a3 = _mm512_setzero_pd();
            int32_t k = 0;
            for (; k + 2 <= w; k += 2) {
                column16(c + k * ld, v + k * ld, x, &a0, &a1);
                column16(c + (k + 1) * ld, v + (k + 1) * ld, x, &a2, &a3);
            }
            if (k < w)
                column16(c + k * ld, v + k * ld, x, &a0, &a1);
            __m512d lo = _mm512_add_pd(a0, a2), hi = _mm512_add_pd(a1, a3);
            int32_t left = n - b;       /* real rows of this block; the rest is padding */
            if (perm) {
                __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
                __m512i to = _mm512_maskz_loadu_epi32(m, perm + (int64_t)h * H->hack + b);
                _mm512_mask_i32scatter_pd(y, (__mmask8)m, _mm512_castsi512_si256(to), lo, 8);
                _mm512_mask_i32scatter_pd(y, (__mmask8)(m >> 8),
                                          _mm512_extracti64x4_epi64(to, 1), hi, 8);
            } else if (left >= 16) {
                _mm512_storeu_pd(yh + b, lo);
                _mm512_storeu_pd(yh + b + 8, hi);
            } else {
                __mmask16 m = (__mmask16)((1u << left) - 1u);
                _mm512_mask_storeu_pd(yh + b, (__mmask8)m, lo);
                _mm512_mask_storeu_pd(yh + b + 8, (__mmask8)(m >> 8), hi);
            }
        }
    }
}
#endif

/* The layout's every block of 16 rows lies inside ld (hll.h: ld is a
 * multiple of SP_HLL_ALIGN_ROWS = 16), which the loads above rely on. */
_Static_assert(SP_HLL_ALIGN_ROWS == 16, "spmv_hll_avx512 reads hacks in blocks of 16 rows");

static void avx512_release(void *state)
{
    avx512_state *s = state;
    if (s) {
        sp_spmv_hll_release(s->hll);
        free(s->perm);
    }
    free(s);
}

/* Check the axes and the CPU; sort (sigma > 1) and convert: the harness
 * times it all as the conversion. */
static int avx512_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    int32_t sigma = 1;
    *state = NULL;
    if (sp_require_avx512f(WHO, err) || sp_gpu_sigma(WHO, p, &sigma, err))
        return -1;
    if (!pb || !pb->A)
        return sp_fail(err, WHO ": problem without a matrix");
    avx512_state *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, WHO ": out of memory for the kernel state");
    sp_problem sorted = *pb;
    sp_csr P = {0};
    if (sigma > 1) {
        if (sp_sell_sigma(pb->A, sigma, &s->perm, &P, err)) {
            avx512_release(s);
            return sp_fail_prefix(err, WHO);
        }
        sorted.A = &P;
    }
    void *inner = NULL;
    int rc = sp_spmv_hll_aligned_prepare(&sorted, p, &inner, err);
    s->hll = inner;
    sp_csr_free(&P);            /* the layout holds its own copy */
    if (rc) {                   /* a failed prepare leaves no state */
        avx512_release(s);
        return -1;
    }
    *state = s;
    return 0;
}

/* The layout (sorted: its exact size from the sorted row lengths, in the
 * aligned hacks of ld rows), the sort's permuted copy of A and the
 * permutation, y. */
static int avx512_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int32_t sigma = 1;
    if (sp_require_avx512f(WHO, err) || sp_gpu_sigma(WHO, p, &sigma, err))
        return -1;
    if (sp_spmv_hll_aligned_need(pb, p, need, err))
        return -1;
    if (sigma == 1)
        return 0;
    const sp_csr *A = pb->A;
    sp_hll_opts o;
    int64_t stored;
    if (sp_spmv_hll_aligned_layout(p, &o, err) ||
        sp_sell_sigma_plan(A, sigma, o.hack, &stored, err))
        return sp_fail_prefix(err, WHO);
    stored = stored / o.hack * sp_hll_ld(o.hack, o.align);  /* a hack holds ld rows */
    uint64_t unsorted = need->stored;
    need->stored = (uint64_t)stored;
    need->host_bytes += ((uint64_t)stored - unsorted) * (sizeof(double) + sizeof(int32_t)) +
                        (uint64_t)A->nnz * (sizeof(double) + sizeof(int32_t)) +
                        ((uint64_t)A->rows + 1) * 3 * sizeof(int32_t) +
                        ((uint64_t)A->rows + 1) * sizeof(uint64_t);
    return 0;
}

static int avx512_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const avx512_state *s = state;
    if (!s || !s->hll)
        return sp_fail(err, WHO ": launch without a state");
#if SP_AVX512_BUILT
    const sp_hll *H = &s->hll->H;
    const double *x = s->hll->x;
    double *y = s->hll->y;
#pragma omp parallel num_threads(s->hll->threads) if (s->hll->threads > 1)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        hacks_avx512(H, sp_split_prefix(H->off, H->nhacks, nt, t),
                     sp_split_prefix(H->off, H->nhacks, nt, t + 1), x, y, s->perm);
    }
    return 0;
#else
    return sp_require_avx512f(WHO, err);
#endif
}

static int avx512_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const avx512_state *s = state;
    if (!s || !s->hll)
        return sp_fail(err, WHO ": result without a state");
    return sp_spmv_hll_result(s->hll, out, ex, err);
}

const sp_kernel sp_spmv_hll_avx512 = {
    .name = WHO,
    .operation = "spmv",
    .format = "hll",
    .backend = "openmp",
    .summary = "SELL-C-sigma, C = 16: HLL column-major aligned, AVX-512 across rows (a lane a "
               "row), rows sorted in windows of sigma (AVX-512F CPUs)",
    .isa = "avx512f",
    .naxes = 3,
    .axes = {{"threads", "1..nproc:*2,nproc"},
             {"hack", "16", "1..65536"},
             {"sigma", "1,512,4096", "1..1073741824"}},
    .prepare = avx512_prepare,
    .launch = avx512_launch,
    .result = avx512_result,
    .release = avx512_release,
    .need = avx512_need,
};
