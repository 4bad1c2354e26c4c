/*
 * csr.c — CSR and COO storage: allocation, invariants, COO -> CSR, checksum.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

#define HUGE_PAGE ((size_t)2 << 20)

void *sp_alloc_large(size_t n)
{
    if (n < 2 * HUGE_PAGE)
        return alloc_bytes(n);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, n))
        return NULL;
    (void)madvise(p, n, MADV_HUGEPAGE);     /* a hint: failure changes nothing */
    return p;
}

int sp_csr_alloc(sp_csr *A, int32_t rows, int32_t cols, int32_t nnz, sp_err *err)
{
    memset(A, 0, sizeof *A);
    if (rows < 0 || cols < 0 || nnz < 0)
        return sp_fail(err, "invalid CSR shape %d x %d with %d nonzeros", rows, cols, nnz);
    size_t nr = ((size_t)rows + 1) * sizeof(int32_t);
    A->rowptr = sp_alloc_large(nr);
    A->colidx = sp_alloc_large((size_t)nnz * sizeof(int32_t));
    A->val = sp_alloc_large((size_t)nnz * sizeof(double));
    if (A->rowptr)
        memset(A->rowptr, 0, nr);
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
    T->row = sp_alloc_large((size_t)cap * sizeof(int32_t));
    T->col = sp_alloc_large((size_t)cap * sizeof(int32_t));
    T->val = sp_alloc_large((size_t)cap * sizeof(double));
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

/* Insertion sort for short rows, merge sort for long ones. */
void sp_sort_pairs(int32_t *col, double *val, int64_t n, int32_t *tc, double *tv)
{
    if (n <= 16) {
        for (int64_t k = 1; k < n; k++) {
            int32_t c = col[k];
            double v = val[k];
            int64_t m = k;
            for (; m > 0 && col[m - 1] > c; m--)
                col[m] = col[m - 1], val[m] = val[m - 1];
            col[m] = c, val[m] = v;
        }
        return;
    }
    int64_t h = n / 2;
    sp_sort_pairs(col, val, h, tc, tv);
    sp_sort_pairs(col + h, val + h, n - h, tc, tv);
    if (col[h - 1] <= col[h])
        return;                                     /* already in order */
    memcpy(tc, col, (size_t)h * sizeof *col);
    memcpy(tv, val, (size_t)h * sizeof *val);
    int64_t a = 0, b = h, o = 0;
    while (a < h && b < n) {
        int take_b = col[b] < tc[a];
        col[o] = take_b ? col[b] : tc[a];
        val[o++] = take_b ? val[b++] : tv[a++];
    }
    while (a < h)
        col[o] = tc[a], val[o++] = tv[a++];
}

/* Scatter the entries into their rows (file order kept within a row). On
 * return ptr[i] is the start of row i and ptr[rows] = nnz. */
static void coo_scatter(const sp_coo *T, int64_t *ptr, int32_t *ccol, double *cval)
{
    for (int64_t k = 0; k < T->nnz; k++)
        ptr[T->row[k] + 1]++;
    for (int32_t i = 0; i < T->rows; i++)
        ptr[i + 1] += ptr[i];
    for (int64_t k = 0; k < T->nnz; k++) {
        int64_t dst = ptr[T->row[k]]++;
        ccol[dst] = T->col[k];
        cval[dst] = T->val[k];
    }
    memmove(ptr + 1, ptr, (size_t)T->rows * sizeof *ptr);   /* back to starts */
    ptr[0] = 0;
}

/* Sort every row, sum duplicates and compact in place; returns the number
 * of unique entries and leaves the new row starts in ptr. -1: no memory. */
static int64_t coo_sort_rows(int32_t rows, int64_t *ptr, int32_t *ccol, double *cval)
{
    int64_t longest = 0, n = 0;
    for (int32_t i = 0; i < rows; i++)
        longest = ptr[i + 1] - ptr[i] > longest ? ptr[i + 1] - ptr[i] : longest;
    int32_t *tc = malloc((size_t)(longest / 2 + 1) * sizeof *tc);
    double *tv = malloc((size_t)(longest / 2 + 1) * sizeof *tv);
    if (!tc || !tv) {
        free(tc);
        free(tv);
        return -1;
    }
    for (int32_t i = 0; i < rows; i++) {
        int64_t b = ptr[i], e = ptr[i + 1];
        sp_sort_pairs(ccol + b, cval + b, e - b, tc, tv);
        ptr[i] = n;
        for (int64_t k = b; k < e; k++) {
            if (k > b && ccol[k] == ccol[k - 1]) {
                cval[n - 1] += cval[k];             /* duplicates are summed */
            } else {
                ccol[n] = ccol[k];
                cval[n++] = cval[k];
            }
        }
    }
    ptr[rows] = n;
    free(tc);
    free(tv);
    return n;
}

int sp_csr_from_coo(sp_csr *A, const sp_coo *T, sp_err *err)
{
    memset(A, 0, sizeof *A);
    for (int64_t k = 0; k < T->nnz; k++)
        if ((uint32_t)T->row[k] >= (uint32_t)T->rows || (uint32_t)T->col[k] >= (uint32_t)T->cols)
            return sp_fail(err, "COO entry %lld at (%d, %d) is outside the %d x %d matrix",
                           (long long)k, T->row[k], T->col[k], T->rows, T->cols);
    int64_t *ptr = calloc((size_t)T->rows + 1, sizeof(int64_t));
    int32_t *ccol = sp_alloc_large((size_t)T->nnz * sizeof(int32_t));
    double *cval = sp_alloc_large((size_t)T->nnz * sizeof(double));
    int32_t *rowptr = malloc(((size_t)T->rows + 1) * sizeof(int32_t));
    int64_t unique = -1;
    if (ptr && ccol && cval && rowptr) {
        coo_scatter(T, ptr, ccol, cval);
        unique = coo_sort_rows(T->rows, ptr, ccol, cval);
    }
    if (unique < 0 || unique > INT32_MAX) {
        if (unique < 0)
            sp_fail(err, "out of memory converting %lld COO entries to CSR",
                    (long long)T->nnz);
        else
            sp_fail(err, "matrix has %lld nonzeros, more than 32-bit indices hold (%d)",
                    (long long)unique, INT32_MAX);
        free(ptr), free(ccol), free(cval), free(rowptr);
        return -1;
    }
    for (int32_t i = 0; i <= T->rows; i++)
        rowptr[i] = (int32_t)ptr[i];
    free(ptr);
    /* The scatter buffers become the CSR arrays; shrinking cannot fail
     * in a way that loses them (realloc keeps the block on failure). */
    int32_t *c = realloc(ccol, (size_t)(unique ? unique : 1) * sizeof *c);
    double *v = realloc(cval, (size_t)(unique ? unique : 1) * sizeof *v);
    A->rows = T->rows, A->cols = T->cols, A->nnz = (int32_t)unique;
    A->rowptr = rowptr;
    A->colidx = c ? c : ccol;
    A->val = v ? v : cval;
    return 0;
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
