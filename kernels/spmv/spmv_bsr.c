/*
 * spmv_bsr.c — SpMV on block sparse rows (kernels/bsr.h): spmv_bsr_omp
 * (plain scalar code) and spmv_bsr_avx512 (below), the block rows split
 * among the threads in equal shares of blocks (one thread runs in the
 * caller), the `block` axis the tile size.
 *
 * A block is b·b values times b entries of x read from one place: each of
 * its rows is one short dot product (b multiply-adds, unrolled where b is
 * 1, 2, 3, 4, 6 or 8: the kernel is compiled once for each) added to the
 * row's sum, so the sums wait one add per block, not one per nonzero. The
 * last block column, when cols is not a multiple of b, is read only up to
 * the matrix's last column (x has no entries past it). The sums' order
 * differs from the serial loop's by a few ulps of the row's magnitude.
 *
 * Measured (bench/RESULTS.md, issue 23): on the GPU host's Sapphire
 * Rapids one thread of it at b = 3 runs bcsstk16 (a stiffness matrix of
 * 3 x 3 blocks: fill 1.02) level with MKL (139 against 135 us) and 1.3x
 * faster than our AVX-512 CSR; at 16 threads the AVX-512 kernels beat it.
 * Plain scalar code: no vector claim.
 */
#include <omp.h>
#include <stdlib.h>

#include "../bsr.h"
#include "../cpu_isa.h"
#include "../partition.h"
#include "spmv.h"

#define WHO "spmv_bsr_omp"
#define WHO_AVX "spmv_bsr_avx512"
/* x's b entries of one block in one 8-wide register */
#define SP_BSR_AVX512_MAX_BLOCK 8

typedef struct sp_spmv_bsr {
    sp_bsr B;
    const double *x;
    double *y;          /* rows + 1 entries */
    int threads;
} sp_spmv_bsr;

/* Block rows [I0, I1) of y = B·x, blocks of b (a constant where inlined). */
static inline __attribute__((always_inline)) void
bsr_rows(const sp_bsr *B, int32_t I0, int32_t I1, const double *restrict x, double *restrict y,
         const int32_t b)
{
    const int64_t bb = (int64_t)b * b;
    const int32_t whole = B->cols / b;      /* block columns inside the matrix */
    const int32_t *restrict bp = B->browptr, *restrict bcol = B->bcol;
    const double *restrict val = B->val;
    for (int32_t I = I0; I < I1; I++) {
        double s[SP_BSR_MAX_BLOCK];
        for (int32_t r = 0; r < b; r++)
            s[r] = 0.0;
        for (int32_t j = bp[I]; j < bp[I + 1]; j++) {
            const double *restrict v = val + j * bb;
            const int32_t bc = bcol[j];
            const double *restrict xb = x + (int64_t)bc * b;
            const int32_t w = bc < whole ? b : B->cols - bc * b;
            if (w == b) {
                for (int32_t r = 0; r < b; r++) {
                    double t = 0.0;
                    for (int32_t c = 0; c < b; c++)
                        t += v[r * b + c] * xb[c];
                    s[r] += t;
                }
            } else {
                for (int32_t r = 0; r < b; r++) {
                    double t = 0.0;
                    for (int32_t c = 0; c < w; c++)
                        t += v[r * b + c] * xb[c];
                    s[r] += t;
                }
            }
        }
        int64_t r0 = (int64_t)I * b;
        int32_t n = B->rows - r0 < b ? (int32_t)(B->rows - r0) : b;
        for (int32_t r = 0; r < n; r++)
            y[r0 + r] = s[r];
    }
}

static void bsr_range(const sp_bsr *B, int32_t I0, int32_t I1, const double *x, double *y)
{
    switch (B->b) {
    case 1: bsr_rows(B, I0, I1, x, y, 1); break;
    case 2: bsr_rows(B, I0, I1, x, y, 2); break;
    case 3: bsr_rows(B, I0, I1, x, y, 3); break;
    case 4: bsr_rows(B, I0, I1, x, y, 4); break;
    case 6: bsr_rows(B, I0, I1, x, y, 6); break;
    case 8: bsr_rows(B, I0, I1, x, y, 8); break;
    default: bsr_rows(B, I0, I1, x, y, B->b); break;
    }
}

static int check_problem(const sp_problem *pb, sp_err *err)
{
    if (!pb || !pb->A || (!pb->x && pb->A->cols > 0))
        return sp_fail(err, WHO ": problem without a matrix or x");
    return 0;
}

