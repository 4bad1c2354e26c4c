/*
 * mm_csr.c — the reader's two passes into a CSR: the count pass sizes
 * every row, the fill pass puts each entry straight into its slot.
 *
 * Memory follows the entries, not the size line's claims. The counts live
 * in the row pointers themselves, on zeroed pages the kernel hands out
 * untouched, so a row is touched only when it holds an entry until the
 * counts are summed; the sums then serve the fill pass as its cursors in
 * place. The only array as long as the rows is thus the CSR's own row
 * pointers, written once: a 2^31-row file with one entry takes 8 GiB, not
 * the 16 GiB a cleared count array and a copy of it as cursors took.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm_read.h"

/* Zeroed memory for n bytes, not touched here: calloc takes fresh pages
 * from the kernel for large blocks (zero already, so it does not clear
 * them), and only the rows that hold entries are written before the row
 * starts are summed. Huge pages, as sp_alloc_large asks for: rows come in
 * random order, so TLB misses would add up. */
static void *alloc_zeroed(size_t n)
{
    char *p = calloc(1, n);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)p + page - 1) / page * page;
    if (p && n >= ((size_t)4 << 20))
        (void)madvise((void *)from, ((uintptr_t)p + n - from) / page * page, MADV_HUGEPAGE);
    return p;
}

/* A row's weight in the fill check: mixed (splitmix64's finalizer) so
 * that entries put in the wrong rows cannot cancel out, as they could
 * with weights linear in the row. */
static uint64_t row_weight(uint64_t i)
{
    i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
    i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
    return i ^ (i >> 31);
}

/* The counts in rowptr[1..rows] become the fill pass's cursors in place:
 * rowptr[i + 1] = the start of row i. Each entry of row i then takes slot
 * rowptr[i + 1]++, so the cursor ends at the end of row i, which is
 * rowptr[i + 1] of the finished CSR: no second array as long as the rows.
 * *check is what the weighted ends must sum to once every row holds
 * exactly its count. Returns the total, or -1 when the expanded entries
 * do not fit 32-bit indices. */
static int64_t row_cursors(int32_t *rowptr, int32_t rows, uint64_t *check)
{
    const uint32_t *count = (const uint32_t *)rowptr + 1;
    int64_t total = 0;
    uint64_t sum = 0;
    rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++) {
        uint32_t c = count[i];          /* read before its slot becomes a cursor */
        rowptr[i + 1] = (int32_t)total;
        total += c;
        if (total > INT32_MAX)
            return -1;
        sum += row_weight((uint64_t)i) * (uint64_t)total;
    }
    *check = sum;
    return total;
}

/* Did the fill pass put exactly the counted entries in every row? The
 * passes must agree; if a bug made them differ, say so rather than hand
 * out a matrix with entries in the wrong rows. */
static int rows_filled(const int32_t *rowptr, int32_t rows, uint64_t check)
{
    uint64_t sum = 0;
    for (int32_t i = 0; i < rows; i++)
        sum += row_weight((uint64_t)i) * (uint64_t)rowptr[i + 1];
    return sum == check;
}

int mm_fill_csr(const mm_text *t, const mm_header *h, const char *body, sp_csr *A,
                const char **ignored_value, sp_err *err)
{
    int32_t rows = (int32_t)h->rows;
    A->rows = rows, A->cols = (int32_t)h->cols;
    if (mm_check_fit(t, h, body, 0, err))
        return -1;
    if (!(A->rowptr = alloc_zeroed(((size_t)rows + 1) * sizeof(int32_t))))
        return sp_fail(err, "%s: out of memory for %d rows", t->path, rows);
    mm_count_rows(t, h, body, (uint32_t *)A->rowptr + 1);
    uint64_t check;
    int64_t nnz = row_cursors(A->rowptr, rows, &check);
    if (nnz < 0)
        return sp_fail(err, "%s: more than %d entries once symmetry is expanded: "
                       "does not fit 32-bit indices", t->path, INT32_MAX);
    A->nnz = (int32_t)nnz;
    A->colidx = sp_alloc_large((size_t)nnz * sizeof(int32_t));
    A->val = sp_alloc_large((size_t)nnz * sizeof(double));
    if (!A->colidx || !A->val)
        return sp_fail(err, "%s: out of memory for %lld entries", t->path, (long long)nnz);
    mm_sink s = {.next = A->rowptr + 1, .col = A->colidx, .val = A->val, .nnz = nnz};
    int rc = mm_read_entries(t, h, body, &s, err);
    if (!rc && !rows_filled(A->rowptr, rows, check))
        rc = mm_fail(t, t->end, err, "internal error: the count and fill passes disagree");
    *ignored_value = s.ignored_value;
    return rc;
}
