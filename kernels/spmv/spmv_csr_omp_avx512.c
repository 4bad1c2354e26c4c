/*
 * spmv_csr_omp_avx512.c — CSR SpMV in AVX-512: the rows split among the
 * threads in equal nonzero shares (as spmv_csr_omp_nnz), each row's dot
 * product eight nonzeros at a time: eight column indices loaded, the eight
 * x values gathered (vgatherdpd), multiplied and added into two vector
 * sums (sixteen nonzeros a step, so two gathers are in flight), the row's
 * last 1-7 nonzeros under a mask (masked loads never touch the bytes they
 * leave out, so the row's end needs no padding), the sums reduced once per
 * row. Rows of fewer than eight nonzeros take four scalar partial sums
 * instead (a gather and a reduction for two nonzeros cost more than they
 * save).
 *
 * Why: on the GPU host's 16-core Sapphire Rapids MKL's SpMV ran 2x faster
 * than every other CSR kernel here on the real matrices that fit in cache
 * (bcsstk16 12 us against 26, goodwin 18 against 32 at 16 threads, the
 * first device call of 2026-12-07; bench/RESULTS.md has the later ones):
 * most of it was the work per core (one thread: MKL 166 us, our best CSR
 * 243), and gcc at -march=sapphirerapids keeps `omp simd` at 256-bit
 * vectors (its prefer-vector-width default there).
 *
 * The intrinsics are compiled for AVX-512F only (a target attribute, so
 * the file builds for any x86-64 and the rest of spsweep keeps the
 * machine's -march); the kernel checks the CPU it runs on and refuses,
 * with that reason, where AVX-512F is missing (runs stored as skipped),
 * or on a build that is not x86-64. The sums' order differs from the
 * serial loop's by a few ulps of the row's magnitude.
 */
#include <omp.h>

#include "../cpu_isa.h"
#include "../partition.h"
#include "spmv.h"

#define WHO "spmv_csr_omp_avx512"

static int avx512_usable(sp_err *err)
{
    return sp_require_avx512f(WHO, err);
}

#if SP_AVX512_BUILT
/* Row [k, end) of at least 8 nonzeros: two 8-wide sums, a masked tail. */
__attribute__((target("avx512f"))) static inline double
row_avx512(const int32_t *restrict col, const double *restrict val, const double *restrict x,
           int32_t k, int32_t end)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    for (; k + 16 <= end; k += 16) {
        __m512i c = _mm512_loadu_si512((const void *)(col + k));
        __m512d x0 = _mm512_i32gather_pd(_mm512_castsi512_si256(c), x, 8);
        __m512d x1 = _mm512_i32gather_pd(_mm512_extracti64x4_epi64(c, 1), x, 8);
        a0 = _mm512_fmadd_pd(_mm512_loadu_pd(val + k), x0, a0);
        a1 = _mm512_fmadd_pd(_mm512_loadu_pd(val + k + 8), x1, a1);
    }
    if (k + 8 <= end) {
        __m256i c = _mm256_loadu_si256((const __m256i *)(col + k));
        a0 = _mm512_fmadd_pd(_mm512_loadu_pd(val + k), _mm512_i32gather_pd(c, x, 8), a0);
        k += 8;
    }
    if (k < end) {
        __mmask8 m = (__mmask8)((1u << (end - k)) - 1u);
        __m256i c = _mm512_castsi512_si256(_mm512_maskz_loadu_epi32((__mmask16)m, col + k));
        __m512d xv = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, c, x, 8);
        a1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, val + k), xv, a1);
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
}

/* Rows [i0, i1). */
__attribute__((target("avx512f"))) static void rows_avx512(const sp_csr *A,
                                                           const double *restrict x,
                                                           double *restrict y, int32_t i0,
                                                           int32_t i1)
{
    const int32_t *restrict rp = A->rowptr, *restrict col = A->colidx;
    const double *restrict val = A->val;
    for (int32_t i = i0; i < i1; i++) {
        int32_t k = rp[i], end = rp[i + 1];
        y[i] = end - k >= 8 ? row_avx512(col, val, x, k, end)
                            : sp_spmv_csr_row4(col, val, x, k, end);
    }
}
#endif

static int avx512_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    *state = NULL;
    if (avx512_usable(err))
        return -1;
    return sp_spmv_cpu_prepare(pb, p, state, err);
}

static int avx512_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    if (avx512_usable(err))
        return -1;
    return sp_spmv_csr_y_need(pb, p, need, err);
}

static int avx512_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, WHO ": launch without a state");
#if SP_AVX512_BUILT
    const sp_csr *A = s->A;
#pragma omp parallel num_threads(s->threads) if (s->threads > 1)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        rows_avx512(A, s->x, s->y, sp_split_prefix(A->rowptr, A->rows, nt, t),
                    sp_split_prefix(A->rowptr, A->rows, nt, t + 1));
    }
    return 0;
#else
    return avx512_usable(err);
#endif
}

const sp_kernel sp_spmv_csr_omp_avx512 = {
    .name = WHO,
    .operation = "spmv",
    .format = "csr",
    .backend = "openmp",
    .summary = "CSR, equal nonzero shares, AVX-512 gathers, 16 nonzeros a step (AVX-512F CPUs)",
    .isa = "avx512f",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = avx512_prepare,
    .launch = avx512_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = avx512_need,
};