static int block_param(const sp_params *p, const char *who, int32_t max, int32_t *b,
                       sp_err *err)
{
    long v = sp_param(p, "block", 3);
    if (v < 1 || v > max)
        return sp_fail(err, "%s: block = %ld outside 1..%d", who, v, max);
    *b = (int32_t)v;
    return 0;
}

/* The layout, the conversion's tables and y. */
static int need_as(const sp_problem *pb, const sp_params *p, sp_need *need, const char *who,
                   int32_t max, sp_err *err)
{
    int32_t b = 0, nb;
    int threads;
    int64_t stored;
    uint64_t bytes;
    if (check_problem(pb, err) || block_param(p, who, max, &b, err) ||
        sp_threads_param(p, who, &threads, err))
        return -1;
    if (sp_bsr_plan(pb->A, b, &nb, &stored, &bytes, err))
        return sp_fail_prefix(err, who);
    need->host_bytes = bytes + sp_bsr_work_bytes(pb->A, b, threads) +
                       ((uint64_t)pb->A->rows + 1) * sizeof(double) + sizeof(sp_spmv_bsr);
    need->device_bytes = 0;
    need->stored = (uint64_t)stored;
    return 0;
}

static int bsr_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    return need_as(pb, p, need, WHO, SP_BSR_MAX_BLOCK, err);
}

static void bsr_release(void *state)
{
    sp_spmv_bsr *s = state;
    if (s) {
        sp_bsr_free(&s->B);
        free(s->y);
    }
    free(s);
}

/* Check the axes, allocate y, convert (timed by the harness: convert_s). */
static int prepare_as(const sp_problem *pb, const sp_params *p, void **state, const char *who,
                      int32_t max, sp_err *err)
{
    int32_t b = 0;
    int threads;
    *state = NULL;
    if (check_problem(pb, err) || block_param(p, who, max, &b, err) ||
        sp_threads_param(p, who, &threads, err))
        return -1;
    sp_spmv_bsr *s = calloc(1, sizeof *s);
    if (s)
        s->y = malloc(((size_t)pb->A->rows + 1) * sizeof(double));
    if (!s || !s->y) {
        free(s);
        return sp_fail(err, "%s: out of memory for y (%d rows)", who, pb->A->rows);
    }
    if (sp_bsr_from_csr(&s->B, pb->A, b, threads, err)) {
        bsr_release(s);
        return sp_fail_prefix(err, who);
    }
    s->x = pb->x, s->threads = threads;
    *state = s;
    return 0;
}

static int bsr_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    return prepare_as(pb, p, state, WHO, SP_BSR_MAX_BLOCK, err);
}

typedef void bsr_range_fn(const sp_bsr *B, int32_t I0, int32_t I1, const double *x, double *y);

/* y = B·x with range over the threads' equal shares of blocks. */
static int launch_with(const sp_spmv_bsr *s, bsr_range_fn *range, const char *who, sp_err *err)
{
    if (!s)
        return sp_fail(err, "%s: launch without a state", who);
    const sp_bsr *B = &s->B;
#pragma omp parallel num_threads(s->threads) if (s->threads > 1)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        range(B, sp_split_prefix(B->browptr, B->brows, nt, t),
              sp_split_prefix(B->browptr, B->brows, nt, t + 1), s->x, s->y);
    }
    return 0;
}

static int bsr_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    return launch_with(state, bsr_range, WHO, err);
}

static int bsr_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_spmv_bsr *s = state;
    double *y = out;
    (void)ex;
    if (!s || !y)
        return sp_fail(err, WHO ": result without a state or an output buffer");
    for (int32_t i = 0; i < s->B.rows; i++)
        y[i] = s->y[i];
    return 0;
}

const sp_kernel sp_spmv_bsr_omp = {
    .name = WHO,
    .operation = "spmv",
    .format = "bsr",
    .backend = "openmp",
    .summary = "BSR (dense b x b blocks, one column index each), block rows split by blocks",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {"block", "2,3,4", "1..16"}},
    .prepare = bsr_prepare,
    .launch = bsr_launch,
    .result = bsr_result,
    .release = bsr_release,
    .need = bsr_need,
};

/* spmv_bsr_avx512: the same layout, each block one multiply-add of its
 * b·b values (row-major, in ceil(b·b / 8) registers, the last one under a
 * mask) by x's b entries repeated across them (x loaded once under a mask
 * of b lanes, spread by one permutation a register: lane e holds
 * x[e % b]); the products are summed lane by lane over the block row, two
 * blocks at a time into two sets of sums, and each row's b lanes added
 * once at the block row's end. Compared with spmv_bsr_omp, b·b scalar
 * multiply-adds and b x loads a block become ceil(b·b / 8) vector ones and
 * one masked load; at b = 3 (bcsstk16) two. The last block column's x is
 * loaded only up to the matrix's last column (the lanes past it zero, so
 * its padding multiplies 0). Blocks of 1..8 (x in one register); AVX-512F
 * CPUs, refused with the reason elsewhere (as spmv_csr_omp_avx512). The
 * sums' order differs from the serial loop's by a few ulps of the row's
 * magnitude. */
