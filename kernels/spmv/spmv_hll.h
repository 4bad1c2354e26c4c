/*
 * spmv_hll.h — what the ELLPACK and HLL SpMV kernels share: the state (the
 * converted matrix, x, y, threads, chunk), prepare/need/result/release for
 * each layout, and the inner loops.
 *
 *   spmv_ell.c          ELLPACK (column-major, one hack), serial and OpenMP
 *   spmv_hll.c          HLL row-major: serial, OpenMP static/dynamic/nnz-balanced
 *   spmv_hll_aligned.c  HLL column-major, 64-byte aligned: serial and OpenMP
 */
#ifndef SP_SPMV_HLL_H
#define SP_SPMV_HLL_H

#include <assert.h>

#include "../hll.h"
#include "spmv.h"

/* Rows one column-major pass keeps in flight: y[strip] stays in L1 while
 * the pass walks the columns. A strip starts SP_ELL_STRIP rows into its
 * hack, so it keeps the columns' alignment (hll.h). */
#define SP_ELL_STRIP 512
_Static_assert(SP_ELL_STRIP % SP_HLL_ALIGN_ROWS == 0,
               "a strip must start on an aligned row of its hack");

typedef struct sp_spmv_hll {
    sp_hll H;
    const double *x;
    double *y;          /* rows entries */
    int threads;        /* the `threads` axis, 1 when absent */
    int chunk;          /* the `chunk` axis (hacks per dynamic chunk), 1 when absent */
} sp_spmv_hll;

/* Row-major HLL, hacks [h0, h1): each row's width[h] entries are
 * contiguous, summed in CSR order. */
static inline void sp_spmv_hll_rowmajor(const sp_hll *H, int32_t h0, int32_t h1,
                                        const double *restrict x, double *restrict y)
{
    for (int32_t h = h0; h < h1; h++) {
        const int32_t w = H->width[h], n = sp_hll_hack_rows(H, h);
        const double *v = H->val + H->off[h];
        const int32_t *c = H->col + H->off[h];
        double *yh = y + (int64_t)h * H->hack;
        for (int32_t i = 0; i < n; i++) {
            double sum = 0.0;
            for (int32_t k = 0; k < w; k++)
                sum += v[(int64_t)i * w + k] * x[c[(int64_t)i * w + k]];
            yh[i] = sum;
        }
    }
}

/* Column-major: n rows starting at v, c (SP_HLL_ALIGN_BYTES aligned,
 * columns ld apart, ld a multiple of SP_HLL_ALIGN_ROWS: hll.h says why
 * that holds), w columns, into y[0..n). The loop down a column has unit
 * stride in v, c and y and no dependence between rows: it vectorizes
 * (gathers for x). Sums in CSR order, as the serial kernel does. The
 * assertion is the `aligned` clause's claim, checked once per call. */
static inline void sp_spmv_colmajor_rows(const double *restrict v, const int32_t *restrict c,
                                         int64_t ld, int32_t w, int32_t n,
                                         const double *restrict x, double *restrict y)
{
    assert(sp_is_aligned(v, SP_HLL_ALIGN_BYTES) && sp_is_aligned(c, SP_HLL_ALIGN_BYTES) &&
           ld % SP_HLL_ALIGN_ROWS == 0);
    for (int32_t i = 0; i < n; i++)
        y[i] = 0.0;
    for (int32_t k = 0; k < w; k++) {
        const double *restrict vk = v + (int64_t)k * ld;
        const int32_t *restrict ck = c + (int64_t)k * ld;
#pragma omp simd aligned(vk, ck : SP_HLL_ALIGN_BYTES)
        for (int32_t i = 0; i < n; i++)
            y[i] += vk[i] * x[ck[i]];
    }
}

/* The strip of a column-major hack h that starts at local row s (a
 * multiple of SP_ELL_STRIP): its first column's values and columns. The
 * one place the kernels form the pointers they claim aligned
 * (tests/test_align.c walks every one of them). */
static inline void sp_hll_strip(const sp_hll *H, int32_t h, int32_t s, const double **v,
                                const int32_t **c)
{
    *v = H->val + H->off[h] + s;
    *c = H->col + H->off[h] + s;
}

/* Column-major HLL (or ELLPACK), hacks [h0, h1), each in strips of
 * SP_ELL_STRIP rows. */
static inline void sp_spmv_hll_colmajor(const sp_hll *H, int32_t h0, int32_t h1,
                                        const double *restrict x, double *restrict y)
{
    for (int32_t h = h0; h < h1; h++) {
        const int32_t n = sp_hll_hack_rows(H, h);
        for (int32_t s = 0; s < n; s += SP_ELL_STRIP) {
            const double *v;
            const int32_t *c;
            sp_hll_strip(H, h, s, &v, &c);
            sp_spmv_colmajor_rows(v, c, H->ld, H->width[h],
                                  n - s < SP_ELL_STRIP ? n - s : SP_ELL_STRIP, x,
                                  y + (int64_t)h * H->hack + s);
        }
    }
}

/* y = A·x over hacks split among s->threads threads by stored entries
 * (a prefix search over off[]), in the layout's own loop. */
void sp_spmv_hll_balanced(const sp_spmv_hll *s);

/* prepare (the conversion: the harness times it as convert_s) and need for
 * each layout: ELLPACK, HLL row-major with the `hack` axis, HLL
 * column-major aligned. */
int sp_spmv_ell_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_spmv_ell_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
int sp_spmv_hll_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_spmv_hll_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
int sp_spmv_hll_aligned_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                sp_err *err);
int sp_spmv_hll_aligned_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                             sp_err *err);
/* The aligned (column-major) kernels' layout options from p's `hack` axis
 * (its default when absent), as their prepare builds it. */
int sp_spmv_hll_aligned_layout(const sp_params *p, sp_hll_opts *o, sp_err *err);
int sp_spmv_hll_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_spmv_hll_release(void *state);

#endif
