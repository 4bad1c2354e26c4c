/*
 * spmv_bsr.c — SpMV on block sparse rows (kernels/bsr.h): spmv_bsr_omp,
 * the block rows split among the threads in equal shares of blocks (one
 * thread runs in the caller), the `block` axis the tile size.
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
#include "../partition.h"
#include "spmv.h"

#define WHO "spmv_bsr_omp"

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

static int block_param(const sp_params *p, int32_t *b, sp_err *err)
{
    long v = sp_param(p, "block", 3);
    if (v < 1 || v > SP_BSR_MAX_BLOCK)
        return sp_fail(err, WHO ": block = %ld outside 1..%d", v, SP_BSR_MAX_BLOCK);
    *b = (int32_t)v;
    return 0;
}

/* The layout, the conversion's tables and y. */
static int bsr_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int32_t b = 0, nb;
    int threads;
    int64_t stored;
    uint64_t bytes;
    if (check_problem(pb, err) || block_param(p, &b, err) ||
        sp_threads_param(p, WHO, &threads, err))
        return -1;
    if (sp_bsr_plan(pb->A, b, &nb, &stored, &bytes, err))
        return sp_fail_prefix(err, WHO);
    need->host_bytes = bytes + sp_bsr_work_bytes(pb->A, b, threads) +
                       ((uint64_t)pb->A->rows + 1) * sizeof(double) + sizeof(sp_spmv_bsr);
    need->device_bytes = 0;
    need->stored = (uint64_t)stored;
    return 0;
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
static int bsr_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    int32_t b = 0;
    int threads;
    *state = NULL;
    if (check_problem(pb, err) || block_param(p, &b, err) ||
        sp_threads_param(p, WHO, &threads, err))
        return -1;
    sp_spmv_bsr *s = calloc(1, sizeof *s);
    if (s)
        s->y = malloc(((size_t)pb->A->rows + 1) * sizeof(double));
    if (!s || !s->y) {
        free(s);
        return sp_fail(err, WHO ": out of memory for y (%d rows)", pb->A->rows);
    }
    if (sp_bsr_from_csr(&s->B, pb->A, b, threads, err)) {
        bsr_release(s);
        return sp_fail_prefix(err, WHO);
    }
    s->x = pb->x, s->threads = threads;
    *state = s;
    return 0;
}

static int bsr_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_bsr *s = state;
    if (!s)
        return sp_fail(err, WHO ": launch without a state");
    const sp_bsr *B = &s->B;
#pragma omp parallel num_threads(s->threads) if (s->threads > 1)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        bsr_range(B, sp_split_prefix(B->browptr, B->brows, nt, t),
                  sp_split_prefix(B->browptr, B->brows, nt, t + 1), s->x, s->y);
    }
    return 0;
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