#if SP_AVX512_BUILT
/* One block's products added into acc[0 .. nv) (and, where b·b is one
 * more than a multiple of 8, the last value's into the scalar sc), x
 * loaded under mask m. */
#define BSR_AVX_BLOCK(j, acc, sc, m)                                               \
    do {                                                                           \
        const int32_t bc_ = bcol[j];                                               \
        const double *xb_ = x + (int64_t)bc_ * b;                                  \
        const __m512d xv_ = _mm512_maskz_loadu_pd(m, xb_);                         \
        const double *v_ = val + (int64_t)(j) * bb;                                \
        for (int k_ = 0; k_ < nv - (tail != 0xffu); k_++)                          \
            acc[k_] = _mm512_fmadd_pd(_mm512_loadu_pd(v_ + 8 * k_),                \
                                      _mm512_permutexvar_pd(idx[k_], xv_), acc[k_]); \
        if (tail != 0xffu)                                                         \
            acc[nv - 1] = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(tail, v_ + 8 * (nv - 1)), \
                                          _mm512_permutexvar_pd(idx[nv - 1], xv_), \
                                          acc[nv - 1]);                            \
        if (single)                                                                \
            sc = __builtin_fma(v_[bb - 1], (m) == full || bb == 1 ? xb_[b - 1] : 0.0, sc); \
    } while (0)

/* (gcc cannot see that the stores into t cover the b·b lanes read) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) void
bsr_rows_avx512(const sp_bsr *B, int32_t I0, int32_t I1, const double *restrict x,
                double *restrict y, const int32_t b)
{
    /* b·b = 8·q + 1 (b = 3, 5, 7): its last value in scalar code, which
     * spares a permutation and a vector multiply-add for one lane */
    const int32_t bb = b * b, single = b > 1 && bb % 8 == 1;
    const int32_t nv = (bb - single + 7) / 8;
    const unsigned tail = (bb - single) % 8 ? (1u << ((bb - single) % 8)) - 1u : 0xffu;
    const __mmask8 full = (__mmask8)((1u << b) - 1u);
    const int32_t whole = B->cols / b;
    const __mmask8 part = (__mmask8)((1u << (B->cols - whole * b)) - 1u);
    const int32_t *restrict bp = B->browptr, *restrict bcol = B->bcol;
    const double *restrict val = B->val;
    __m512i idx[SP_BSR_AVX512_MAX_BLOCK];
    for (int k = 0; k < nv; k++) {
        long long e[8];
        for (int i = 0; i < 8; i++)
            e[i] = (8 * k + i) % b;
        idx[k] = _mm512_loadu_si512((const void *)e);
    }
    /* b <= 4: lane r of ridx[q] picks lane r·b+q of the block row's sums
     * (0..7 the first register, 8..15 the second) */
    __m512i ridx[4];
    for (int q = 0; q < 4; q++) {
        long long e[8];
        for (int r = 0; r < 8; r++)
            e[r] = r < b && q < b ? r * b + q : 0;
        ridx[q] = _mm512_loadu_si512((const void *)e);
    }
    for (int32_t I = I0; I < I1; I++) {
        __m512d a[SP_BSR_AVX512_MAX_BLOCK], c[SP_BSR_AVX512_MAX_BLOCK];
        __m512d d[SP_BSR_AVX512_MAX_BLOCK], e[SP_BSR_AVX512_MAX_BLOCK];
        double sa = 0.0, sc = 0.0, sd = 0.0, se = 0.0;
        for (int k = 0; k < nv; k++)
            a[k] = c[k] = d[k] = e[k] = _mm512_setzero_pd();
        int32_t j = bp[I];
        const int32_t end = bp[I + 1];
        /* block columns ascend, so only a row's last block can be the
         * partial last column: the others load x under the constant mask */
        if (j < end) {
            if (nv <= 2)    /* four sets of sums in flight (they fit the 32 registers) */
                for (; j + 5 <= end; j += 4) {
                    BSR_AVX_BLOCK(j, a, sa, full);
                    BSR_AVX_BLOCK(j + 1, c, sc, full);
                    BSR_AVX_BLOCK(j + 2, d, sd, full);
                    BSR_AVX_BLOCK(j + 3, e, se, full);
                }
            for (; j + 3 <= end; j += 2) {
                BSR_AVX_BLOCK(j, a, sa, full);
                BSR_AVX_BLOCK(j + 1, c, sc, full);
            }
            if (j + 2 == end) {
                BSR_AVX_BLOCK(j, c, sc, full);
                j++;
            }
            if (bcol[j] < whole)
                BSR_AVX_BLOCK(j, a, sa, full);
            else
                BSR_AVX_BLOCK(j, a, sa, part);
        }
        const int64_t r0 = (int64_t)I * b;
        const int32_t n = B->rows - r0 < b ? (int32_t)(B->rows - r0) : b;
        if (b <= 4) {
            /* b·b <= 16 lanes in two registers: row r's sum is lanes
             * r·b .. r·b+b-1, gathered by b two-source permutations into
             * lane r, stored under a mask of the block row's n rows */
            const __m512d c0 = _mm512_add_pd(_mm512_add_pd(a[0], c[0]), _mm512_add_pd(d[0], e[0]));
            const __m512d c1 = nv > 1 ? _mm512_add_pd(_mm512_add_pd(a[1], c[1]),
                                                      _mm512_add_pd(d[1], e[1]))
                               : single ? _mm512_set1_pd((sa + sc) + (sd + se))
                                        : _mm512_setzero_pd();
            __m512d ys = _mm512_permutex2var_pd(c0, ridx[0], c1);
            for (int32_t q = 1; q < b; q++)
                ys = _mm512_add_pd(ys, _mm512_permutex2var_pd(c0, ridx[q], c1));
            _mm512_mask_storeu_pd(y + r0, (__mmask8)((1u << n) - 1u), ys);
            continue;
        }
        double t[8 * SP_BSR_AVX512_MAX_BLOCK];
        for (int k = 0; k < nv; k++)
            _mm512_storeu_pd(t + 8 * k, _mm512_add_pd(_mm512_add_pd(a[k], c[k]),
                                                      _mm512_add_pd(d[k], e[k])));
        if (single)
            t[bb - 1] = (sa + sc) + (sd + se);
        for (int32_t r = 0; r < n; r++) {
            double s = 0.0;
            for (int32_t q = 0; q < b; q++)
                s += t[r * b + q];
            y[r0 + r] = s;
        }
    }
}
#pragma GCC diagnostic pop
#undef BSR_AVX_BLOCK

