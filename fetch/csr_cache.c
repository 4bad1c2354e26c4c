/*
 * csr_cache.c — the binary CSR cache: a matrix parsed once from text is
 * reloaded at disk speed afterwards.
 *
 * File layout (host byte order; the cache is local to one machine):
 *   header (72 bytes, struct cache_header below)
 *   rowptr  int32[rows + 1]
 *   colidx  int32[nnz]
 *   val     double[nnz]
 * The header carries its own checksum and the XXH3 of the arrays
 * (sp_csr_checksum), plus the source file's size and mtime so a changed
 * source makes the entry stale.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "matrix.h"

#define CACHE_MAGIC "SPSWCSR"           /* 7 characters + NUL = 8 bytes */
#define CACHE_VERSION 2u                /* bump whenever the layout changes */
#define IO_CHUNK ((size_t)1 << 30)      /* largest single read()/write() */
#define READ_CHUNK ((size_t)8 << 20)    /* unit of the parallel read */

typedef struct cache_header {
    char magic[8];
    uint32_t version;
    uint32_t header_size;
    int32_t rows, cols, nnz;
    uint32_t reserved;                  /* zero; aligns the 64-bit fields */
    uint64_t src_size;
    int64_t src_mtime_ns;
    uint64_t src_hash;
    uint64_t data_hash;
    uint64_t header_hash;               /* XXH3 of every byte above it */
} cache_header;

_Static_assert(sizeof(cache_header) == 72, "cache header layout must not change silently");

/* Checksum of the header's bytes before its header_hash field. */
static uint64_t header_hash(const cache_header *h)
{
    return XXH3_64bits(h, offsetof(cache_header, header_hash));
}

/* Bytes the arrays of a rows x ? matrix with nnz entries take. */
static int64_t arrays_size(int32_t rows, int32_t nnz)
{
    return ((int64_t)rows + 1) * 4 + (int64_t)nnz * (4 + 8);
}

/* Write all n bytes, in chunks, retrying on EINTR. -1 with errno set. */
static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n < IO_CHUNK ? n : IO_CHUNK);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Read exactly n bytes; returns the count read (< n at end of file), or
 * -1 with errno set. */
static ssize_t read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        size_t want = n - got < IO_CHUNK ? n - got : IO_CHUNK;
        ssize_t r = read(fd, p + got, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Header, then the three arrays, to fd. */
static int write_body(int fd, const sp_csr *A, const sp_cache_info *info)
{
    cache_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, sizeof h.magic);
    h.version = CACHE_VERSION;
    h.header_size = sizeof h;
    h.rows = A->rows;
    h.cols = A->cols;
    h.nnz = A->nnz;
    if (info) {
        h.src_size = info->src_size;
        h.src_mtime_ns = info->src_mtime_ns;
        h.src_hash = info->src_hash;
    }
    h.data_hash = sp_csr_checksum(A);   /* computed, never trusted from info */
    h.header_hash = header_hash(&h);
    if (write_all(fd, &h, sizeof h) ||
        write_all(fd, A->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr) ||
        write_all(fd, A->colidx, (size_t)A->nnz * sizeof *A->colidx) ||
        write_all(fd, A->val, (size_t)A->nnz * sizeof *A->val))
        return -1;
    return 0;
}

/* Write A to path through a temp file in the same directory and a rename,
 * so readers never see a half-written cache. */
