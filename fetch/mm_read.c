/*
 * mm_read.c — the Matrix Market reader: the whole format (coordinate and
 * array; real, double, integer, pattern, complex; general, symmetric,
 * skew-symmetric, hermitian), plain or gzip-compressed, into a sorted CSR.
 *
 * The text is mapped (or inflated) whole, with zero bytes after it. A
 * first pass counts the entries of each row, a second parses each entry
 * straight into its CSR slot, and mm_finish_rows sorts rows and sums
 * duplicates: no COO copy of the matrix is ever made. Line numbers are
 * counted only when an error needs one. Every malformed file gets
 * "PATH:LINE: problem" and no matrix.
 *
 * Large bodies are parsed by several threads (mm_par.c) into the same
 * result; a body with a problem is then read serially to name it.
 *
 * Memory follows the entries, not the size line's claims: a read that
 * cannot fit is refused before anything is allocated (mm_fit.c), and the
 * only array as long as the rows is the CSR's own row pointers (mm_csr.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#include "mm_read.h"

/* The whole text with MM_PAD zero bytes after it: mapped when plain,
 * inflated when gzip. */
typedef struct mm_bytes {
    char *data;
    size_t size;
    size_t mapped;              /* bytes mapped at data (0: malloc'd) */
    int unpopulated;            /* mapped but not paged in */
} mm_bytes;

/* Inflate a gzip file into memory. */
static int inflate_file(const char *path, int fd, mm_bytes *b, sp_err *err)
{
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return sp_fail(err, "%s: cannot open as gzip", path);
    }
    gzbuffer(gz, 1 << 20);
    size_t cap = 1 << 20;
    int n = 0;
    b->data = malloc(cap + MM_PAD);
    while (b->data && (n = gzread(gz, b->data + b->size, (unsigned)(cap - b->size))) > 0) {
        b->size += (size_t)n;
        if (b->size == cap) {
            char *bigger = realloc(b->data, (cap *= 2) + MM_PAD);
            if (!bigger)
                free(b->data);
            b->data = bigger;
        }
    }
    int gzerr = 0;
    char why[256];
    snprintf(why, sizeof why, "%s", n < 0 ? gzerror(gz, &gzerr) : "");
    gzclose(gz);
    if (!b->data)
        return sp_fail(err, "%s: out of memory inflating", path);
    if (n < 0) {
        free(b->data);
        b->data = NULL;
        return sp_fail(err, "%s: corrupt gzip data: %s", path, why);
    }
    memset(b->data + b->size, 0, MM_PAD);
    return 0;
}

/* Map the file, followed by at least a page of zeros: reserve anonymous
 * memory one page longer than the file and map the file over its start.
 * Paged in here (MAP_POPULATE) unless a parallel parse will page in its
 * chunks on its threads. */
static int map_file(const char *path, int fd, size_t size, int populate, mm_bytes *b,
                    sp_err *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (size + page - 1) / page * page + page;
    char *base = mmap(NULL, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base != MAP_FAILED && size > 0 &&
        mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | (populate ? MAP_POPULATE : 0),
             fd, 0) == MAP_FAILED) {
        munmap(base, span);
        base = MAP_FAILED;
    }
    close(fd);
    if (base == MAP_FAILED)
        return sp_fail(err, "%s: cannot map: %s", path, strerror(errno));
    madvise(base, size, MADV_SEQUENTIAL);
    b->data = base, b->size = size, b->mapped = span, b->unpopulated = !populate;
    return 0;
}

static int load_bytes(const char *path, const sp_mm_opts *o, int csr, mm_bytes *b,
                      sp_err *err)
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
    /* paged in here unless several threads will page in their chunks
     * (MAP_POPULATE costs less than one MADV_POPULATE_READ a chunk) */
    int spread = mm_par_wanted(o, (int64_t)st.st_size, csr) && mm_par_threads(o) > 1;
    return map_file(path, fd, (size_t)st.st_size, !spread, b, err);
}

static void free_bytes(mm_bytes *b)
{
    if (b->mapped)
        munmap(b->data, b->mapped);
    else
        free(b->data);
    memset(b, 0, sizeof *b);
}

/* Hash the text (when asked) and note whether it holds any '\r', a
 * cache-sized chunk at a time so that memory is read once for both. */
static void scan_text(mm_text *t, uint64_t *src_hash)
{
    const size_t chunk = (size_t)1 << 18;
    XXH3_state_t *s = src_hash ? XXH3_createState() : NULL;
    if (s)
        XXH3_64bits_reset(s);
    else if (src_hash)                  /* no memory for a state: one shot */
        *src_hash = XXH3_64bits(t->buf, (size_t)(t->end - t->buf));
    t->has_cr = 0;
    for (const char *p = t->buf; p < t->end; p += chunk) {
        size_t n = (size_t)(t->end - p) < chunk ? (size_t)(t->end - p) : chunk;
        if (s)
            XXH3_64bits_update(s, p, n);
        t->has_cr |= memchr(p, '\r', n) != NULL;
    }
    if (s) {
        *src_hash = XXH3_64bits_digest(s);
        XXH3_freeState(s);
    }
}

