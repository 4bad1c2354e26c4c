/*
 * mm_count.c — the count pass: how many entries each row will hold, so
 * the fill pass can put every entry straight into its CSR slot.
 *
 * It must count exactly what the fill pass stores for every line the
 * fill pass accepts (lines it rejects end the read, so their counts do
 * not matter): the same line boundaries, the same fast/careful split.
 */
#include "mm_fast.h"

/* Array files: the counts follow from the shape. */
static void count_array(const mm_header *h, uint32_t *count)
{
    for (int64_t j = 0; j < h->cols; j++) {
        int64_t first = h->sym == MM_GENERAL ? 0 : h->sym == MM_SKEW ? j + 1 : j;
        for (int64_t i = first; i < h->rows; i++) {
            count[i]++;
            if (h->sym != MM_GENERAL && i != j)     /* square: j is a row too */
                count[j]++;
        }
    }
}

/* Count one row. Rows are random: the increment lands MM_AHEAD rows
 * later, once the prefetched counter is in cache. */
MM_INLINE void count_one(uint32_t *count, uint32_t *ring, uint64_t *n, uint64_t row)
{
    unsigned q = (unsigned)(*n % MM_AHEAD);
    if (*n >= MM_AHEAD)
        count[ring[q]]++;
    __builtin_prefetch(&count[row], 1, 3);
    ring[q] = (uint32_t)row;
    ++*n;
}

/* The row and column of the entry line at p (1-based, in range), fast
 * or careful; the next line's start, or NULL for a line the fill pass
 * will reject. */
MM_INLINE const char *entry_rowcol(const mm_text *t, const mm_header *h, const char *p,
                                   int mirror, uint64_t *a, uint64_t *b)
{
    const char *next, *eol = mm_eol(t, p, &next), *q = mm_fast_index(p, a);
    int ok = q && mm_is_blank(*q) && *a - 1 < (uint64_t)h->rows && (*eol || eol == t->end);
    *b = *a;
    if (ok && mirror)                   /* the column only matters when mirrored */
        ok = (q = mm_fast_index(mm_blanks(q), b)) && *b - 1 < (uint64_t)h->cols;
    if (ok)
        return next;
    int64_t i, j;
    double v;
    if (!(q = mm_entry_careful(t, h, p, &i, &j, &v, NULL, NULL)))
        return NULL;
    *a = (uint64_t)i, *b = (uint64_t)j;     /* unusual but valid: "+3", "007" */
    return q;
}

void mm_count_rows(const mm_text *t, const mm_header *h, const char *body, uint32_t *count)
{
    if (h->array) {
        count_array(h, count);
        return;
    }
    const char *p = body, *end = t->end;
    int mirror = h->sym != MM_GENERAL;
    uint64_t n = 0, a, b;
    uint32_t ring[MM_AHEAD];
    for (int64_t k = 0; k < h->entries; k++) {
        if (!mm_is_digit(*p) && (p = mm_skip_comments(p, end)) == end)
            break;
        if (!(p = entry_rowcol(t, h, p, mirror, &a, &b)))
            break;                      /* the fill pass reports this line */
        count_one(count, ring, &n, a - 1);
        if (mirror && a != b)
            count_one(count, ring, &n, b - 1);
    }
    for (uint64_t k = n > MM_AHEAD ? n - MM_AHEAD : 0; k < n; k++)
        count[ring[k % MM_AHEAD]]++;
}

/* The chunk's entries per row block (row >> shift, symmetric kinds
 * mirrored), for the parallel CSR build: the same lines the chunk's parse
 * (mm_parse_chunk) stores, counted as mm_count_rows counts them. Returns
 * the entry lines, or -1 at a line the parse will reject (the serial
 * reader then names it). */
int64_t mm_count_chunk(const mm_text *t, const mm_header *h, const char *from, const char *to,
                       int shift, uint32_t *bcount)
{
    const char *p = from;
    int mirror = h->sym != MM_GENERAL;
    int64_t lines = 0;
    uint64_t a, b;
    for (;;) {
        if (p >= to || (!mm_is_digit(*p) && (p = mm_skip_comments(p, to)) == to))
            return lines;
        if (!(p = entry_rowcol(t, h, p, mirror, &a, &b)))
            return -1;
        lines++;
        bcount[(a - 1) >> shift]++;
        if (mirror && a != b)
            bcount[(b - 1) >> shift]++;
    }
}