int sp_cache_write(const char *path, const sp_csr *A, const sp_cache_info *info,
                   sp_err *err)
{
    if (!path || !*path || !A || !A->rowptr || A->rows < 0 || A->nnz < 0 ||
        (A->nnz > 0 && (!A->colidx || !A->val)))
        return sp_fail(err, "cache write: invalid arguments");
    if (sp_mkdir_parent(path, err))
        return -1;
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
        return sp_fail(err, "cache path too long: %s", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return sp_fail(err, "cannot create %s: %s", tmp, strerror(errno));
    int bad = write_body(fd, A, info) || fchmod(fd, 0644);
    int saved = errno;
    if (close(fd) && !bad)
        bad = 1, saved = errno;
    if (!bad && rename(tmp, path))
        bad = 1, saved = errno;
    if (bad) {
        unlink(tmp);
        return sp_fail(err, "cannot write %s: %s", path, strerror(saved));
    }
    return 0;
}

/* Read and check the header: magic, version, size, checksum, shape and
 * the file size it implies. The message is the reason only. */
static int read_header(int fd, int64_t file_size, cache_header *h, sp_err *err)
{
    memset(h, 0, sizeof *h);
    ssize_t got = read_all(fd, h, sizeof *h);
    if (got < 0)
        return sp_fail(err, "cannot read: %s", strerror(errno));
    if (got < (ssize_t)sizeof h->magic || memcmp(h->magic, CACHE_MAGIC, sizeof h->magic))
        return sp_fail(err, "not a spsweep CSR cache (bad magic)");
    if (got < (ssize_t)sizeof *h)
        return sp_fail(err, "truncated (%lld bytes, the header alone takes %zu)",
                       (long long)file_size, sizeof *h);
    if (h->version != CACHE_VERSION)
        return sp_fail(err, "format version %u, expected %u", h->version, CACHE_VERSION);
    if (h->header_size != sizeof *h || h->header_hash != header_hash(h))
        return sp_fail(err, "corrupt: header checksum mismatch");
    if (h->rows < 0 || h->cols < 0 || h->nnz < 0)
        return sp_fail(err, "corrupt: shape %d x %d with %d nonzeros", h->rows, h->cols,
                       h->nnz);
    int64_t want = (int64_t)sizeof *h + arrays_size(h->rows, h->nnz);
    if (file_size < want)
        return sp_fail(err, "truncated (%lld bytes, expected %lld)", (long long)file_size,
                       (long long)want);
    if (file_size > want)
        return sp_fail(err, "corrupt: %lld bytes, expected %lld", (long long)file_size,
                       (long long)want);
    return 0;
}

/* Read n bytes at file offset off into buf, in chunks spread over the
 * threads: page faults on the fresh arrays, not the copy, bound a
 * single-threaded read. Returns 0, or -1 on an error or short read. */
static int read_parallel(int fd, void *buf, size_t n, int64_t off)
{
    int64_t chunks = (int64_t)((n + READ_CHUNK - 1) / READ_CHUNK);
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad)
    for (int64_t c = 0; c < chunks; c++) {
        size_t at = (size_t)c * READ_CHUNK, want = n - at < READ_CHUNK ? n - at : READ_CHUNK;
        while (want > 0 && !bad) {
            ssize_t r = pread(fd, (char *)buf + at, want, (off_t)(off + (int64_t)at));
            if (r < 0 && errno == EINTR)
                continue;
            bad |= r <= 0;
            at += r > 0 ? (size_t)r : 0;
            want -= r > 0 ? (size_t)r : 0;
        }
    }
    return bad ? -1 : 0;
}

/* Read the three arrays into a freshly allocated A and verify them. */
static int read_arrays(int fd, const cache_header *h, sp_csr *A, sp_err *err)
{
    if (sp_csr_alloc(A, h->rows, h->cols, h->nnz, err))
        return -1;
    size_t nr = ((size_t)h->rows + 1) * sizeof *A->rowptr;
    size_t nc = (size_t)h->nnz * sizeof *A->colidx, nv = (size_t)h->nnz * sizeof *A->val;
    int64_t off = (int64_t)sizeof *h;
    if (read_parallel(fd, A->rowptr, nr, off) ||
        read_parallel(fd, A->colidx, nc, off + (int64_t)nr) ||
        read_parallel(fd, A->val, nv, off + (int64_t)(nr + nc))) {
        sp_csr_free(A);
        return sp_fail(err, "truncated (short read)");
    }
    if (sp_csr_checksum(A) != h->data_hash || A->rowptr[0] != 0 ||
        A->rowptr[A->rows] != A->nnz) {
        sp_csr_free(A);
        return sp_fail(err, "corrupt: data checksum mismatch");
    }
    return 0;
}

/* Read a cache file: 1 when absent, -1 with the reason alone (the caller
 * names the file) when unusable, 0 with A and info filled. */
int sp_cache_read(const char *path, const sp_cache_info *expect, sp_csr *A,
                  sp_cache_info *info, sp_err *err)
{
    memset(A, 0, sizeof *A);
    if (!path || !*path)
        return sp_fail(err, "no cache path given");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 1 : sp_fail(err, "cannot open: %s", strerror(errno));
    struct stat st;
    cache_header h;
    int rc = -1;
    if (fstat(fd, &st)) {
        sp_fail(err, "cannot stat: %s", strerror(errno));
        goto out;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (read_header(fd, (int64_t)st.st_size, &h, err))
        goto out;
    if (expect && (expect->src_size != h.src_size || expect->src_mtime_ns != h.src_mtime_ns)) {
        sp_fail(err, "stale: source changed (size/mtime)");
        goto out;
    }
    if (read_arrays(fd, &h, A, err))
        goto out;
    if (info)
        *info = (sp_cache_info){h.src_size, h.src_mtime_ns, h.src_hash, h.data_hash};
    rc = 0;
out:
    close(fd);
    return rc;
}

/* The shape a cache file holds, from its header alone: 0 when the header
 * is sound (and matches expect, when given), else nonzero. What the
 * memory guard reads before sp_cache_read allocates the arrays. */
int sp_cache_peek(const char *path, const sp_cache_info *expect, int32_t *rows,
                  int32_t *cols, int32_t *nnz)
{
    int fd = path && *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return 1;
    struct stat st;
    cache_header h;
    int rc = fstat(fd, &st) || read_header(fd, (int64_t)st.st_size, &h, NULL) ||
             (expect && (expect->src_size != h.src_size ||
                         expect->src_mtime_ns != h.src_mtime_ns));
    close(fd);
    if (!rc)
        *rows = h.rows, *cols = h.cols, *nnz = h.nnz;
    return rc;
}
