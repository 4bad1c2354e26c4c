/*
 * mm_body.c — the fill pass: every entry parsed into its CSR slot (or
 * appended to a COO), then a check that nothing but comments follows.
 *
 * The loop handles the common line shape ("I J VALUE", digits only)
 * inline (mm_fast.h); any line that deviates goes to mm_entry_careful,
 * which accepts it or names its problem, so the fast code never has to
 * produce an error message. Both accept a pattern entry with a value
 * column (as scipy and fast_matrix_market do) and ignore the value; the
 * sink keeps the first such line for the reader's one warning.
 *
 * mm_parse_chunk runs the same per-line logic over one chunk of whole
 * lines for the parallel reader (mm_par.c), into the chunk's triplets.
 */
#include <stdlib.h>

#include "mm_fast.h"

/* A pattern entry's value column, when there is one: the position after
 * it (and *ignored set), p itself when the line goes on with something
 * else (the caller then finds the line not ended), NULL for the careful
 * path. Only blanks before it: "1 1.5" is a bad column index, not a value. */
MM_INLINE const char *fast_pattern_value(const char *p, int *ignored)
{
    const char *q = mm_blanks(p);
    if (q == p || !(mm_is_digit(*q) || *q == '-' || *q == '+' || *q == '.'))
        return p;
    double unused;
    *ignored = 1;
    return mm_fast_double(q, &unused);
}

/* The value part of an entry per field (pattern: 1, a value column
 * skipped with *ignored set; complex: real part). */
MM_INLINE const char *fast_value(const char *p, mm_field f, double *v, int *ignored)
{
    if (f == MM_PATTERN) {
        *v = 1.0;
        return fast_pattern_value(p, ignored);
    }
    if (!mm_is_blank(*p))
        return NULL;
    p = mm_blanks(p);
    if (f == MM_INTEGER)
        return mm_fast_integer(p, v);
    p = mm_fast_double(p, v);
    if (f == MM_COMPLEX) {
        double im;
        p = p && mm_is_blank(*p) ? mm_fast_double(mm_blanks(p), &im) : NULL;
    }
    return p;
}

/* "I J [VALUE]" filling the line up to eol, indices in range: 1, or 0
 * for the careful path. */
MM_INLINE int fast_entry(const char *p, const char *eol, const mm_header *h, mm_field f,
                         int64_t *i, int64_t *j, double *v, int *ignored)
{
    uint64_t a, b;
    *ignored = 0;
    if (!(p = mm_fast_index(p, &a)) || !mm_is_blank(*p) ||
        !(p = mm_fast_index(mm_blanks(p), &b)) || !(p = fast_value(p, f, v, ignored)) ||
        mm_blanks(p) != eol)
        return 0;
    if (a - 1 >= (uint64_t)h->rows || b - 1 >= (uint64_t)h->cols)
        return 0;
    *i = (int64_t)a;
    *j = (int64_t)b;
    return 1;
}

/* Queued entry n takes its row's next slot, which is then prefetched; -1
 * when there is none (the passes disagree, which would be a bug: never
 * write out of bounds for it). */
MM_INLINE int sink_reserve(mm_sink *s, uint64_t n)
{
    unsigned q = (unsigned)(n % MM_AHEAD);
    int32_t at = s->next[s->qi[q]];
    if (at >= s->nnz)
        return -1;
    s->next[s->qi[q]] = at + 1;
    s->qat[q] = at;
    __builtin_prefetch(&s->col[at], 1, 3);
    __builtin_prefetch(&s->val[at], 1, 3);
    return 0;
}

/* Queued entry n goes to its reserved slot. */
MM_INLINE void sink_store(mm_sink *s, uint64_t n)
{
    unsigned q = (unsigned)(n % MM_AHEAD);
    s->col[s->qat[q]] = s->qj[q];
    s->val[s->qat[q]] = s->qv[q];
}

/* Put (i, j, v), 0-based: appended to the COO, or queued for its CSR
 * slot (entry n is reserved at n + MM_AHEAD/2, stored at n + MM_AHEAD). */
