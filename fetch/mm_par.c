/*
 * mm_par.c — the Matrix Market body parsed by several threads.
 *
 * After the banner and size line the text (mapped, or inflated into
 * memory for .gz) is split at line boundaries into many chunks (at least
 * four per thread, at most 2 MiB each), which the threads take in file
 * order as they come free. Each chunk's lines are parsed exactly as the
 * serial fill pass parses them (mm_parse_chunk: the same fast/careful
 * split per line) into the thread's staging triplets, reused from chunk
 * to chunk so they stay in cache; then they are copied once:
 *   - for a COO, at the chunk's place in file order (its offset is the
 *     previous chunk's end, published as soon as that chunk is parsed);
 *   - for a CSR, into the CSR's own arrays, grouped by row block and in
 *     file order within each block (mm_segs in mm_read.h), where the
 *     build (mm_par_csr.c) sorts each block into rows while it is in
 *     cache. Where each chunk's part of each block goes is known before
 *     any entry is stored: a first, cheaper pass over the chunks counts
 *     their entries per block (row indices only). Reading the text twice
 *     costs less than any array as long as the entries: memory the kernel
 *     hands out fresh is cleared page by page, which on the development
 *     VM ran at 1-1.5 GB/s (bench/RESULTS.md, 2026-11-28).
 * One thread takes this path too for a CSR: the serial reader's fill
 * pass stores every entry at a random place in the whole CSR, a cache
 * miss an entry; blocks keep the stores within a few hundred KiB.
 * Work the serial reader does before the parse is spread too: each chunk
 * is paged in (MADV_POPULATE_READ) and searched for '\r' by the thread
 * that first reads it, and the source hash (XXH3 of the whole text, the
 * value the serial reader gives) is taken by the first thread, the others
 * reading meanwhile. Taking chunks as they come balances that and any
 * unevenness between threads.
 *
 * Errors stay the serial reader's own: when any chunk holds a line the
 * serial reader rejects, or the chunks' entry lines do not add up to the
 * size line's count (too few, too many, or a bad line after the last
 * announced entry), the parallel result is dropped and the serial reader
 * runs and names the first problem in file order with its file, line and
 * message. A malformed file thus costs a second (serial) parse; a valid
 * one never does.
 *
 * Threads: sp_mm_opts.threads, else $SPSWEEP_THREADS, else OpenMP's
 * default. An array file or a body under 1 MiB (by default) takes the
 * serial path, and so does a COO read on one thread.
 */
#include <immintrin.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "../core/hostmem.h"
#include "mm_read.h"

#define MM_PAR_MIN_BODY ((int64_t)1 << 20)
#define MM_PAR_CHUNK ((int64_t)2 << 20)     /* a chunk's text: its triplets fit in L2 */
#define MM_PAR_MAX_CHUNKS 4096
#define MM_PAR_MAX_BLOCKS 4096
#ifndef MM_PAR_BLOCK_ENTRIES
#define MM_PAR_BLOCK_ENTRIES 32768
#endif

static _Atomic int last_threads;    /* sp_mm_last_parse_threads */

int sp_mm_last_parse_threads(void)
{
    return last_threads;
}

int mm_par_threads(const sp_mm_opts *o)
{
    if (o && o->threads > 0)
        return o->threads;
    const char *env = getenv("SPSWEEP_THREADS");
    if (env && *env) {
        char *stop;
        long n = strtol(env, &stop, 10);
        if (!*stop && n > 0 && n <= 4096)
            return (int)n;
    }
    return omp_get_max_threads();
}

int mm_par_wanted(const sp_mm_opts *o, int64_t len, int csr)
{
    int64_t min = o && o->par_min_body > 0 ? o->par_min_body : MM_PAR_MIN_BODY;
    return mm_par_threads(o) >= (csr ? 1 : 2) && len >= min;
}

/* Will the triplets (COO: 16 bytes an entry; CSR: the rows' offsets in
 * their blocks when not packed, 2 bytes) fit beside the result? Unknown
 * availability lets the read go ahead. */
static int par_fits(const mm_text *t, const mm_header *h, const char *body, uint64_t result,
                    uint64_t per_entry)
{
    uint64_t entries = (uint64_t)mm_entries_bound(t, h, body), avail;
    uint64_t need = result + entries * per_entry;
    return sp_host_mem_available(&avail) || need <= avail;
}

