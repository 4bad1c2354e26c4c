/*
 * bsr.c — CSR to block sparse rows (layout and refusal rule in bsr.h): the
 * blocks of each block row counted with a tag per block column (the tag is
 * the block row's number, so the table is never cleared), a prefix over
 * the counts, then per block row its block columns collected, sorted
 * ascending, numbered, its values zeroed and A's entries added into their
 * slots. Both passes run in parallel over block rows (dynamic: one dense
 * row makes one block row as costly as thousands), each thread with its
 * own tables; every block row writes only its own blocks.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bsr.h"

/* More stored values than this and the bytes would not fit in 63 bits. */
#define SP_BSR_MAX_STORED (INT64_MAX / 16)

static int check(const sp_csr *A, int32_t b, sp_err *err)
{
    if (!A || A->rows < 0 || A->cols < 0 || A->nnz < 0 || (A->rows > 0 && !A->rowptr))
        return sp_fail(err, "BSR: no matrix or an invalid shape");
    if (b < 1 || b > SP_BSR_MAX_BLOCK)
        return sp_fail(err, "BSR: block = %d outside 1..%d", b, SP_BSR_MAX_BLOCK);
    return 0;
}

static int32_t blocks_of(int32_t n, int32_t b)
{
    return (int32_t)(((int64_t)n + b - 1) / b);
}

/* The refusal rule for nb blocks, then the sizes. */
static int size_of(const sp_csr *A, int32_t b, int64_t nb, int32_t *nblocks, int64_t *stored,
                   uint64_t *bytes, sp_err *err)
{
    int64_t bb = (int64_t)b * b;
    if (nb > INT32_MAX)
        return sp_fail(err, "BSR refused: %lld blocks of %d x %d in a %d x %d matrix, more than "
                       "the 2^31-1 that 32-bit block pointers address", (long long)nb, b, b,
                       A->rows, A->cols);
    if (nb > SP_BSR_MAX_STORED / bb)
        return sp_fail(err, "BSR refused: %lld blocks of %d x %d = %.3g stored values, more "
                       "than 64-bit byte counts hold", (long long)nb, b, b, (double)nb * bb);
    *nblocks = (int32_t)nb;
    *stored = nb * bb;
    *bytes = (uint64_t)*stored * sizeof(double) + (uint64_t)nb * sizeof(int32_t) +
             ((uint64_t)blocks_of(A->rows, b) + 1) * sizeof(int32_t);
    return 0;
}

/* Rows of block row I: [*r0, *r1). */
static void rows_of(const sp_csr *A, int32_t b, int32_t I, int32_t *r0, int32_t *r1)
{
    int64_t lo = (int64_t)I * b, hi = lo + b;
    *r0 = (int32_t)lo;
    *r1 = (int32_t)(hi < A->rows ? hi : A->rows);
}

/* The block columns of block row I, in order of first appearance, into
 * out (when not NULL); their count. tag[bc] becomes I + 1 for each. */
static int64_t collect_row(const sp_csr *A, int32_t b, int32_t I, int32_t *tag, int32_t *out)
{
    int32_t r0, r1;
    int64_t n = 0;
    rows_of(A, b, I, &r0, &r1);
    for (int32_t r = r0; r < r1; r++)
        for (int32_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
            int32_t bc = A->colidx[k] / b;
            if (tag[bc] != I + 1) {
                tag[bc] = I + 1;
                if (out)
                    out[n] = bc;
                n++;
            }
        }
    return n;
}

int sp_bsr_plan(const sp_csr *A, int32_t b, int32_t *nblocks, int64_t *stored,
                uint64_t *bytes, sp_err *err)
{
    if (check(A, b, err))
        return -1;
    int32_t brows = blocks_of(A->rows, b), bcols = blocks_of(A->cols, b);
    int32_t *tag = calloc((size_t)(bcols ? bcols : 1), sizeof *tag);
    if (!tag)
        return sp_fail(err, "BSR: out of memory for %d block-column tags", bcols);
    int64_t nb = 0;
    for (int32_t I = 0; I < brows; I++)
        nb += collect_row(A, b, I, tag, NULL);
    free(tag);
    return size_of(A, b, nb, nblocks, stored, bytes, err);
}