MM_INLINE int sink_put(mm_sink *s, int64_t i, int64_t j, double v)
{
    if (s->coo) {
        sp_coo *T = s->coo;
        if (T->nnz == T->cap)
            return -1;
        T->row[T->nnz] = (int32_t)i, T->col[T->nnz] = (int32_t)j, T->val[T->nnz] = v;
        T->nnz++;
        return 0;
    }
    uint64_t n = s->queued++;
    unsigned q = (unsigned)(n % MM_AHEAD);
    if (n >= MM_AHEAD)
        sink_store(s, n - MM_AHEAD);
    s->qi[q] = (int32_t)i, s->qj[q] = (int32_t)j, s->qv[q] = v;
    __builtin_prefetch(&s->next[i], 1, 3);
    return n >= MM_AHEAD / 2 ? sink_reserve(s, n - MM_AHEAD / 2) : 0;
}

/* Reserve and store the entries still queued, oldest first. */
static int sink_flush(mm_sink *s)
{
    if (s->coo)
        return 0;
    uint64_t n = s->queued;
    for (uint64_t k = n > MM_AHEAD / 2 ? n - MM_AHEAD / 2 : 0; k < n; k++)
        if (sink_reserve(s, k))
            return -1;
    for (uint64_t k = n > MM_AHEAD ? n - MM_AHEAD : 0; k < n; k++)
        sink_store(s, k);
    s->queued = 0;
    return 0;
}

/* The entry and, for the symmetric kinds, its mirror (skew: negated, an
 * integer 0 staying +0 as integers have no -0; hermitian: conjugated, so
 * the real part is unchanged). */
MM_INLINE int put_mirrored(mm_sink *s, const mm_header *h, int64_t i, int64_t j, double v)
{
    if (sink_put(s, i, j, v))
        return -1;
    if (h->sym == MM_GENERAL || i == j)
        return 0;
    if (h->sym == MM_SKEW)
        v = h->field == MM_INTEGER ? 0.0 - v : -v;
    return sink_put(s, j, i, v);
}

static int slot_missing(const mm_text *t, const char *line, sp_err *err)
{
    return mm_fail(t, line, err, "internal error: entry counts differ between passes");
}

/* The coordinate entries, for one field (inlined per field). */
MM_INLINE int coordinate_loop(const mm_text *t, const mm_header *h, mm_field f,
                              const char **pp, mm_sink *s, sp_err *err)
{
    const char *p = *pp, *end = t->end;
    for (int64_t k = 0; k < h->entries; k++) {
        if (!mm_is_digit(*p) && (p = mm_skip_comments(p, end)) == end)
            return mm_fail(t, p, err, "file ends after %lld of %lld entries (truncated?)",
                           (long long)k, (long long)h->entries);
        const char *line = p, *next, *eol = mm_eol(t, p, &next);
        int64_t i, j;
        double v;
        int ignored;
        if (fast_entry(line, eol, h, f, &i, &j, &v, &ignored) && (*eol || eol == end))
            p = next;
        else if (!(p = mm_entry_careful(t, h, line, &i, &j, &v, &ignored, err)))
            return -1;
        if (f == MM_PATTERN && ignored && !s->ignored_value)
            s->ignored_value = line;
        if (put_mirrored(s, h, i - 1, j - 1, v))
            return slot_missing(t, line, err);
    }
    *pp = p;
    return 0;
}

/* Room for twice as many triplets in a chunk (realloc: large blocks are
 * remapped, not copied). */
static int chunk_grow(mm_chunk *c)
{
    int64_t cap = c->cap ? 2 * c->cap : 1024;
    int32_t *row = realloc(c->row, (size_t)cap * sizeof *row);
    if (row)
        c->row = row;
    int32_t *col = row ? realloc(c->col, (size_t)cap * sizeof *col) : NULL;
    if (col)
        c->col = col;
    double *val = col ? realloc(c->val, (size_t)cap * sizeof *val) : NULL;
    if (!val)
        return -1;
    c->val = val;
    c->cap = cap;
    return 0;
}

MM_INLINE int chunk_put(mm_chunk *c, int64_t i, int64_t j, double v)
{
    if (c->n == c->cap && chunk_grow(c))
        return -1;
    c->row[c->n] = (int32_t)i, c->col[c->n] = (int32_t)j, c->val[c->n] = v;
    c->n++;
    return 0;
}

