/*
 * mm_banner.c — the Matrix Market banner ("%%MatrixMarket matrix FORMAT
 * FIELD SYMMETRY", case-insensitive) and the size line after the comments.
 *
 * Like fast_matrix_market, the banner may be indented and may start with
 * a single '%' (some writers emit "%MatrixMarket"). Fields are the
 * standard's: real, double (a synonym), integer, pattern, complex; other
 * type names (int8, bool, ... as some tools write) are unknown qualifiers.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "mm_read.h"

/* The next blank-separated word on the current line, lower-cased into
 * buf; returns its end, or NULL at the end of the line. */
static const char *banner_word(const char *p, const char *end, char *buf, size_t len)
{
    p = mm_skip_blanks(p, end);
    if (p == end || mm_is_eol(*p))
        return NULL;
    size_t n = 0;
    for (; p < end && !isspace((unsigned char)*p); p++)
        if (n + 1 < len)
            buf[n++] = (char)tolower((unsigned char)*p);
    buf[n] = 0;
    return p;
}

static int lookup(const char *word, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(word, names[i]))
            return i;
    return -1;
}

/* The banner word at *p mapped through names to values, or an error
 * naming what was expected. */
static int qualifier(const mm_text *t, const char **p, const char *what,
                     const char *const *names, int n, const int *values, int *out,
                     sp_err *err)
{
    char w[64];
    const char *q = banner_word(*p, t->end, w, sizeof w);
    if (!q)
        return mm_fail(t, *p, err, "banner ends before its %s (expected %%%%MatrixMarket "
                       "matrix FORMAT FIELD SYMMETRY)", what);
    int i = lookup(w, names, n);
    if (i < 0)
        return mm_fail(t, *p, err, "unknown %s '%s' in the banner", what, w);
    *out = values[i];
    *p = q;
    return 0;
}

/* "%%MatrixMarket" (or "%MatrixMarket") then "matrix": past them, or NULL. */
static const char *banner_start(const mm_text *t, sp_err *err)
{
    const char *p = mm_skip_blanks(t->buf, t->end);
    const char *m = p < t->end && *p == '%' ? p + 1 : p;
    m += m < t->end && *m == '%';
    if (t->end - m < 12 || strncasecmp(m, "MatrixMarket", 12) ||
        (m + 12 < t->end && !isspace((unsigned char)m[12])) || m == p) {
        mm_fail(t, p, err, "not a Matrix Market file: the first line must start with "
                "%%%%MatrixMarket");
        return NULL;
    }
    p = m + 12;
    char w[64];
    const char *q = banner_word(p, t->end, w, sizeof w);
    if (!q || strcmp(w, "matrix")) {
        mm_fail(t, p, err, q && !strcmp(w, "vector")
                ? "object 'vector' is not supported: spsweep reads matrices"
                : "unknown object '%s' in the banner (expected 'matrix')", q ? w : "");
        return NULL;
    }
    return q;
}

static int parse_banner(const mm_text *t, mm_header *h, const char **p, sp_err *err)
{
    static const char *const formats[] = {"coordinate", "array"};
    static const char *const fields[] = {"real", "double", "integer", "pattern", "complex"};
    static const char *const syms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
    static const int fmt_v[] = {0, 1};
    static const int field_v[] = {MM_REAL, MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX};
    static const int sym_v[] = {MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN};
    int field = 0, sym = 0;
    char w[64];
    if (!(*p = banner_start(t, err)) ||
        qualifier(t, p, "format", formats, 2, fmt_v, &h->array, err) ||
        qualifier(t, p, "field", fields, 5, field_v, &field, err) ||
        qualifier(t, p, "symmetry", syms, 4, sym_v, &sym, err))
        return -1;
    h->field = (mm_field)field;
    h->sym = (mm_symmetry)sym;
    if (banner_word(*p, t->end, w, sizeof w))
        return mm_fail(t, *p, err, "unexpected '%s' after the banner's symmetry", w);
    if (h->array && h->field == MM_PATTERN)
        return mm_fail(t, t->buf, err, "'pattern' cannot be combined with 'array'");
    if (h->field == MM_PATTERN && (h->sym == MM_SKEW || h->sym == MM_HERMITIAN))
        return mm_fail(t, t->buf, err, "'pattern' cannot be %s",
                       h->sym == MM_SKEW ? "skew-symmetric" : "hermitian");
    *p = mm_next_line(*p, t->end);
    return 0;
}