/* One chunk of the split. done is the COO's hand-over: -1 until the
 * chunk is parsed, then the end of its triplets in the COO. */
typedef struct par_chunk {
    const char *from, *to;
    int has_cr;                 /* CSR: a '\r' in the chunk (found by the count pass) */
    int64_t n, entries;
    const char *ignored_value;
    _Atomic int64_t done;
} par_chunk;

/* The shared state of one parallel parse. */
typedef struct par_run {
    const mm_text *t;
    const mm_header *h;
    int csr;                    /* 1: into the CSR, grouped by block; 0: COO in file order */
    int nchunks;
    par_chunk *c;
    mm_segs *s;                 /* CSR: the blocks' segments */
    sp_csr *A;                  /* CSR: its arrays hold the grouped entries */
    int32_t *row, *col;         /* COO: its arrays */
    double *val;
    int64_t cap;                /* COO: room in its arrays */
    uint64_t *src_hash;
    XXH3_state_t *stream;       /* one thread: the hash taken chunk by chunk, in order */
    _Atomic int next;           /* the next chunk to take */
    _Atomic int failed;         /* a chunk was rejected, or memory ran out */
} par_run;

/* Page the chunk's text in before parsing it (one call instead of a fault
 * every few pages; older kernels refuse the advice and fault as usual). */
static void page_in(const char *from, const char *to)
{
#ifdef MADV_POPULATE_READ
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)from / page * page, b = (uintptr_t)to;
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_POPULATE_READ);
#else
    (void)from, (void)to;
#endif
}

/* COO: the end of chunk k - 1's triplets, once published; -1 when the
 * parse failed meanwhile. Chunks are taken in order, so chunk k - 1 is
 * being parsed by a running thread and the wait is short. */
static int64_t wait_previous(par_run *r, int k)
{
    if (k == 0)
        return 0;
    for (unsigned spins = 0;; spins++) {
        int64_t end = atomic_load_explicit(&r->c[k - 1].done, memory_order_acquire);
        if (end >= 0)
            return end;
        if (atomic_load_explicit(&r->failed, memory_order_relaxed))
            return -1;
        if (spins < 1024)
            _mm_pause();
        else
            sched_yield();          /* more threads than cores: let it run */
    }
}

/* CSR, first pass: chunk k's entries per block, into the block-major
 * table s->len; -1 at a line the parse rejects. */
static int count_one(par_run *r, int k, uint32_t *bcount)
{
    par_chunk *c = &r->c[k];
    mm_segs *s = r->s;
    size_t len = (size_t)(c->to - c->from), nc = (size_t)s->nchunks;
    if (r->t->unpopulated)
        page_in(c->from, c->to);
    mm_text t = *r->t;
    const char *from = k ? c->from : t.buf;     /* chunk 0: the header too */
    if (r->stream)                      /* the chunk is read just after: in cache */
        XXH3_64bits_update(r->stream, from, (size_t)(c->to - from));
    t.has_cr = c->has_cr = len && memchr(c->from, '\r', len) != NULL;
    memset(bcount, 0, (size_t)s->blocks * sizeof *bcount);
    c->entries = mm_count_chunk(&t, r->h, c->from, c->to, s->shift, bcount);
    for (int b = 0; b < s->blocks; b++)
        s->len[(size_t)b * nc + (size_t)k] = bcount[b];
    return c->entries < 0 ? -1 : 0;
}

/* CSR, second pass: chunk k's staged entries to their blocks' segments
 * (in file order: stable), the row's offset in its block packed above
 * the column or in s->rib. -1 when the parse stored other entries than
 * the count pass counted (it cannot, but no store may then go astray). */
