/*
 * csr.c — CSR and COO storage: allocation, invariants, COO -> CSR, checksum.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "sparse.h"

int sp_fail(sp_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int sp_fail_prefix(sp_err *err, const char *fmt, ...)
{
    if (err) {
        char prefix[512], old[sizeof err->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof prefix, fmt, ap);
        va_end(ap);
        memcpy(old, err->msg, sizeof old);
        /* a message too long for msg is cut, which is fine for one line */
        if (snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old) < 0)
            err->msg[0] = 0;
    }
    return -1;
}

/* malloc that never returns NULL for a zero-size request, so "empty" and
 * "failed" stay distinguishable. */
static void *alloc_bytes(size_t n)
{
    return malloc(n ? n : 1);
}

int sp_csr_alloc(sp_csr *A, int32_t rows, int32_t cols, int32_t nnz, sp_err *err)
{
    memset(A, 0, sizeof *A);
    if (rows < 0 || cols < 0 || nnz < 0)
        return sp_fail(err, "invalid CSR shape %d x %d with %d nonzeros", rows, cols, nnz);
    A->rowptr = calloc((size_t)rows + 1, sizeof(int32_t));
    A->colidx = alloc_bytes((size_t)nnz * sizeof(int32_t));
    A->val = alloc_bytes((size_t)nnz * sizeof(double));
    if (!A->rowptr || !A->colidx || !A->val) {
        sp_csr_free(A);
        return sp_fail(err, "out of memory allocating a %d x %d CSR with %d nonzeros",
                       rows, cols, nnz);
    }
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    return 0;
}

void sp_csr_free(sp_csr *A)
{
    if (!A)
        return;
    free(A->rowptr);
    free(A->colidx);
    free(A->val);
    memset(A, 0, sizeof *A);
}

int sp_csr_validate(const sp_csr *A, sp_err *err)
{
    if (A->rows < 0 || A->cols < 0 || A->nnz < 0 || !A->rowptr)
        return sp_fail(err, "CSR header invalid");
    if (A->rowptr[0] != 0 || A->rowptr[A->rows] != A->nnz)
        return sp_fail(err, "CSR rowptr spans %d..%d, expected 0..%d", A->rowptr[0],
                       A->rowptr[A->rows], A->nnz);
    for (int32_t i = 0; i < A->rows; i++) {
        if (A->rowptr[i + 1] < A->rowptr[i])
            return sp_fail(err, "CSR rowptr decreases at row %d", i);
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t j = A->colidx[k];
            if (j < 0 || j >= A->cols)
                return sp_fail(err, "CSR column %d out of range in row %d", j, i);
            if (k > A->rowptr[i] && A->colidx[k - 1] >= j)
                return sp_fail(err, "CSR columns not sorted and unique in row %d", i);
        }
    }
    return 0;
}

int sp_coo_init(sp_coo *T, int32_t rows, int32_t cols, int64_t cap, sp_err *err)
{
    memset(T, 0, sizeof *T);
    if (rows < 0 || cols < 0 || cap < 0)
        return sp_fail(err, "invalid COO shape %d x %d", rows, cols);
    if (cap < 16)
        cap = 16;
    T->row = malloc((size_t)cap * sizeof(int32_t));
    T->col = malloc((size_t)cap * sizeof(int32_t));
    T->val = malloc((size_t)cap * sizeof(double));
    if (!T->row || !T->col || !T->val) {
        sp_coo_free(T);
        return sp_fail(err, "out of memory allocating %lld COO entries", (long long)cap);
    }
    T->rows = rows;
    T->cols = cols;
    T->cap = cap;
    return 0;
}

static int coo_grow(sp_coo *T, sp_err *err)
{
    int64_t cap = T->cap * 2;
    int32_t *r = realloc(T->row, (size_t)cap * sizeof(int32_t));
    if (r)
        T->row = r;
    int32_t *c = realloc(T->col, (size_t)cap * sizeof(int32_t));
    if (c)
        T->col = c;
    double *v = realloc(T->val, (size_t)cap * sizeof(double));
    if (v)
        T->val = v;
    if (!r || !c || !v)
        return sp_fail(err, "out of memory growing COO to %lld entries", (long long)cap);
    T->cap = cap;
    return 0;
}

int sp_coo_push(sp_coo *T, int32_t i, int32_t j, double v, sp_err *err)
{
    if (T->nnz == T->cap && coo_grow(T, err))
        return -1;
    T->row[T->nnz] = i;
    T->col[T->nnz] = j;
    T->val[T->nnz] = v;
    T->nnz++;
    return 0;
}