/* Banner, size line and the complex policy. */
static int read_header(const mm_text *t, const sp_mm_opts *o, mm_header *h,
                       const char **body, sp_err *err)
{
    if (mm_parse_header(t, h, body, err))
        return -1;
    if (h->field == MM_COMPLEX && o && o->complex == SP_COMPLEX_REFUSE)
        return sp_fail(err, "%s:1: complex values refused (--complex=refuse); use "
                       "--complex=real to read the real parts", t->path);
    return 0;
}

/* The reader's warnings, after a successful read, unless quiet: complex
 * values cut to their real parts, pattern entries whose values were
 * ignored (once, naming the first such line). */
static void warn_read(const mm_text *t, const mm_header *h, const char *ignored_value,
                      const sp_mm_opts *o)
{
    if (o && o->quiet)
        return;
    if (h->field == MM_COMPLEX)
        fprintf(stderr, "spsweep: %s: complex matrix, using the real parts "
                "(--complex=refuse to refuse such files)\n", t->path);
    if (ignored_value)
        fprintf(stderr, "spsweep: %s:%ld: pattern matrix whose entries carry a value "
                "column: the values are ignored (first on this line)\n", t->path,
                mm_line_of(t, ignored_value));
}

/* The steps both entry points share: map (or inflate) the file, read
 * banner and size line. The text is hashed and searched for '\r' by
 * the body's parse (scan_text when serial; mm_par.c on its threads). On
 * failure nothing stays allocated. */
static int open_text(const char *path, const sp_mm_opts *opts, int csr, mm_bytes *b,
                     mm_text *t, mm_header *h, const char **body, sp_err *err)
{
    if (load_bytes(path, opts, csr, b, err))
        return -1;
    /* The hash covers the bytes parsed: the inflated text for .gz files. */
    *t = (mm_text){.path = path, .buf = b->data, .end = b->data + b->size,
                   .unpopulated = b->unpopulated};
    if (read_header(t, opts, h, body, err)) {
        free_bytes(b);
        return -1;
    }
    return 0;
}

int sp_mm_read(const char *path, const sp_mm_opts *opts, sp_csr *A, uint64_t *src_hash,
               sp_err *err)
{
    memset(A, 0, sizeof *A);
    mm_bytes b;
    mm_text t;
    mm_header h;
    const char *body;
    if (open_text(path, opts, 1, &b, &t, &h, &body, err))
        return -1;
    const char *ignored_value = NULL;
    int rc = mm_par_csr(&t, &h, body, opts, A, &ignored_value, src_hash, err);
    if (rc == 1) {                      /* serial: small, one thread, or an error to name */
        scan_text(&t, src_hash);
        rc = mm_fill_csr(&t, &h, body, A, &ignored_value, err);
    }
    rc = rc || mm_finish_rows(A, err) ? -1 : 0;
    if (!rc)
        warn_read(&t, &h, ignored_value, opts);
    else
        sp_csr_free(A);
    free_bytes(&b);
    return rc;
}

int sp_mm_read_coo(const char *path, const sp_mm_opts *opts, sp_coo *T, uint64_t *src_hash,
                   sp_err *err)
{
    memset(T, 0, sizeof *T);
    mm_bytes b;
    mm_text t;
    mm_header h;
    const char *body;
    if (open_text(path, opts, 0, &b, &t, &h, &body, err))
        return -1;
    const char *ignored_value = NULL;
    int rc = mm_par_coo(&t, &h, body, opts, T, &ignored_value, src_hash, err);
    if (rc != 1) {
        if (!rc)
            warn_read(&t, &h, ignored_value, opts);
        else
            sp_coo_free(T);
        free_bytes(&b);
        return rc;
    }
    memset(T, 0, sizeof *T);
    scan_text(&t, src_hash);
    /* room for the entries the text can hold: a truncated file with a huge
     * entry count fails where it ends, not for memory */
    int64_t cap = mm_entries_bound(&t, &h, body);
    rc = mm_check_fit(&t, &h, body, 1, err);
    if (!rc && sp_coo_init(T, (int32_t)h.rows, (int32_t)h.cols, cap, err))
        rc = sp_fail_prefix(err, "%s", path);
    mm_sink s = {.coo = T};
    if (!rc)
        rc = mm_read_entries(&t, &h, body, &s, err);
    if (!rc)
        warn_read(&t, &h, s.ignored_value, opts);
    else
        sp_coo_free(T);
    free_bytes(&b);
    return rc;
}
