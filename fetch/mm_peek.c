/*
 * mm_peek.c — a Matrix Market file's banner and size line, read without
 * its body, so the memory guard can tell what sp_mm_read will allocate
 * before it maps or inflates anything. The header is parsed by the
 * reader's own mm_parse_header (mm_banner.c): one grammar for both.
 *
 * Only as much text is read as reaches the end of the size line (through
 * zlib, which reads plain files as they are), a chunk at a time; comment
 * blocks longer than PEEK_MAX give up (the size is then unknown and the
 * load goes ahead as before).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "mm_read.h"

#define PEEK_CHUNK ((size_t)64 << 10)
#define PEEK_MAX ((size_t)16 << 20)

/* 1 when [buf, end) holds the banner line, any comment lines and a size
 * line complete with its end of line. */
static int size_line_read(const char *buf, const char *end)
{
    const char *p = mm_next_line(buf, end);
    if (p == end)
        return 0;
    p = mm_skip_comments(p, end);
    while (p < end && !mm_is_eol(*p))
        p++;
    return p < end;
}

/* The file's first bytes, up to the end of its size line (or the whole
 * file when it ends sooner: the parser then sees its true end), with
 * MM_PAD zero bytes after them. */
static char *read_head(const char *path, size_t *len, sp_err *err)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return sp_fail(err, "%s: cannot open", path), NULL;
    size_t cap = PEEK_CHUNK, n = 0;
    char *buf = malloc(cap + MM_PAD);
    int got = 1;
    while (buf && got > 0 && !size_line_read(buf, buf + n) && n < PEEK_MAX) {
        if (n == cap) {
            char *bigger = realloc(buf, (cap *= 2) + MM_PAD);
            if (!bigger)
                free(buf);
            buf = bigger;
            if (!buf)
                break;
        }
        got = gzread(gz, buf + n, (unsigned)(cap - n));
        n += got > 0 ? (size_t)got : 0;
        memset(buf + n, 0, MM_PAD);
    }
    gzclose(gz);
    if (!buf)
        return sp_fail(err, "%s: out of memory reading the header", path), NULL;
    if (got < 0 || (got > 0 && !size_line_read(buf, buf + n))) {
        free(buf);
        return sp_fail(err, "%s: %s", path, got < 0 ? "cannot read (corrupt gzip data?)"
                                                    : "no size line in the first 16 MiB"),
               NULL;
    }
    *len = n;
    return buf;
}

/* The inflated size of a gzip file: ISIZE, the trailer's size modulo 2^32,
 * raised by 2^32 until it reaches floor (the compressed size, or what the
 * entries take at the least). 0 for a file that is not gzip. */
static uint64_t inflated_size(const char *path, uint64_t floor)
{
    FILE *f = fopen(path, "rb");
    unsigned char magic[2] = {0, 0}, tail[4];
    uint64_t size = 0;
    if (f && fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b &&
        fseek(f, -4, SEEK_END) == 0 && fread(tail, 1, 4, f) == 4) {
        size = (uint64_t)tail[0] | (uint64_t)tail[1] << 8 | (uint64_t)tail[2] << 16 |
               (uint64_t)tail[3] << 24;
        while (size < floor)
            size += (uint64_t)1 << 32;
    }
    if (f)
        fclose(f);
    return size;
}

int sp_mm_peek(const char *path, sp_mm_size *sz, sp_err *err)
{
    memset(sz, 0, sizeof *sz);
    size_t len;
    char *buf = read_head(path, &len, err);
    if (!buf)
        return -1;
    mm_text t = {.path = path, .buf = buf, .end = buf + len};
    mm_header h;
    const char *body;
    int rc = mm_parse_header(&t, &h, &body, err);
    free(buf);
    if (rc)
        return -1;
    /* symmetric kinds store each off-diagonal entry twice */
    sz->rows = h.rows, sz->cols = h.cols;
    sz->max_nnz = h.sym == MM_GENERAL ? h.entries : 2 * h.entries;
    struct stat st;
    /* the shortest entry lines: "v\n" (array), "1 1\n" (pattern), "1 1 1\n" */
    uint64_t least = (uint64_t)h.entries * (h.array ? 2 : h.field == MM_PATTERN ? 4 : 6);
    if (stat(path, &st) == 0)
        sz->heap_text = inflated_size(path, (uint64_t)st.st_size > least ? (uint64_t)st.st_size
                                                                        : least);
    return 0;
}
