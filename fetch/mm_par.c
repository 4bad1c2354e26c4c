/*
 * mm_par.c — the Matrix Market body parsed by several threads.
 *
 * After the banner and size line the text (mapped, or inflated into
 * memory for .gz) is split at line boundaries into many chunks (at least
 * four per thread, at most 2 MiB each), which the threads take in file
 * order as they come free. Each chunk's lines are parsed exactly as the
 * serial fill pass parses them (mm_parse_chunk: the same fast/careful
 * split per line) into the thread's staging triplets, reused from chunk
 * to chunk so they stay in cache; then they are copied once into shared
 * arrays:
 *   - for a COO, at the chunk's place in file order (its offset is the
 *     previous chunk's end, published as soon as that chunk is parsed);
 *   - for a CSR, wherever there is room, sorted by row block (a counting
 *     sort, stable), so that each thread of the CSR build (mm_par_csr.c)
 *     later reads only its own rows' entries, chunk after chunk in file
 *     order.
 * Work the serial reader does before the parse is spread too: each chunk
 * is paged in (MADV_POPULATE_READ) and searched for '\r' by the thread
 * that parses it, and the source hash (XXH3 of the whole text, the value
 * the serial reader gives) is taken by the first thread, the others
 * parsing meanwhile. Taking chunks as they come balances that and any
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
 * default. One thread, an array file or a body under 1 MiB (by default)
 * takes the serial path.
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

#include "../kernels/hostmem.h"
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

/* The start of the line after the one holding p (a line start itself:
 * lines end in \n, \r\n or a lone \r, as mm_next_line reads them). */
static const char *line_boundary(const char *p, const char *end)
{
    while (p < end && !mm_is_eol(*p))
        p++;
    if (p < end && *p == '\r')
        p++;
    if (p < end && *p == '\n')
        p++;
    return p;
}

/* Will the triplets fit beside the result (extra bytes per entry bound)?
 * Unknown availability lets the read go ahead. */
static int par_fits(const mm_text *t, const mm_header *h, const char *body, uint64_t result)
{
    uint64_t entries = (uint64_t)mm_entries_bound(t, h, body), avail;
    uint64_t need = result + entries * (2 * sizeof(int32_t) + sizeof(double));
    return sp_host_mem_available(&avail) || need <= avail;
}

/* One chunk of the split. done is the COO's hand-over: -1 until the
 * chunk is parsed, then the end of its triplets in the COO. */
typedef struct par_chunk {
    const char *from, *to;
    int64_t n, entries;
    const char *ignored_value;
    _Atomic int64_t done;
} par_chunk;

