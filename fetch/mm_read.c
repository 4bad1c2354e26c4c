/*
 * mm_read.c — the Matrix Market reader: the whole format (coordinate and
 * array; real, double, integer, pattern, complex; general, symmetric,
 * skew-symmetric, hermitian), plain or gzip-compressed, into a sorted CSR.
 *
 * The file is mapped (or inflated) whole and parsed in one pass, line by
 * line. Line numbers are counted only when an error needs one. Every
 * malformed file gets "PATH:LINE: problem" and no matrix.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#include "matrix.h"
#include "mm_read.h"

typedef enum { F_REAL, F_INTEGER, F_PATTERN, F_COMPLEX } mm_field;
typedef enum { S_GENERAL, S_SYMMETRIC, S_SKEW, S_HERMITIAN } mm_symmetry;

typedef struct mm_header {
    int array;
    mm_field field;
    mm_symmetry sym;
    int64_t rows, cols, entries;
} mm_header;

/* The file's bytes and a read position. */
typedef struct mm_cursor {
    const char *path;
    const char *buf, *p, *end;
} mm_cursor;

static int is_eol(char ch)
{
    return ch == '\n' || ch == '\r';
}

/* 1-based line number of position at: lines end in \n, \r\n or a lone \r. */
static long line_of(const mm_cursor *c, const char *at)
{
    long line = 1;
    if (at >= c->end && at > c->buf && is_eol(at[-1]))
        at--;                   /* at the end: the last line, not the empty one after it */
    for (const char *q = c->buf; q < at && q < c->end; q++)
        line += (*q == '\n') || (*q == '\r' && (q + 1 == c->end || q[1] != '\n'));
    return line;
}