static int place_by_block(par_run *r, const mm_chunk *st, int k, uint32_t *cursor)
{
    mm_segs *s = r->s;
    int shift = s->shift, cb = s->colbits;
    size_t nc = (size_t)s->nchunks;
    uint32_t mask = ((uint32_t)1 << shift) - 1;
    memset(cursor, 0, (size_t)s->blocks * sizeof *cursor);
    for (int64_t e = 0; e < st->n; e++)
        cursor[st->row[e] >> shift]++;
    for (int b = 0; b < s->blocks; b++) {
        if (cursor[b] != s->len[(size_t)b * nc + (size_t)k])
            return -1;
        cursor[b] = s->beg[(size_t)b * nc + (size_t)k];
    }
    int32_t *col = r->A->colidx;
    double *val = r->A->val;
    if (s->rib) {
        for (int64_t e = 0; e < st->n; e++) {
            uint32_t q = cursor[st->row[e] >> shift]++;
            col[q] = st->col[e], val[q] = st->val[e];
            s->rib[q] = (uint16_t)((uint32_t)st->row[e] & mask);
        }
    } else {
        for (int64_t e = 0; e < st->n; e++) {
            uint32_t q = cursor[st->row[e] >> shift]++;
            col[q] = (int32_t)((((uint32_t)st->row[e] & mask) << cb) | (uint32_t)st->col[e]);
            val[q] = st->val[e];
        }
    }
    return 0;
}

/* Parse chunk k into the staging triplets and hand them over. 0, or -1
 * when the chunk is rejected, does not fit, or the parse failed elsewhere. */
static int parse_one(par_run *r, int k, mm_chunk *st, uint32_t *cursor)
{
    par_chunk *c = &r->c[k];
    size_t len = (size_t)(c->to - c->from);
    mm_text t = *r->t;
    if (r->csr) {
        t.has_cr = c->has_cr;           /* paged in and searched by the count pass */
    } else {
        if (r->t->unpopulated)
            page_in(c->from, c->to);
        t.has_cr = len && memchr(c->from, '\r', len) != NULL;   /* this chunk's lines only */
    }
    st->from = c->from, st->to = c->to;
    st->n = 0, st->entries = 0, st->ignored_value = NULL, st->bad = 0;
    mm_parse_chunk(&t, r->h, st);
    c->n = st->n, c->entries = st->entries, c->ignored_value = st->ignored_value;
    if (st->bad)
        return -1;
    if (r->csr)
        return place_by_block(r, st, k, cursor);
    int64_t at = wait_previous(r, k);
    if (at < 0 || at + st->n > r->cap)
        return -1;
    atomic_store_explicit(&c->done, at + st->n, memory_order_release);
    if (st->n) {
        memcpy(r->row + at, st->row, (size_t)st->n * sizeof *st->row);
        memcpy(r->col + at, st->col, (size_t)st->n * sizeof *st->col);
        memcpy(r->val + at, st->val, (size_t)st->n * sizeof *st->val);
    }
    return 0;
}

/* One thread: the hash first on thread 0 (when hash), then chunks until
 * none is left: counted (count) or parsed. */
static void par_worker(par_run *r, int count, int hash)
{
    mm_chunk st = {0};
    uint32_t *cursor = r->csr ? malloc((size_t)r->s->blocks * sizeof *cursor + 1) : NULL;
    if (r->csr && !cursor)
        atomic_store(&r->failed, 1);
    if (hash && r->src_hash && !r->stream && omp_get_thread_num() == 0)
        *r->src_hash = XXH3_64bits(r->t->buf, (size_t)(r->t->end - r->t->buf));
    while (!atomic_load_explicit(&r->failed, memory_order_relaxed)) {
        int k = atomic_fetch_add(&r->next, 1);
        if (k >= r->nchunks)
            break;
        if (count ? count_one(r, k, cursor) : parse_one(r, k, &st, cursor))
            atomic_store(&r->failed, 1);
    }
    free(cursor);
    free(st.row);
    free(st.col);
    free(st.val);
}

/* Row blocks for the CSR build, a power of two rows each: at least 16 per
 * thread (so row ranges can be balanced by entries), and enough that a
 * block holds about MM_PAR_BLOCK_ENTRIES entries, so that its entries
 * (12 bytes each) stay in L2 while the build sorts them into rows. The
 * row's offset in its block goes above the column when both fit 32 bits,
 * else into a 16-bit array (s->rib, allocated by the caller); -1 when
 * neither fits (blocks of over 2^16 rows: matrices of over 2^28 rows),
 * which the serial reader then reads. */