uint64_t sp_bsr_work_bytes(const sp_csr *A, int32_t b, int threads)
{
    int32_t bcols = A && b >= 1 ? blocks_of(A->cols, b) : 0;
    return (uint64_t)(threads > 0 ? threads : 1) * 2 * (uint64_t)(bcols ? bcols : 1) *
           sizeof(int32_t);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Block row I of B: its block columns, sorted, then its values. */
static void fill_row(sp_bsr *B, const sp_csr *A, int32_t I, int32_t *tag, int32_t *pos)
{
    const int32_t b = B->b;
    const int64_t bb = (int64_t)b * b, base = B->browptr[I];
    int32_t r0, r1, n = (int32_t)collect_row(A, b, I, tag, B->bcol + base);
    rows_of(A, b, I, &r0, &r1);
    qsort(B->bcol + base, (size_t)n, sizeof(int32_t), cmp_i32);
    for (int32_t j = 0; j < n; j++)
        pos[B->bcol[base + j]] = j;
    double *v = B->val + base * bb;
    memset(v, 0, (size_t)(n * bb) * sizeof(double));
    for (int32_t r = r0; r < r1; r++)
        for (int32_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
            int32_t c = A->colidx[k];
            v[pos[c / b] * bb + (int64_t)(r - r0) * b + c % b] += A->val[k];
        }
}

int sp_bsr_from_csr(sp_bsr *B, const sp_csr *A, int32_t b, int threads, sp_err *err)
{
    memset(B, 0, sizeof *B);
    if (check(A, b, err))
        return -1;
    if (threads < 1)
        threads = 1;
    B->rows = A->rows, B->cols = A->cols, B->nnz = A->nnz, B->b = b;
    B->brows = blocks_of(A->rows, b), B->bcols = blocks_of(A->cols, b);
    const size_t tags = (size_t)(B->bcols ? B->bcols : 1);
    B->browptr = calloc((size_t)B->brows + 1, sizeof(int32_t));
    int64_t *count = malloc(((size_t)B->brows + 1) * sizeof *count);
    int failed = !B->browptr || !count;
    if (!failed) {
#pragma omp parallel num_threads(threads) reduction(| : failed)
        {
            int32_t *tag = calloc(tags, sizeof *tag);
            failed = !tag;
#pragma omp for schedule(dynamic, 64)
            for (int32_t I = 0; I < B->brows; I++)
                count[I] = tag ? collect_row(A, b, I, tag, NULL) : 0;
            free(tag);
        }
    }
    int64_t nb = 0;
    if (!failed)
        for (int32_t I = 0; I < B->brows; I++) {
            nb += count[I];
            if (nb > INT32_MAX)
                break;
            B->browptr[I + 1] = (int32_t)nb;
        }
    free(count);
    if (failed) {
        sp_bsr_free(B);
        return sp_fail(err, "BSR: out of memory for the block counts of %d block rows",
                       blocks_of(A->rows, b));
    }
    uint64_t bytes;
    if (size_of(A, b, nb, &B->nblocks, &B->stored, &bytes, err)) {
        sp_bsr_free(B);
        return -1;
    }
    B->bcol = sp_alloc_large((size_t)(nb ? nb : 1) * sizeof(int32_t));
    B->val = sp_alloc_large((size_t)(B->stored ? B->stored : 1) * sizeof(double));
    if (!B->bcol || !B->val) {
        int64_t stored = B->stored;
        sp_bsr_free(B);
        return sp_fail(err, "BSR: out of memory for %lld blocks (%.1f MB)", (long long)nb,
                       (double)stored * 8 / 1e6);
    }
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        int32_t *tag = calloc(tags, sizeof *tag), *pos = malloc(tags * sizeof *pos);
        failed = !tag || !pos;
#pragma omp for schedule(dynamic, 64)
        for (int32_t I = 0; I < B->brows; I++)
            if (tag && pos)
                fill_row(B, A, I, tag, pos);
        free(tag);
        free(pos);
    }
    if (failed) {
        sp_bsr_free(B);
        return sp_fail(err, "BSR: out of memory for the conversion's block-column tables");
    }
    return 0;
}

void sp_bsr_free(sp_bsr *B)
{
    if (!B)
        return;
    free(B->browptr);
    free(B->bcol);
    free(B->val);
    memset(B, 0, sizeof *B);
}