/* The shared state of one parallel parse. */
typedef struct par_run {
    const mm_text *t;
    const mm_header *h;
    int csr;                    /* 1: block-sorted segments; 0: COO in file order */
    int nchunks;
    par_chunk *c;
    mm_segs *s;                 /* the shared arrays, and (CSR) the segments */
    int64_t cap;                /* room in the shared arrays */
    uint64_t *src_hash;
    _Atomic int next;           /* the next chunk to take */
    _Atomic int failed;         /* a chunk was rejected, or memory ran out */
    _Atomic int64_t used;       /* CSR: triplets placed so far */
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

/* Chunk k's staged triplets sorted into their row blocks at ent + at (a
 * counting sort: stable, so each block keeps file order); each block's
 * segment noted in the block-major tables. */
static void place_by_block(const par_run *r, const mm_chunk *st, int k, int64_t at,
                           uint32_t *cursor)
{
    mm_segs *s = r->s;
    int shift = s->shift;
    size_t nc = (size_t)s->nchunks;
    memset(cursor, 0, (size_t)s->blocks * sizeof *cursor);
    for (int64_t e = 0; e < st->n; e++)
        cursor[st->row[e] >> shift]++;
    uint32_t sum = 0;
    for (int b = 0; b < s->blocks; b++) {
        uint32_t c = cursor[b];
        s->beg[(size_t)b * nc + (size_t)k] = sum;
        s->len[(size_t)b * nc + (size_t)k] = c;
        cursor[b] = sum;
        sum += c;
    }
    mm_trip *ent = s->ent + at;
    for (int64_t e = 0; e < st->n; e++)
        ent[cursor[st->row[e] >> shift]++] = (mm_trip){st->row[e], st->col[e], st->val[e]};
}

/* Parse chunk k into the staging triplets and hand them over. 0, or -1
 * when the chunk is rejected, does not fit, or the parse failed elsewhere. */
static int parse_one(par_run *r, int k, mm_chunk *st, uint32_t *cursor)
{
    par_chunk *c = &r->c[k];
    size_t len = (size_t)(c->to - c->from);
    if (r->t->unpopulated)
        page_in(c->from, c->to);
    mm_text t = *r->t;
    t.has_cr = len && memchr(c->from, '\r', len) != NULL;   /* this chunk's lines only */
    st->from = c->from, st->to = c->to;
    st->n = 0, st->entries = 0, st->ignored_value = NULL, st->bad = 0;
    mm_parse_chunk(&t, r->h, st);
    c->n = st->n, c->entries = st->entries, c->ignored_value = st->ignored_value;
    if (st->bad)
        return -1;
    mm_segs *s = r->s;
    if (r->csr) {
        int64_t at = atomic_fetch_add(&r->used, st->n);
        if (at + st->n > r->cap)
            return -1;                  /* more entries than the text can hold: invalid */
        s->at[k] = at;
        place_by_block(r, st, k, at, cursor);
        return 0;
    }
    int64_t at = wait_previous(r, k);
    if (at < 0 || at + st->n > r->cap)
        return -1;
    atomic_store_explicit(&c->done, at + st->n, memory_order_release);
    if (st->n) {
        memcpy(s->row + at, st->row, (size_t)st->n * sizeof *st->row);
        memcpy(s->col + at, st->col, (size_t)st->n * sizeof *st->col);
        memcpy(s->val + at, st->val, (size_t)st->n * sizeof *st->val);
    }
    return 0;
}

/* One thread: the hash first on thread 0, then chunks until none is left. */
static void par_worker(par_run *r)
{
    mm_chunk st = {0};
    uint32_t *cursor = r->csr ? malloc((size_t)r->s->blocks * sizeof *cursor + 1) : NULL;
    if (r->csr && !cursor)
        atomic_store(&r->failed, 1);
    if (r->src_hash && omp_get_thread_num() == 0)
        *r->src_hash = XXH3_64bits(r->t->buf, (size_t)(r->t->end - r->t->buf));
    while (!atomic_load_explicit(&r->failed, memory_order_relaxed)) {
        int k = atomic_fetch_add(&r->next, 1);
        if (k >= r->nchunks)
            break;
        if (parse_one(r, k, &st, cursor))
            atomic_store(&r->failed, 1);
    }
    free(cursor);
    free(st.row);
    free(st.col);
    free(st.val);
}

/* Row blocks for the CSR build, a power of two rows each: at least 16 per
 * thread (so row ranges can be balanced by entries), and enough that a
 * block holds about MM_PAR_BLOCK_ENTRIES entries, so that its share of
 * the CSR (12 bytes an entry) and its triplets (16) stay in L2 while the
 * build scatters and sorts them. */
static void choose_blocks(int64_t rows, int64_t entries, int threads, mm_segs *s)
{
    int64_t want = (int64_t)threads * 16;
    if (want < entries / MM_PAR_BLOCK_ENTRIES)
        want = entries / MM_PAR_BLOCK_ENTRIES;
    if (want > MM_PAR_MAX_BLOCKS)
        want = MM_PAR_MAX_BLOCKS;
    int shift = 0;
    while (((rows + ((int64_t)1 << shift) - 1) >> shift) > want)
        shift++;
    s->shift = shift;
    s->blocks = (int)((rows + ((int64_t)1 << shift) - 1) >> shift);
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
        to = to <= from ? from : line_boundary(to, t->end);
        c[k].from = from, c[k].to = to;
        atomic_init(&c[k].done, -1);
        from = to;
    }
    *nc = (int)n;
    return c;
}

static void free_segs(mm_segs *s)
{
    free(s->at);
    free(s->beg);
    free(s->len);
    free(s->ent);
    memset(s, 0, sizeof *s);
}

/* Split, parse, hand over. 0: the chunks' entry lines match the size line
 * and none was rejected (*ignored_value: the first pattern line with a
 * value, in file order); 1: the serial path must run, nothing left
 * allocated; -1: no memory. With coo, the shared arrays are the COO's. */
