/*
 * prim_serial.c — the serial versions of the GPU primitives (prim.h): the
 * references of their operations and of the GPU tests.
 */
#include <stdlib.h>
#include <string.h>

#include "prim.h"

void sp_scan_serial(const int32_t *in, int32_t *out, int64_t n)
{
    int32_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t v = in[i];      /* read before the write: out may be in */
        out[i] = sum;
        sum += v;
    }
    out[n] = sum;
}

void sp_histogram_serial(const int32_t *idx, int64_t n, int32_t *counts, int32_t bins)
{
    memset(counts, 0, (size_t)bins * sizeof *counts);
    for (int64_t i = 0; i < n; i++)
        counts[idx[i]]++;
}

void sp_idx2ptr_serial(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins)
{
    int64_t i = 0;
    for (int32_t b = 0; b <= bins; b++) {
        while (i < n && sorted[i] < b)
            i++;
        ptr[b] = (int32_t)i;
    }
}

void sp_ptr2idx_serial(const int32_t *ptr, int32_t nseg, int32_t *idx)
{
    for (int32_t s = 0; s < nseg; s++)
        for (int32_t k = ptr[s]; k < ptr[s + 1]; k++)
            idx[k] = s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void sp_segsort_serial(uint64_t *keys, int64_t n, int64_t seg)
{
    for (int64_t s = 0; s < n; s += seg)
        qsort(keys + s, (size_t)(n - s < seg ? n - s : seg), sizeof *keys, cmp_u64);
}

int64_t sp_prim_nparts(int64_t n, int64_t segment)
{
    int64_t p = segment > 0 ? (n + segment - 1) / segment : 1;
    return p > 0 ? p : 1;
}

int sp_hist_idx2ptr_serial(const int32_t *idx, int64_t n, int32_t bins, int64_t segment,
                           int32_t *ptr, int32_t *offsets)
{
    int32_t *run = malloc(((size_t)bins + 1) * sizeof *run);   /* counts so far, per bin */
    if (!run)
        return -1;
    sp_hist_idx2ptr_serial_in(idx, n, bins, segment, ptr, offsets, run);
    free(run);
    return 0;
}

void sp_hist_idx2ptr_serial_in(const int32_t *idx, int64_t n, int32_t bins, int64_t segment,
                               int32_t *ptr, int32_t *offsets, int32_t *run)
{
    memset(run, 0, ((size_t)bins + 1) * sizeof *run);
    int64_t parts = sp_prim_nparts(n, segment);
    for (int64_t s = 0; s < parts; s++) {
        if (offsets)
            memcpy(offsets + s * (int64_t)bins, run, (size_t)bins * sizeof *run);
        int64_t end = (s + 1) * segment < n ? (s + 1) * segment : n;
        for (int64_t i = s * segment; i < end; i++)
            run[idx[i]]++;
    }
    sp_scan_serial(run, ptr, bins);
}

/* Merge a[0..la) and b[0..lb) into out, ties from a first. */
static void merge_two(const uint64_t *a, int64_t la, const uint64_t *b, int64_t lb,
                      uint64_t *out)
{
    int64_t i = 0, j = 0, k = 0;
    while (i < la && j < lb)
        out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
    while (i < la)
        out[k++] = a[i++];
    while (j < lb)
        out[k++] = b[j++];
}

const uint64_t *sp_merge_serial(const uint64_t *in, uint64_t *a, uint64_t *b, int64_t n,
                                int64_t run)
{
    const uint64_t *src = in;
    uint64_t *dst = a;
    for (; run < n; run *= 2) {
        for (int64_t p = 0; p < n; p += 2 * run) {
            int64_t la = n - p < run ? n - p : run;
            int64_t lb = n - p - la < run ? n - p - la : run;
            merge_two(src + p, la, src + p + la, lb, dst + p);
        }
        src = dst;
        dst = dst == a ? b : a;
    }
    return src;
}

/* The sorted keys by a counting sort over the columns (the order of the
 * serial transposition), so no comparison sort of nnz keys is needed. */
static int sorted_keys(const sp_csr *A, const uint64_t *keys, uint64_t *sorted, sp_err *err)
{
    int32_t *next = calloc((size_t)A->cols + 1, sizeof *next);
    if (!next)
        return sp_fail(err, "prim keys: out of memory for %d column pointers", A->cols);
    sp_histogram_serial(A->colidx, A->nnz, next, A->cols);
    sp_scan_serial(next, next, A->cols);
    for (int32_t k = 0; k < A->nnz; k++)
        sorted[next[A->colidx[k]]++] = keys[k];
    free(next);
    return 0;
}

int sp_prim_keys(const sp_csr *A, uint64_t **keys, uint64_t **sorted, sp_err *err)
{
    size_t n = (size_t)A->nnz ? (size_t)A->nnz : 1;
    uint64_t *k = malloc(n * sizeof *k), *s = sorted ? malloc(n * sizeof *s) : NULL;
    if (!k || (sorted && !s)) {
        free(k);
        free(s);
        return sp_fail(err, "prim keys: out of memory for %d keys", A->nnz);
    }
    for (int32_t i = 0; i < A->nnz; i++)
        k[i] = (uint64_t)(uint32_t)A->colidx[i] << 32 | (uint32_t)i;
    if (sorted && sorted_keys(A, k, s, err)) {
        free(k);
        free(s);
        return -1;
    }
    *keys = k;
    if (sorted)
        *sorted = s;
    return 0;
}