static int mm_fail(const mm_cursor *c, const char *at, sp_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int mm_fail(const mm_cursor *c, const char *at, sp_err *err, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sp_fail(err, "%s:%ld: %s", c->path, line_of(c, at), msg);
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Past the end of the current line (\n, \r\n or \r). */
static const char *next_line(const char *p, const char *end)
{
    while (p < end && !is_eol(*p))
        p++;
    if (p < end && *p == '\r')
        p++;
    if (p < end && *p == '\n')
        p++;
    return p;
}

/* Skip blank lines and % comment lines; returns the first other character. */
static const char *skip_comments(const char *p, const char *end)
{
    for (;;) {
        p = skip_blanks(p, end);
        if (p < end && (is_eol(*p) || *p == '%'))
            p = next_line(p, end);
        else
            return p;
    }
}

/* The next whitespace-separated word on the current line, lower-cased into
 * buf; returns its end, or NULL at the end of the line. */
static const char *banner_word(const char *p, const char *end, char *buf, size_t len)
{
    p = skip_blanks(p, end);
    if (p == end || is_eol(*p))
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

/* Map a banner qualifier to its enum value, or fail naming it. */
static int qualifier(mm_cursor *c, const char *what, const char *const *names, int n,
                     const int *values, int *out, sp_err *err)
{
    char w[64];
    const char *q = banner_word(c->p, c->end, w, sizeof w);
    if (!q)
        return mm_fail(c, c->p, err, "banner ends before its %s (expected %%%%MatrixMarket "
                       "matrix FORMAT FIELD SYMMETRY)", what);
    int i = lookup(w, names, n);
    if (i < 0)
        return mm_fail(c, c->p, err, "unknown %s '%s' in the banner", what, w);
    *out = values[i];
    c->p = q;
    return 0;
}

static int check_banner_combination(mm_cursor *c, const mm_header *h, sp_err *err)
{
    if (h->array && h->field == F_PATTERN)
        return mm_fail(c, c->buf, err, "'pattern' cannot be combined with 'array'");
    if (h->field == F_PATTERN && (h->sym == S_SKEW || h->sym == S_HERMITIAN))
        return mm_fail(c, c->buf, err, "'pattern' cannot be %s",
                       h->sym == S_SKEW ? "skew-symmetric" : "hermitian");
    return 0;
}

static int parse_banner(mm_cursor *c, mm_header *h, sp_err *err)
{
    static const char *const formats[] = {"coordinate", "array"};
    static const char *const fields[] = {"real", "double", "integer", "pattern", "complex"};
    static const char *const syms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
    static const int fmt_v[] = {0, 1}, field_v[] = {F_REAL, F_REAL, F_INTEGER, F_PATTERN,
                                                    F_COMPLEX};
    static const int sym_v[] = {S_GENERAL, S_SYMMETRIC, S_SKEW, S_HERMITIAN};
    const char *p = skip_blanks(c->p, c->end);
    if (c->end - p < 14 || strncasecmp(p, "%%MatrixMarket", 14) ||
        (p + 14 < c->end && !isspace((unsigned char)p[14])))
        return mm_fail(c, p, err, "not a Matrix Market file: the first line must start "
                       "with %%%%MatrixMarket");
    c->p = p + 14;
    char w[64];
    const char *q = banner_word(c->p, c->end, w, sizeof w);
    if (!q || strcmp(w, "matrix"))
        return mm_fail(c, c->p, err, q && !strcmp(w, "vector")
                       ? "object 'vector' is not supported: spsweep reads matrices"
                       : "unknown object '%s' in the banner (expected 'matrix')", q ? w : "");
    c->p = q;
    int sym = 0, field = 0;
    if (qualifier(c, "format", formats, 2, fmt_v, &h->array, err) ||
        qualifier(c, "field", fields, 5, field_v, &field, err) ||
        qualifier(c, "symmetry", syms, 4, sym_v, &sym, err))
        return -1;
    h->field = (mm_field)field;
    h->sym = (mm_symmetry)sym;
    if ((q = banner_word(c->p, c->end, w, sizeof w)))
        return mm_fail(c, c->p, err, "unexpected '%s' after the banner's symmetry", w);
    c->p = next_line(c->p, c->end);
    return check_banner_combination(c, h, err);
}

/* A non-negative integer token followed by a blank or the end of the line. */
static int size_number(mm_cursor *c, const char *what, int64_t *v, sp_err *err)
{
    int range;
    const char *p = skip_blanks(c->p, c->end);
    if (p == c->end || is_eol(*p))
        return mm_fail(c, p, err, "size line ends before the %s", what);
    const char *q = sp_mm_parse_int(p, c->end, v, &range);
    if (!q || (q < c->end && !isspace((unsigned char)*q)))
        return mm_fail(c, p, err, "size line: %s is not an integer", what);
    if (range || *v < 0)
        return mm_fail(c, p, err, "size line: %s %.*s out of range", what, (int)(q - p), p);
    c->p = q;
    return 0;
}

static int parse_size(mm_cursor *c, mm_header *h, sp_err *err)
{
    c->p = skip_comments(c->p, c->end);
    if (c->p == c->end)
        return mm_fail(c, c->p, err, "file ends before the size line (truncated?)");
    const char *line = c->p;
    if (size_number(c, "row count", &h->rows, err) ||
        size_number(c, "column count", &h->cols, err) ||
        (!h->array && size_number(c, "entry count", &h->entries, err)))
        return -1;
    const char *p = skip_blanks(c->p, c->end);
    if (p < c->end && !is_eol(*p))
        return mm_fail(c, p, err, "size line has more than %d numbers", h->array ? 2 : 3);
    if (h->rows > INT32_MAX || h->cols > INT32_MAX)
        return mm_fail(c, line, err, "%lld x %lld does not fit 32-bit indices (at most %d)",
                       (long long)h->rows, (long long)h->cols, INT32_MAX);
    if (h->sym != S_GENERAL && h->rows != h->cols)
        return mm_fail(c, line, err, "a %s matrix must be square, not %lld x %lld",
                       h->sym == S_SYMMETRIC ? "symmetric" : h->sym == S_SKEW
                       ? "skew-symmetric" : "hermitian", (long long)h->rows,
                       (long long)h->cols);
    if (h->array) {
        int64_t n = h->rows;
        h->entries = h->sym == S_GENERAL ? h->rows * h->cols
                   : h->sym == S_SKEW ? n * (n - 1) / 2 : n * (n + 1) / 2;
    }
    if (h->entries > INT32_MAX)
        return mm_fail(c, line, err, "%lld entries do not fit 32-bit indices (at most %d)",
                       (long long)h->entries, INT32_MAX);
    c->p = next_line(c->p, c->end);
    return 0;
}

/* One number of an entry: skip blanks, parse, demand a separator after. */
static const char *entry_number(mm_cursor *c, const char *p, int integer, double *v,
                                const char *what, sp_err *err)
{
    p = skip_blanks(p, c->end);
    if (p == c->end || is_eol(*p)) {
        mm_fail(c, p, err, "line ends before the %s (truncated line?)", what);
        return NULL;
    }
    int range;
    const char *q;
    if (integer) {
        int64_t x;
        q = sp_mm_parse_int(p, c->end, &x, &range);
        *v = (double)x;
    } else {
        q = sp_mm_parse_double(p, c->end, v, &range);
    }
    if (!q || (q < c->end && !isspace((unsigned char)*q))) {
        const char *e = p;
        while (e < c->end && !isspace((unsigned char)*e) && e - p < 40)
            e++;
        mm_fail(c, p, err, "%s '%.*s' is not %s", what, (int)(e - p), p,
                integer ? "an integer" : "a number");
        return NULL;
    }
    if (range) {
        mm_fail(c, p, err, "%s '%.*s' is %s", what, (int)(q - p), p,
                range == 2 ? "not a finite number" : "out of range");
        return NULL;
    }
    return q;
}

/* The value part of an entry per field (pattern: 1). */
static const char *entry_value(mm_cursor *c, const char *p, mm_field f, double *v,
                               sp_err *err)
{
    double im;
    if (f == F_PATTERN) {
        *v = 1.0;
        return p;
    }
    p = entry_number(c, p, f == F_INTEGER, v, "value", err);
    if (p && f == F_COMPLEX)
        p = entry_number(c, p, 0, &im, "imaginary part", err);
    return p;
}

/* Only blanks may follow an entry on its line. */
static const char *entry_end(mm_cursor *c, const char *p, sp_err *err)
{
    p = skip_blanks(p, c->end);
    if (p < c->end && !is_eol(*p)) {
        const char *e = p;
        while (e < c->end && !is_eol(*e) && e - p < 20)
            e++;
        mm_fail(c, p, err, "unexpected '%.*s' after the entry (too many values on the line?)",
                (int)(e - p), p);
        return NULL;
    }
    return next_line(p, c->end);
}

/* Store (i, j, v) and, for the symmetric kinds, its mirror. */
static void put(sp_coo *T, const mm_header *h, int32_t i, int32_t j, double v)
{
    int64_t n = T->nnz;
    T->row[n] = i, T->col[n] = j, T->val[n] = v;
    n++;
    if (h->sym != S_GENERAL && i != j) {
        T->row[n] = j, T->col[n] = i, T->val[n] = h->sym == S_SKEW ? -v : v;
        n++;
    }
    T->nnz = n;
}

static int index_check(mm_cursor *c, const char *at, const char *what, int64_t x, int64_t n,
                       sp_err *err)
{
    if (x < 1 || x > n)
        return mm_fail(c, at, err, "%s index %lld out of range 1..%lld", what, (long long)x,
                       (long long)n);
    return 0;
}

static int read_coordinate(mm_cursor *c, const mm_header *h, sp_coo *T, sp_err *err)
{
    const char *p = c->p, *end = c->end;
    for (int64_t k = 0; k < h->entries; k++) {
        p = skip_comments(p, end);
        if (p == end)
            return mm_fail(c, p, err, "file ends after %lld of %lld entries (truncated?)",
                           (long long)k, (long long)h->entries);
        const char *line = p;
        double di, dj, v;
        if (!(p = entry_number(c, p, 1, &di, "row index", err)) ||
            !(p = entry_number(c, p, 1, &dj, "column index", err)) ||
            !(p = entry_value(c, p, h->field, &v, err)))
            return -1;
        if (index_check(c, line, "row", (int64_t)di, h->rows, err) ||
            index_check(c, line, "column", (int64_t)dj, h->cols, err))
            return -1;
        if (!(p = entry_end(c, p, err)))
            return -1;
        put(T, h, (int32_t)di - 1, (int32_t)dj - 1, v);
    }
    c->p = p;
    return 0;
}

static int read_array(mm_cursor *c, const mm_header *h, sp_coo *T, sp_err *err)
{
    const char *p = c->p, *end = c->end;
    int64_t k = 0;
    for (int64_t j = 0; j < h->cols; j++) {
        int64_t first = h->sym == S_GENERAL ? 0 : h->sym == S_SKEW ? j + 1 : j;
        for (int64_t i = first; i < h->rows; i++, k++) {
            p = skip_comments(p, end);
            if (p == end)
                return mm_fail(c, p, err, "file ends after %lld of %lld values (truncated?)",
                               (long long)k, (long long)h->entries);
            double v;
            if (!(p = entry_value(c, p, h->field, &v, err)) || !(p = entry_end(c, p, err)))
                return -1;
            put(T, h, (int32_t)i, (int32_t)j, v);
        }
    }
    c->p = p;
    return 0;
}

/* The whole file in memory: mapped when plain, inflated when gzip. */
typedef struct mm_bytes {
    char *data;
    size_t size;
    int mapped;
} mm_bytes;

static int inflate_file(const char *path, int fd, mm_bytes *b, sp_err *err)
{
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return sp_fail(err, "%s: cannot open as gzip", path);
    }
    gzbuffer(gz, 1 << 20);
    size_t cap = 1 << 20;
    b->data = malloc(cap);
    int n = 0;
    while (b->data && (n = gzread(gz, b->data + b->size, (unsigned)(cap - b->size))) > 0) {
        b->size += (size_t)n;
        if (b->size == cap) {
            char *bigger = realloc(b->data, cap *= 2);
            if (!bigger)
                free(b->data);
            b->data = bigger;
        }
    }
    int gzerr = 0;
    const char *msg = n < 0 ? gzerror(gz, &gzerr) : NULL;
    char why[256];
    snprintf(why, sizeof why, "%s", msg ? msg : "");
    gzclose(gz);
    if (!b->data)
        return sp_fail(err, "%s: out of memory inflating", path);
    if (n < 0) {
        free(b->data);
        b->data = NULL;
        return sp_fail(err, "%s: corrupt gzip data: %s", path, why);
    }
    return 0;
}

static int load_bytes(const char *path, mm_bytes *b, sp_err *err)
{
    memset(b, 0, sizeof *b);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return sp_fail(err, "%s: %s", path, strerror(errno));
    struct stat st;
    unsigned char magic[2] = {0, 0};
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return sp_fail(err, "%s: not a regular file", path);
    }
    if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
        return inflate_file(path, fd, b, err);
    b->size = (size_t)st.st_size;
    if (b->size > 0) {
        b->data = mmap(NULL, b->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (b->data == MAP_FAILED) {
            b->data = NULL;
            close(fd);
            return sp_fail(err, "%s: cannot map: %s", path, strerror(errno));
        }
        b->mapped = 1;
        madvise(b->data, b->size, MADV_SEQUENTIAL);
    }
    close(fd);
    return 0;
}

static void free_bytes(mm_bytes *b)
{
    if (b->mapped)
        munmap(b->data, b->size);
    else
        free(b->data);
    memset(b, 0, sizeof *b);
}

/* Header, entries, trailing-content check; T gets the expanded entries. */
static int parse_all(mm_cursor *c, const sp_mm_opts *o, sp_coo *T, sp_err *err)
{
    mm_header h;
    memset(&h, 0, sizeof h);
    if (c->buf == c->end)
        return sp_fail(err, "%s:1: empty file, expected a %%%%MatrixMarket banner", c->path);
    if (parse_banner(c, &h, err) || parse_size(c, &h, err))
        return -1;
    if (h.field == F_COMPLEX && o && o->complex == SP_COMPLEX_REFUSE)
        return sp_fail(err, "%s:1: complex values refused (--complex=refuse); use "
                       "--complex=real to read the real parts", c->path);
    int64_t cap = h.sym == S_GENERAL ? h.entries : 2 * h.entries;
    if (sp_coo_init(T, (int32_t)h.rows, (int32_t)h.cols, cap, err))
        return sp_fail_prefix(err, "%s", c->path);
    if (h.array ? read_array(c, &h, T, err) : read_coordinate(c, &h, T, err))
        return -1;
    const char *rest = skip_comments(c->p, c->end);
    if (rest < c->end)
        return mm_fail(c, rest, err, "more %s than the %lld the size line announces",
                       h.array ? "values" : "entries", (long long)h.entries);
    if (h.field == F_COMPLEX && !(o && o->quiet))
        fprintf(stderr, "spsweep: %s: complex matrix, using the real parts "
                "(--complex=refuse to refuse such files)\n", c->path);
    return 0;
}

int sp_mm_read_coo(const char *path, const sp_mm_opts *opts, sp_coo *T, uint64_t *src_hash,
                   sp_err *err)
{
    memset(T, 0, sizeof *T);
    mm_bytes b;
    if (load_bytes(path, &b, err))
        return -1;
    /* The hash covers the bytes parsed: the inflated text for .gz files. */
    if (src_hash)
        *src_hash = XXH3_64bits(b.data, b.size);
    mm_cursor c = {.path = path, .buf = b.data, .p = b.data, .end = b.data + b.size};
    int rc = parse_all(&c, opts, T, err);
    free_bytes(&b);
    if (rc)
        sp_coo_free(T);
    return rc;
}

int sp_mm_read(const char *path, const sp_mm_opts *opts, sp_csr *A, uint64_t *src_hash,
               sp_err *err)
{
    memset(A, 0, sizeof *A);
    sp_coo T;
    if (sp_mm_read_coo(path, opts, &T, src_hash, err))
        return -1;
    int rc = sp_csr_from_coo(A, &T, err) ? sp_fail_prefix(err, "%s", path) : 0;
    sp_coo_free(&T);
    return rc;
}