static int par_parse(const mm_text *t, const mm_header *h, const char *body,
                     const sp_mm_opts *o, mm_segs *s, sp_coo *coo,
                     const char **ignored_value, uint64_t *src_hash, uint64_t result_bytes,
                     sp_err *err)
{
    int threads = mm_par_threads(o);
    last_threads = 1;
    if (h->array || !mm_par_wanted(o, (int64_t)(t->end - body), !coo) ||
        !par_fits(t, h, body, result_bytes))
        return 1;
    par_run r = {.t = t, .h = h, .csr = !coo, .s = s, .src_hash = src_hash,
                 .cap = mm_entries_bound(t, h, body)};
    atomic_init(&r.next, 0);
    atomic_init(&r.failed, 0);
    atomic_init(&r.used, 0);
    memset(s, 0, sizeof *s);
    if (!(r.c = split_body(t, body, threads, &r.nchunks)))
        return sp_fail(err, "%s: out of memory", t->path);
    s->nchunks = r.nchunks;
    if (coo) {
        s->row = coo->row, s->col = coo->col, s->val = coo->val;
    } else {
        choose_blocks(h->rows, r.cap, threads, s);
        size_t cap = (size_t)(r.cap ? r.cap : 1), segs = (size_t)r.nchunks * (size_t)s->blocks;
        s->at = malloc((size_t)r.nchunks * sizeof *s->at);
        s->beg = malloc((segs ? segs : 1) * sizeof *s->beg);
        s->len = malloc((segs ? segs : 1) * sizeof *s->len);
        s->ent = sp_alloc_large(cap * sizeof *s->ent);
        if (!s->at || !s->beg || !s->len || !s->ent) {
            free_segs(s);
            free(r.c);
            return sp_fail(err, "%s: out of memory for %lld entries", t->path,
                           (long long)r.cap);
        }
    }
#pragma omp parallel num_threads(threads)
    par_worker(&r);
    int64_t entries = 0, n = 0;
    const char *first = NULL;
    for (int k = 0; k < r.nchunks; k++) {
        entries += r.c[k].entries, n += r.c[k].n;
        if (!first)
            first = r.c[k].ignored_value;
    }
    free(r.c);
    if (r.failed || entries != h->entries || n > INT32_MAX) {
        if (coo)
            memset(s, 0, sizeof *s);    /* the arrays are the COO's: the caller's */
        else
            free_segs(s);
        return 1;
    }
    s->total = n;
    *ignored_value = first;
    last_threads = threads;
    return 0;
}

int mm_par_csr(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_csr *A, const char **ignored_value, uint64_t *src_hash, sp_err *err)
{
    /* the serial reader's memory check first: its refusal, its words */
    if (mm_check_fit(t, h, body, 0, err))
        return -1;
    uint64_t csr = ((uint64_t)h->rows + 1) * sizeof(int32_t) +
                   (uint64_t)mm_entries_bound(t, h, body) * (sizeof(int32_t) + sizeof(double));
    mm_segs s;
    int rc = par_parse(t, h, body, o, &s, NULL, ignored_value, src_hash,
                       csr, err);
    if (rc)
        return rc;
    rc = mm_segs_to_csr(t, h, &s, mm_par_threads(o), A, err);
    free_segs(&s);
    return rc;
}

int mm_par_coo(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_coo *T, const char **ignored_value, uint64_t *src_hash, sp_err *err)
{
    if (mm_check_fit(t, h, body, 1, err))
        return -1;
    int64_t cap = mm_entries_bound(t, h, body);
    uint64_t bytes = (uint64_t)cap * (2 * sizeof(int32_t) + sizeof(double));
    if (h->array || !mm_par_wanted(o, (int64_t)(t->end - body), 0) ||
        !par_fits(t, h, body, bytes)) {
        last_threads = 1;
        return 1;
    }
    /* the capacity the serial reader gives it */
    if (sp_coo_init(T, (int32_t)h->rows, (int32_t)h->cols, cap, err))
        return sp_fail_prefix(err, "%s", t->path);
    mm_segs s;
    int rc = par_parse(t, h, body, o, &s, T, ignored_value, src_hash,
                       bytes, err);
    if (rc) {
        sp_coo_free(T);
        return rc;
    }
    T->nnz = s.total;
    return 0;
}