void sp_coo_free(sp_coo *T)
{
    if (!T)
        return;
    free(T->row);
    free(T->col);
    free(T->val);
    memset(T, 0, sizeof *T);
}

/* Counting sort of the entries by column into (col, val) buffers, then a
 * stable scatter by row: each row's entries come out sorted by column. */
static int coo_bucket(const sp_coo *T, int64_t *ptr, int32_t *ccol, double *cval,
                      sp_err *err)
{
    int64_t *cptr = calloc((size_t)T->cols + 1, sizeof(int64_t));
    int64_t *perm = malloc((size_t)(T->nnz ? T->nnz : 1) * sizeof(int64_t));
    if (!cptr || !perm) {
        free(cptr);
        free(perm);
        return sp_fail(err, "out of memory converting COO to CSR");
    }
    for (int64_t k = 0; k < T->nnz; k++)
        cptr[T->col[k] + 1]++;
    for (int32_t j = 0; j < T->cols; j++)
        cptr[j + 1] += cptr[j];
    for (int64_t k = 0; k < T->nnz; k++)
        perm[cptr[T->col[k]]++] = k;          /* entries in column order */
    for (int64_t p = 0; p < T->nnz; p++) {    /* stable scatter into rows */
        int64_t k = perm[p];
        int64_t dst = ptr[T->row[k]]++;
        ccol[dst] = T->col[k];
        cval[dst] = T->val[k];
    }
    free(cptr);
    free(perm);
    return 0;
}

int sp_csr_from_coo(sp_csr *A, const sp_coo *T, sp_err *err)
{
    memset(A, 0, sizeof *A);
    int64_t *ptr = calloc((size_t)T->rows + 1, sizeof(int64_t));
    int32_t *ccol = malloc((size_t)(T->nnz ? T->nnz : 1) * sizeof(int32_t));
    double *cval = malloc((size_t)(T->nnz ? T->nnz : 1) * sizeof(double));
    int rc = -1;
    if (!ptr || !ccol || !cval) {
        sp_fail(err, "out of memory converting %lld COO entries to CSR", (long long)T->nnz);
        goto out;
    }
    for (int64_t k = 0; k < T->nnz; k++)
        ptr[T->row[k] + 1]++;
    for (int32_t i = 0; i < T->rows; i++)
        ptr[i + 1] += ptr[i];
    if (coo_bucket(T, ptr, ccol, cval, err))
        goto out;
    /* ptr[i] now holds the end of row i; count unique (row, col) pairs. */
    int64_t unique = 0;
    for (int32_t i = 0; i < T->rows; i++) {
        int64_t b = i ? ptr[i - 1] : 0;
        for (int64_t k = b; k < ptr[i]; k++)
            unique += (k == b || ccol[k] != ccol[k - 1]);
    }
    if (unique > INT32_MAX) {
        sp_fail(err, "matrix has %lld nonzeros, more than 32-bit indices hold (%d)",
                (long long)unique, INT32_MAX);
        goto out;
    }
    if (sp_csr_alloc(A, T->rows, T->cols, (int32_t)unique, err))
        goto out;
    int32_t n = 0;
    for (int32_t i = 0; i < T->rows; i++) {
        int64_t b = i ? ptr[i - 1] : 0;
        for (int64_t k = b; k < ptr[i]; k++) {
            if (k > b && ccol[k] == ccol[k - 1]) {
                A->val[n - 1] += cval[k];     /* duplicates are summed */
            } else {
                A->colidx[n] = ccol[k];
                A->val[n++] = cval[k];
            }
        }
        A->rowptr[i + 1] = n;
    }
    rc = 0;
out:
    free(ptr);
    free(ccol);
    free(cval);
    return rc;
}

uint64_t sp_csr_checksum(const sp_csr *A)
{
    XXH3_state_t *s = XXH3_createState();
    if (!s)
        return 0;
    int32_t shape[3] = {A->rows, A->cols, A->nnz};
    XXH3_64bits_reset(s);
    XXH3_64bits_update(s, shape, sizeof shape);
    XXH3_64bits_update(s, A->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t));
    XXH3_64bits_update(s, A->colidx, (size_t)A->nnz * sizeof(int32_t));
    XXH3_64bits_update(s, A->val, (size_t)A->nnz * sizeof(double));
    uint64_t h = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}
