/*
 * mm_entry.c — one entry line parsed with every check. The fast loops in
 * mm_body.c hand a line here whenever it deviates from the common shape;
 * this either accepts it (unusual but valid: "+3", hex floats, many
 * digits, a pattern entry with a value column) or says precisely what is
 * wrong with it.
 */
#include <ctype.h>

#include "mm_read.h"

/* One number of an entry: skip blanks, parse, demand a separator after. */
static const char *entry_number(const mm_text *t, const char *p, int integer, double *v,
                                int64_t *n, const char *what, sp_err *err)
{
    p = mm_skip_blanks(p, t->end);
    if (p == t->end || mm_is_eol(*p)) {
        mm_fail(t, p, err, "line ends before the %s (truncated line?)", what);
        return NULL;
    }
    int range;
    const char *q = integer ? sp_mm_parse_int(p, t->end, n, &range)
                            : sp_mm_parse_double(p, t->end, v, &range);
    if (!q || (q < t->end && !isspace((unsigned char)*q))) {
        const char *e = p;
        while (e < t->end && !isspace((unsigned char)*e) && e - p < 40)
            e++;
        mm_fail(t, p, err, "%s '%.*s' is not %s", what, (int)(e - p), p,
                integer ? "an integer" : "a number");
        return NULL;
    }
    if (range) {
        mm_fail(t, p, err, "%s '%.*s' is %s", what, (int)(q - p), p,
                range == 2 ? "not a finite number" : "out of range");
        return NULL;
    }
    if (integer)
        *v = (double)*n;
    return q;
}

/* A pattern entry's optional value column ("3 4 1", as some writers
 * emit): a number that ends its token, whatever its range, since it is
 * ignored. Returns the position after it, or NULL when what follows the
 * indices is not one (entry_end then names it). */
static const char *pattern_value(const mm_text *t, const char *p)
{
    p = mm_skip_blanks(p, t->end);
    if (p == t->end || mm_is_eol(*p))
        return NULL;
    double ignored;
    int range;
    const char *q = sp_mm_parse_double(p, t->end, &ignored, &range);
    return q && (q == t->end || isspace((unsigned char)*q)) ? q : NULL;
}

/* The value part of an entry per field (pattern: 1, and a value column
 * skipped with *ignored set; complex: real part). */
static const char *entry_value(const mm_text *t, const char *p, mm_field f, double *v,
                               int *ignored, sp_err *err)
{
    double im;
    int64_t n;
    if (f == MM_PATTERN) {
        const char *q = pattern_value(t, p);
        *v = 1.0;
        *ignored = q != NULL;
        return q ? q : p;
    }
    p = entry_number(t, p, f == MM_INTEGER, v, &n, "value", err);
    if (p && f == MM_COMPLEX)
        p = entry_number(t, p, 0, &im, &n, "imaginary part", err);
    return p;
}

/* Only blanks may follow an entry on its line. */
static const char *entry_end(const mm_text *t, const char *p, sp_err *err)
{
    p = mm_skip_blanks(p, t->end);
    if (p < t->end && !mm_is_eol(*p)) {
        const char *e = p;
        while (e < t->end && !mm_is_eol(*e) && e - p < 20)
            e++;
        mm_fail(t, p, err, "unexpected '%.*s' after the entry (too many values on the line?)",
                (int)(e - p), p);
        return NULL;
    }
    return mm_next_line(p, t->end);
}

static int index_check(const mm_text *t, const char *at, const char *what, int64_t x,
                       int64_t n, sp_err *err)
{
    if (x < 1 || x > n)
        return mm_fail(t, at, err, "%s index %lld out of range 1..%lld", what, (long long)x,
                       (long long)n);
    return 0;
}

const char *mm_entry_careful(const mm_text *t, const mm_header *h, const char *line,
                             int64_t *i, int64_t *j, double *v, int *ignored, sp_err *err)
{
    const char *p = line;
    double unused;
    int skipped = 0;
    if (!h->array) {
        if (!(p = entry_number(t, p, 1, &unused, i, "row index", err)) ||
            !(p = entry_number(t, p, 1, &unused, j, "column index", err)))
            return NULL;
    }
    if (!(p = entry_value(t, p, h->field, v, &skipped, err)))
        return NULL;
    if (!h->array && (index_check(t, line, "row", *i, h->rows, err) ||
                      index_check(t, line, "column", *j, h->cols, err)))
        return NULL;
    if (ignored)
        *ignored = skipped;
    return entry_end(t, p, err);
}