__attribute__((target("avx512f"))) static void
bsr_range_avx512(const sp_bsr *B, int32_t I0, int32_t I1, const double *x, double *y)
{
    switch (B->b) {
    case 1: bsr_rows_avx512(B, I0, I1, x, y, 1); break;
    case 2: bsr_rows_avx512(B, I0, I1, x, y, 2); break;
    case 3: bsr_rows_avx512(B, I0, I1, x, y, 3); break;
    case 4: bsr_rows_avx512(B, I0, I1, x, y, 4); break;
    case 5: bsr_rows_avx512(B, I0, I1, x, y, 5); break;
    case 6: bsr_rows_avx512(B, I0, I1, x, y, 6); break;
    case 7: bsr_rows_avx512(B, I0, I1, x, y, 7); break;
    default: bsr_rows_avx512(B, I0, I1, x, y, 8); break;
    }
}
#endif

static int avx_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    if (sp_require_avx512f(WHO_AVX, err))
        return -1;
    return need_as(pb, p, need, WHO_AVX, SP_BSR_AVX512_MAX_BLOCK, err);
}

static int avx_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    *state = NULL;
    if (sp_require_avx512f(WHO_AVX, err))
        return -1;
    return prepare_as(pb, p, state, WHO_AVX, SP_BSR_AVX512_MAX_BLOCK, err);
}

static int avx_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
#if SP_AVX512_BUILT
    return launch_with(state, bsr_range_avx512, WHO_AVX, err);
#else
    (void)state;
    return sp_require_avx512f(WHO_AVX, err);
#endif
}

const sp_kernel sp_spmv_bsr_avx512 = {
    .name = WHO_AVX,
    .operation = "spmv",
    .format = "bsr",
    .backend = "openmp",
    .summary = "BSR as spmv_bsr_omp, each block's b x b values in AVX-512 multiply-adds "
               "against x spread by a permutation (AVX-512F CPUs)",
    .isa = "avx512f",
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {"block", "2,3,4", "1..8"}},
    .prepare = avx_prepare,
    .launch = avx_launch,
    .result = bsr_result,
    .release = bsr_release,
    .need = avx_need,
};