static int choose_blocks(int64_t rows, int64_t cols, int64_t entries, int threads, mm_segs *s)
{
    int64_t want = (int64_t)threads * 16;
    if (want < entries / MM_PAR_BLOCK_ENTRIES)
        want = entries / MM_PAR_BLOCK_ENTRIES;
    if (want > MM_PAR_MAX_BLOCKS)
        want = MM_PAR_MAX_BLOCKS;
    int shift = 0, colbits = 0;
    while (((rows + ((int64_t)1 << shift) - 1) >> shift) > want)
        shift++;
    while (((int64_t)1 << colbits) < cols)
        colbits++;
    s->shift = shift, s->colbits = colbits;
    s->blocks = (int)((rows + ((int64_t)1 << shift) - 1) >> shift);
    return shift + colbits <= 32 || shift <= 16 ? 0 : -1;
}

/* The body split into chunks at line boundaries. */
static par_chunk *split_body(const mm_text *t, const char *body, int threads, int *nc)
{
    int64_t len = (int64_t)(t->end - body);
    int64_t n = (len + MM_PAR_CHUNK - 1) / MM_PAR_CHUNK;
    if (n < 4 * (int64_t)threads)
        n = 4 * (int64_t)threads;
    if (n > MM_PAR_MAX_CHUNKS)
        n = MM_PAR_MAX_CHUNKS;
    par_chunk *c = calloc((size_t)n, sizeof *c);
    if (!c)
        return NULL;
    const char *from = body;
    for (int64_t k = 0; k < n; k++) {
        const char *to = k + 1 == n ? t->end : body + len * (k + 1) / n;
        to = to <= from ? from : mm_next_line(to, t->end);
        c[k].from = from, c[k].to = to;
        atomic_init(&c[k].done, -1);
        from = to;
    }
    *nc = (int)n;
    return c;
}

/* The shared state of a run over the chunks, ready to start. */
static int start_run(par_run *r, const mm_text *t, const mm_header *h, const char *body,
                     int threads, uint64_t *src_hash)
{
    memset(r, 0, sizeof *r);
    r->t = t, r->h = h, r->src_hash = src_hash;
    atomic_init(&r->next, 0);
    atomic_init(&r->failed, 0);
    return (r->c = split_body(t, body, threads, &r->nchunks)) ? 0 : -1;
}

/* The chunks' entry lines in all, and the first pattern line with a value
 * (in file order). */
static int64_t sum_chunks(const par_run *r, const char **ignored_value)
{
    int64_t entries = 0;
    *ignored_value = NULL;
    for (int k = 0; k < r->nchunks; k++) {
        entries += r->c[k].entries;
        if (!*ignored_value)
            *ignored_value = r->c[k].ignored_value;
    }
    return entries;
}

static void free_segs(mm_segs *s)
{
    free(s->beg);
    free(s->len);
    free(s->rib);
    memset(s, 0, sizeof *s);
}

/* Each block's segments one after the other, blocks in row order: the
 * entries in all, or -1 when they do not fit 32-bit indices. */
static int64_t place_segments(mm_segs *s)
{
    int64_t at = 0;
    size_t n = (size_t)s->nchunks * (size_t)s->blocks;
    for (size_t q = 0; q < n; q++) {
        s->beg[q] = (uint32_t)at;
        at += s->len[q];
        if (at > INT32_MAX)
            return -1;
    }
    return at;
}

/* The CSR's arrays for the counted entries (rowptr uninitialised). */
static int alloc_csr(const mm_header *h, mm_segs *s, sp_csr *A)
{
    size_t n = (size_t)(s->total ? s->total : 1);
    A->rows = (int32_t)h->rows, A->cols = (int32_t)h->cols, A->nnz = (int32_t)s->total;
    A->rowptr = malloc(((size_t)A->rows + 1) * sizeof *A->rowptr);
    A->colidx = sp_alloc_large(n * sizeof *A->colidx);
    A->val = sp_alloc_large(n * sizeof *A->val);
    if (s->shift + s->colbits > 32)
        s->rib = sp_alloc_large(n * sizeof *s->rib);
    return A->rowptr && A->colidx && A->val && (s->shift + s->colbits <= 32 || s->rib) ? 0 : -1;
}

/* Count, place, parse: 0 with A holding the grouped entries; 1: the
 * serial path must run (nothing left allocated); -1: no memory. */
