/*
 * dia.c — CSR to the diagonal format (layout and refusal rule in dia.h):
 * the offsets present are marked in a table of one cell per possible
 * offset (in parallel over rows), numbered in ascending order (a parallel
 * count and prefix over the table), then the values are zeroed and
 * scattered to val[d·rows + i] (in parallel over rows: each row writes
 * only its own slots).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dia.h"

/* More stored values than this and the bytes (8 each, plus the GPU's
 * rounding) would not fit in 63 bits. */
#define SP_DIA_MAX_STORED (INT64_MAX / 16)

/* Possible offsets col − row: rows + cols − 1 (none in an empty shape).
 * Offset o sits in cell o + rows − 1. */
static int64_t span_of(const sp_csr *A)
{
    return A->rows > 0 && A->cols > 0 ? (int64_t)A->rows + A->cols - 1 : 0;
}

static int check_matrix(const sp_csr *A, sp_err *err)
{
    if (!A || A->rows < 0 || A->cols < 0 || A->nnz < 0 || (A->rows > 0 && !A->rowptr))
        return sp_fail(err, "DIA: no matrix or an invalid shape");
    return 0;
}

int sp_dia_size(const sp_csr *A, int64_t nd, int32_t *ndiags, int64_t *stored,
                uint64_t *bytes, sp_err *err)
{
    if (nd > INT32_MAX)
        return sp_fail(err, "DIA refused: %lld diagonals in a %d x %d matrix, more than the "
                       "2^31-1 that 32-bit counts and offsets address", (long long)nd, A->rows,
                       A->cols);
    if (A->rows > 0 && nd > SP_DIA_MAX_STORED / A->rows)
        return sp_fail(err, "DIA refused: %lld diagonals x %d rows = %.3g stored values "
                       "(padding included) for %d nonzeros, more than 64-bit byte counts hold",
                       (long long)nd, A->rows, (double)nd * A->rows, A->nnz);
    *ndiags = (int32_t)nd;
    *stored = nd * A->rows;
    *bytes = (uint64_t)*stored * sizeof(double) + (uint64_t)nd * sizeof(int32_t);
    return 0;
}

int sp_dia_plan(const sp_csr *A, int32_t *ndiags, int64_t *stored, uint64_t *bytes,
                sp_err *err)
{
    if (check_matrix(A, err))
        return -1;
    int64_t n = span_of(A), nd = 0;
    unsigned char *seen = calloc((size_t)(n ? n : 1), 1);
    if (!seen)
        return sp_fail(err, "DIA: out of memory for %lld offset flags", (long long)n);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t o = (int64_t)A->colidx[k] - i + A->rows - 1;
            nd += !seen[o];
            seen[o] = 1;
        }
    free(seen);
    return sp_dia_size(A, nd, ndiags, stored, bytes, err);
}

uint64_t sp_dia_work_bytes(const sp_csr *A)
{
    int64_t n = A ? span_of(A) : 0;
    return (uint64_t)(n ? n : 1) * sizeof(int32_t);
}

/* cell[o] = 1 for every offset present, 0 elsewhere. A cell is written
 * only when it reads 0: on a stencil every thread hits the same few cells,
 * and writing each time kept their cache lines moving between cores (the
 * first H100 sweep: 840-980 ms of conversion on laplace2d/3d); once set, a
 * cell is only read, and the lines stay shared. */
static void mark_offsets(const sp_csr *A, int32_t *cell, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < n; o++)
        cell[o] = 0;
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t o = (int64_t)A->colidx[k] - i + A->rows - 1;
            int32_t seen;
#pragma omp atomic read relaxed
            seen = cell[o];
            if (!seen) {
#pragma omp atomic write relaxed
                cell[o] = 1;
            }
        }
}

/* Marked cells numbered 0, 1, ... in ascending order, the others -1: each
 * thread counts its part of the table, a prefix over the counts, then
 * each numbers its part. Returns the number of diagonals, -1 when out of
 * memory. */
static int64_t number_offsets(int32_t *cell, int64_t n)
{
    int64_t *first = calloc((size_t)omp_get_max_threads() + 1, sizeof *first);
    if (!first)
        return -1;
    int64_t total = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo = n * t / nt, hi = n * (t + 1) / nt, c = 0;
        for (int64_t o = lo; o < hi; o++)
            c += cell[o] != 0;
        first[t + 1] = c;
#pragma omp barrier
#pragma omp single
        {
            for (int u = 0; u < nt; u++)
                first[u + 1] += first[u];
            total = first[nt];
        }
        int64_t d = first[t];
        for (int64_t o = lo; o < hi; o++)
            cell[o] = cell[o] ? (int32_t)d++ : -1;
    }
    free(first);
    return total;
}

/* n bytes, 64-byte aligned (2 MiB from 4 MiB up, by sp_alloc_large). */
static void *alloc64(size_t n)
{
    void *p = NULL;
    if (n >= ((size_t)4 << 20))
        return sp_alloc_large(n);
    return posix_memalign(&p, 64, n ? n : 64) ? NULL : p;
}

/* Offsets from the numbered table, values zeroed, then A's entries added
 * into their slots (+=: duplicates sum). */
static void fill(sp_dia *D, const sp_csr *A, const int32_t *cell, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < n; o++)
        if (cell[o] >= 0)
            D->offset[cell[o]] = (int32_t)(o - (A->rows - 1));
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < D->stored; q++)
        D->val[q] = 0.0;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t o = (int64_t)A->colidx[k] - i + A->rows - 1;
            D->val[(int64_t)cell[o] * A->rows + i] += A->val[k];
        }
}

int sp_dia_from_csr(sp_dia *D, const sp_csr *A, sp_err *err)
{
    if (!D)
        return sp_fail(err, "DIA: no output layout");
    memset(D, 0, sizeof *D);
    if (check_matrix(A, err))
        return -1;
    int64_t n = span_of(A);
    int32_t *cell = sp_alloc_large(sp_dia_work_bytes(A));
    if (!cell)
        return sp_fail(err, "DIA: out of memory for %lld offset cells", (long long)n);
    mark_offsets(A, cell, n);
    int64_t nd = number_offsets(cell, n), stored = 0;
    int32_t ndiags = 0;
    uint64_t bytes = 0;
    if (nd < 0 || sp_dia_size(A, nd, &ndiags, &stored, &bytes, err)) {
        free(cell);
        return nd < 0 ? sp_fail(err, "DIA: out of memory numbering the offsets") : -1;
    }
    D->rows = A->rows, D->cols = A->cols, D->nnz = A->nnz;
    D->ndiags = ndiags, D->stored = stored;
    D->offset = malloc(((size_t)ndiags + 1) * sizeof *D->offset);
    D->val = alloc64((size_t)stored * sizeof *D->val);
    if (!D->offset || !D->val) {
        free(cell);
        sp_dia_free(D);
        return sp_fail(err, "out of memory for a DIA of %d diagonals x %d rows (%llu bytes)",
                       ndiags, A->rows, (unsigned long long)bytes);
    }
    fill(D, A, cell, n);
    free(cell);
    return 0;
}

void sp_dia_free(sp_dia *D)
{
    if (!D)
        return;
    free(D->offset);
    free(D->val);
    memset(D, 0, sizeof *D);
}