/* A chunk's coordinate entries, for one field: the lines coordinate_loop
 * would see there, taken the same way (fast shape or careful parse), the
 * entry and its mirror stored as put_mirrored stores them. No entry
 * count limit: the caller compares the chunks' sum with the size line. */
MM_INLINE void chunk_loop(const mm_text *t, const mm_header *h, mm_field f, mm_chunk *c)
{
    const char *p = c->from, *end = c->to;
    for (;;) {
        /* end is the next chunk's first byte: test it before reading *p */
        if (p >= end || (!mm_is_digit(*p) && (p = mm_skip_comments(p, end)) == end))
            return;
        const char *line = p, *next, *eol = mm_eol(t, p, &next);
        int64_t i, j;
        double v;
        int ignored;
        if (fast_entry(line, eol, h, f, &i, &j, &v, &ignored) && (*eol || eol == t->end))
            p = next;
        else if (!(p = mm_entry_careful(t, h, line, &i, &j, &v, &ignored, NULL))) {
            c->bad = 1;
            return;
        }
        c->entries++;
        if (f == MM_PATTERN && ignored && !c->ignored_value)
            c->ignored_value = line;
        i--, j--;
        if (chunk_put(c, i, j, v)) {
            c->bad = 2;
            return;
        }
        if (h->sym == MM_GENERAL || i == j)
            continue;
        if (h->sym == MM_SKEW)
            v = h->field == MM_INTEGER ? 0.0 - v : -v;
        if (chunk_put(c, j, i, v)) {
            c->bad = 2;
            return;
        }
    }
}

void mm_parse_chunk(const mm_text *t, const mm_header *h, mm_chunk *c)
{
    switch (h->field) {
    case MM_REAL: chunk_loop(t, h, MM_REAL, c); break;
    case MM_INTEGER: chunk_loop(t, h, MM_INTEGER, c); break;
    case MM_PATTERN: chunk_loop(t, h, MM_PATTERN, c); break;
    default: chunk_loop(t, h, MM_COMPLEX, c); break;
    }
}

static int read_coordinate(const mm_text *t, const mm_header *h, const char **p, mm_sink *s,
                           sp_err *err)
{
    switch (h->field) {
    case MM_REAL: return coordinate_loop(t, h, MM_REAL, p, s, err);
    case MM_INTEGER: return coordinate_loop(t, h, MM_INTEGER, p, s, err);
    case MM_PATTERN: return coordinate_loop(t, h, MM_PATTERN, p, s, err);
    default: return coordinate_loop(t, h, MM_COMPLEX, p, s, err);
    }
}

/* Dense values, column by column (symmetric kinds: the lower triangle,
 * skew without the diagonal). Arrays are rarely large: no fast path. */
static int read_array(const mm_text *t, const mm_header *h, const char **pp, mm_sink *s,
                      sp_err *err)
{
    const char *p = *pp;
    int64_t k = 0;
    for (int64_t j = 0; j < h->cols; j++) {
        int64_t first = h->sym == MM_GENERAL ? 0 : h->sym == MM_SKEW ? j + 1 : j;
        for (int64_t i = first; i < h->rows; i++, k++) {
            if ((p = mm_skip_comments(p, t->end)) == t->end)
                return mm_fail(t, p, err, "file ends after %lld of %lld values (truncated?)",
                               (long long)k, (long long)h->entries);
            const char *line = p;
            double v;
            if (!(p = mm_entry_careful(t, h, line, NULL, NULL, &v, NULL, err)))
                return -1;
            if (put_mirrored(s, h, i, j, v))
                return slot_missing(t, line, err);
        }
    }
    *pp = p;
    return 0;
}

int mm_read_entries(const mm_text *t, const mm_header *h, const char *body, mm_sink *s,
                    sp_err *err)
{
    const char *p = body;
    if (h->array ? read_array(t, h, &p, s, err) : read_coordinate(t, h, &p, s, err))
        return -1;
    if (sink_flush(s))
        return slot_missing(t, p, err);
    const char *rest = mm_skip_comments(p, t->end);
    if (rest < t->end)
        return mm_fail(t, rest, err, "more %s than the %lld the size line announces",
                       h->array ? "values" : "entries", (long long)h->entries);
    return 0;
}