/* A non-negative integer followed by a blank or the end of the line. */
static int size_number(const mm_text *t, const char **p, const char *what, int64_t *v,
                       sp_err *err)
{
    int range;
    const char *s = mm_skip_blanks(*p, t->end);
    if (s == t->end || mm_is_eol(*s))
        return mm_fail(t, s, err, "size line ends before the %s", what);
    const char *q = sp_mm_parse_int(s, t->end, v, &range);
    if (!q || (q < t->end && !isspace((unsigned char)*q)))
        return mm_fail(t, s, err, "size line: %s is not an integer", what);
    if (range || *v < 0)
        return mm_fail(t, s, err, "size line: %s %.*s out of range", what, (int)(q - s), s);
    *p = q;
    return 0;
}

static const char *sym_name(mm_symmetry s)
{
    return s == MM_SYMMETRIC ? "symmetric" : s == MM_SKEW ? "skew-symmetric" : "hermitian";
}

/* Shape checks: 32-bit dimensions, square symmetric kinds, and the entry
 * count (implied for arrays) within 32 bits. */
static int check_size(const mm_text *t, const char *line, mm_header *h, sp_err *err)
{
    if (h->rows > INT32_MAX || h->cols > INT32_MAX)
        return mm_fail(t, line, err, "%lld x %lld does not fit 32-bit indices (at most %d)",
                       (long long)h->rows, (long long)h->cols, INT32_MAX);
    if (h->sym != MM_GENERAL && h->rows != h->cols)
        return mm_fail(t, line, err, "a %s matrix must be square, not %lld x %lld",
                       sym_name(h->sym), (long long)h->rows, (long long)h->cols);
    if (h->array) {
        int64_t n = h->rows;
        h->entries = h->sym == MM_GENERAL ? h->rows * h->cols
                   : h->sym == MM_SKEW ? n * (n - 1) / 2 : n * (n + 1) / 2;
    }
    if (h->entries > INT32_MAX)
        return mm_fail(t, line, err, "%lld entries do not fit 32-bit indices (at most %d)",
                       (long long)h->entries, INT32_MAX);
    return 0;
}

static int parse_size(const mm_text *t, mm_header *h, const char **p, sp_err *err)
{
    *p = mm_skip_comments(*p, t->end);
    if (*p == t->end)
        return mm_fail(t, *p, err, "file ends before the size line (truncated?)");
    const char *line = *p;
    h->size_line = line;
    if (size_number(t, p, "row count", &h->rows, err) ||
        size_number(t, p, "column count", &h->cols, err) ||
        (!h->array && size_number(t, p, "entry count", &h->entries, err)))
        return -1;
    const char *rest = mm_skip_blanks(*p, t->end);
    if (rest < t->end && !mm_is_eol(*rest))
        return mm_fail(t, rest, err, "size line has more than %d numbers", h->array ? 2 : 3);
    if (check_size(t, line, h, err))
        return -1;
    *p = mm_next_line(*p, t->end);
    return 0;
}

int mm_parse_header(const mm_text *t, mm_header *h, const char **body, sp_err *err)
{
    memset(h, 0, sizeof *h);
    if (t->buf == t->end)
        return mm_fail(t, t->buf, err, "empty file, expected a %%%%MatrixMarket banner");
    return parse_banner(t, h, body, err) || parse_size(t, h, body, err) ? -1 : 0;
}