static int csr_parse(par_run *r, const mm_header *h, int threads, sp_csr *A,
                     const char **ignored_value, sp_err *err)
{
    mm_segs *s = r->s;
    size_t segs = (size_t)r->nchunks * (size_t)s->blocks;
    s->beg = malloc((segs ? segs : 1) * sizeof *s->beg);
    s->len = malloc((segs ? segs : 1) * sizeof *s->len);
    if (!s->beg || !s->len)
        return sp_fail(err, "%s: out of memory", r->t->path);
#pragma omp parallel num_threads(threads)
    par_worker(r, 1, 1);
    const char *unused;
    if (r->failed || sum_chunks(r, &unused) != h->entries || (s->total = place_segments(s)) < 0)
        return 1;
    if (r->stream)
        *r->src_hash = XXH3_64bits_digest(r->stream);
    if (alloc_csr(h, s, A))
        return sp_fail(err, "%s: out of memory for %lld entries", r->t->path,
                       (long long)s->total);
    r->A = A;
    atomic_store(&r->next, 0);
#pragma omp parallel num_threads(threads)
    par_worker(r, 0, 0);
    if (r->failed || sum_chunks(r, ignored_value) != h->entries)
        return 1;
    return 0;
}

int mm_par_csr(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_csr *A, const char **ignored_value, uint64_t *src_hash, sp_err *err)
{
    /* the serial reader's memory check first: its refusal, its words */
    if (mm_check_fit(t, h, body, 0, err))
        return -1;
    int threads = mm_par_threads(o);
    last_threads = 1;
    if (h->array || !mm_par_wanted(o, (int64_t)(t->end - body), 1))
        return 1;
    mm_segs s = {0};
    par_run r;
    if (start_run(&r, t, h, body, threads, src_hash))
        return sp_fail(err, "%s: out of memory", t->path);
    r.csr = 1, r.s = &s;
    s.nchunks = r.nchunks;
    /* one thread: hash each chunk as the count pass reads it, not the
     * whole text first (one pass over memory less) */
    if (threads == 1 && src_hash && (r.stream = XXH3_createState()))
        XXH3_64bits_reset(r.stream);
    int64_t bound = mm_entries_bound(t, h, body);
    uint64_t csr = ((uint64_t)h->rows + 1) * sizeof(int32_t) +
                   (uint64_t)bound * (sizeof(int32_t) + sizeof(double));
    int rc = choose_blocks(h->rows, h->cols, bound, threads, &s) ||
             (s.shift + s.colbits > 32 && !par_fits(t, h, body, csr, sizeof(uint16_t)))
                 ? 1
                 : csr_parse(&r, h, threads, A, ignored_value, err);
    free(r.c);
    XXH3_freeState(r.stream);
    if (!rc)
        rc = mm_segs_to_csr(t, &s, threads, A, err);
    free_segs(&s);
    if (rc) {
        sp_csr_free(A);
        memset(A, 0, sizeof *A);
    } else {
        last_threads = threads;
    }
    return rc;
}

int mm_par_coo(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_coo *T, const char **ignored_value, uint64_t *src_hash, sp_err *err)
{
    if (mm_check_fit(t, h, body, 1, err))
        return -1;
    int64_t cap = mm_entries_bound(t, h, body);
    uint64_t bytes = (uint64_t)cap * (2 * sizeof(int32_t) + sizeof(double));
    int threads = mm_par_threads(o);
    last_threads = 1;
    if (h->array || !mm_par_wanted(o, (int64_t)(t->end - body), 0) ||
        !par_fits(t, h, body, bytes, 2 * sizeof(int32_t) + sizeof(double)))
        return 1;
    /* the capacity the serial reader gives it */
    if (sp_coo_init(T, (int32_t)h->rows, (int32_t)h->cols, cap, err))
        return sp_fail_prefix(err, "%s", t->path);
    par_run r;
    if (start_run(&r, t, h, body, threads, src_hash)) {
        sp_coo_free(T);
        return sp_fail(err, "%s: out of memory", t->path);
    }
    r.row = T->row, r.col = T->col, r.val = T->val, r.cap = cap;
#pragma omp parallel num_threads(threads)
    par_worker(&r, 0, 1);
    int64_t entries = sum_chunks(&r, ignored_value), n = 0;
    for (int k = 0; k < r.nchunks; k++)
        n += r.c[k].n;
    free(r.c);
    if (r.failed || entries != h->entries) {
        sp_coo_free(T);
        return 1;
    }
    T->nnz = n;
    last_threads = threads;
    return 0;
}
