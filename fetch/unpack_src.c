/*
 * unpack_src.c — the archive file's bytes as the tar reader sees them:
 * gunzipped with zlib, CRC and length checked, when the file is gzip'd;
 * unchanged otherwise (why: unpack_int.h). Multi-member gzip files
 * (concatenated streams) are read whole; anything else after the gzip
 * data is refused, as a sign the file is not what was served.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unpack_int.h"

#define IN_CHUNK ((size_t)64 << 10)     /* compressed bytes per read() */
#define OUT_CHUNK ((size_t)256 << 10)   /* inflated bytes per call */

/* Record why reading failed; returns -1. */
__attribute__((format(printf, 2, 3)))
static int src_fail(unpack_src *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* read() retrying on EINTR. */
static ssize_t read_some(int fd, void *buf, size_t n)
{
    ssize_t r;
    do
        r = read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

/* read_some that also hashes what it read (the archive's SHA-256). */
static ssize_t read_hashed(unpack_src *s, void *buf, size_t n)
{
    ssize_t r = read_some(s->fd, buf, n);
    if (r > 0 && s->raw_live) {
        sp_sha256_update(&s->raw, buf, (size_t)r);
        s->raw_bytes += (uint64_t)r;
    }
    return r;
}

/* True when the file starts with the gzip magic (1f 8b). */
static int starts_gzip(int fd)
{
    unsigned char m[2];
    return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* Allocate the buffers and the inflater (gzip only: windowBits 16 + 15). */
static int src_setup(unpack_src *s)
{
    s->in = malloc(IN_CHUNK);
    if (!s->in)
        return src_fail(s, "out of memory");
    if (!s->gzip)
        return 0;
    s->out = malloc(OUT_CHUNK);
    if (!s->out)
        return src_fail(s, "out of memory");
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
        return src_fail(s, "cannot start zlib: %s", s->z.msg ? s->z.msg : "out of memory");
    s->z_live = 1;
    return 0;
}

int unpack_src_open(unpack_src *s, const char *path, const char *label, sp_err *err)
{
    struct stat st;
    memset(s, 0, sizeof *s);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0)
        return sp_fail(err, "%s: %s: cannot open: %s", label, path, strerror(errno));
    if (fstat(s->fd, &st))
        return sp_fail(err, "%s: %s: cannot stat: %s", label, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sp_fail(err, "%s: %s: not a regular file", label, path);
    if (st.st_size == 0)
        return sp_fail(err, "%s: %s is empty (0 bytes)", label, path);
    (void)posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    s->gzip = starts_gzip(s->fd);
    if (sp_sha256_init(&s->raw, err))
        return sp_fail_prefix(err, "%s", label);
    s->raw_live = 1;
    if (src_setup(s))
        return sp_fail(err, "%s: %s: %s", label, path, s->msg);
    return 0;
}

/* Refill the inflater's input when it is empty. */
static int fill(unpack_src *s)
{
    if (s->z.avail_in > 0 || s->in_eof)
        return 0;
    ssize_t r = read_hashed(s, s->in, IN_CHUNK);
    if (r < 0)
        return src_fail(s, "read error: %s", strerror(errno));
    if (r == 0)
        s->in_eof = 1;
    s->z.next_in = s->in;
    s->z.avail_in = (uInt)r;
    return 0;
}

/* After a gzip member: the end of the file, or the next member. */
static int next_member(unpack_src *s)
{
    if (s->z.avail_in == 0) {
        s->done = 1;        /* fill() ran first, so this is the end of the file */
        return 0;
    }
    if (s->z.next_in[0] != 0x1f)
        return src_fail(s, "data after the end of the gzip stream");
    if (inflateReset(&s->z) != Z_OK)
        return src_fail(s, "cannot restart zlib");
    s->member_end = 0;
    return 0;
}

/* Inflate until some output appears, the stream ends, or it fails. */
static ssize_t inflate_some(unpack_src *s, const void **p)
{
    for (;;) {
        if (fill(s) || (s->member_end && next_member(s)))
            return -1;
        if (s->done)
            return 0;
        if (s->z.avail_in == 0)
            return src_fail(s, "truncated gzip data (the file ends inside the stream)");
        s->z.next_out = s->out;
        s->z.avail_out = (uInt)OUT_CHUNK;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END)
            s->member_end = 1;  /* zlib has checked this member's CRC and length */
        else if (rc != Z_OK)
            return src_fail(s, "corrupt gzip data (%s)", s->z.msg ? s->z.msg : "no progress");
        size_t n = OUT_CHUNK - s->z.avail_out;
        if (n > 0) {
            *p = s->out;
            return (ssize_t)n;
        }
    }
}

ssize_t unpack_src_read(unpack_src *s, const void **p)
{
    if (s->msg[0])
        return -1;      /* a failed stream stays failed */
    if (s->gzip)
        return inflate_some(s, p);
    ssize_t r = read_hashed(s, s->in, IN_CHUNK);
    if (r < 0)
        return src_fail(s, "read error: %s", strerror(errno));
    *p = s->in;
    return r;
}

int unpack_src_drain(unpack_src *s, uint64_t limit)
{
    uint64_t left = 0;
    const void *p;
    if (!s->gzip)
        return 0;
    for (;;) {
        ssize_t n = unpack_src_read(s, &p);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        left += (uint64_t)n;
        if (left > limit) {
            char lim[32];
            unpack_format_bytes(limit, lim, sizeof lim);
            return src_fail(s, "more than %s of data after the end of the tar archive", lim);
        }
    }
}

int unpack_src_raw_hash(unpack_src *s, char hex[65], uint64_t *bytes)
{
    ssize_t r;
    while ((r = read_hashed(s, s->in, IN_CHUNK)) > 0)
        ;
    if (r < 0)
        return src_fail(s, "read error: %s", strerror(errno));
    sp_sha256_final(&s->raw, hex);
    s->raw_live = 0;
    *bytes = s->raw_bytes;
    return 0;
}

void unpack_src_close(unpack_src *s)
{
    if (s->raw_live)
        sp_sha256_abort(&s->raw);
    s->raw_live = 0;
    if (s->z_live)
        inflateEnd(&s->z);
    if (s->fd >= 0)
        close(s->fd);
    free(s->in);
    free(s->out);
    s->z_live = 0;
    s->fd = -1;
    s->in = s->out = NULL;
}
