/*
 * mm_par.c — the Matrix Market body parsed by several threads.
 *
 * After the banner and size line the text (mapped, or inflated into
 * memory for .gz) is split into one chunk per thread at line boundaries;
 * each thread parses its chunk's lines exactly as the serial fill pass
 * would (mm_parse_chunk: the same fast/careful split per line) into its
 * own triplets, and the chunks are then joined in file order: into the
 * CSR by a count and a scatter (each thread placing a range of rows), or
 * copied into one COO. Within each row
 * the entries thus keep file order, so mm_finish_rows (a stable sort,
 * duplicates summed in file order) gives a result bit-identical to the
 * serial reader's.
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
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/hostmem.h"
#include "mm_read.h"

#define MM_PAR_MIN_BODY ((int64_t)1 << 20)

static _Atomic int last_threads;    /* sp_mm_last_parse_threads */

int sp_mm_last_parse_threads(void)
{
    return last_threads;
}

static int par_threads(const sp_mm_opts *o)
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

static void free_chunks(mm_chunk *c, int n)
{
    for (int k = 0; c && k < n; k++) {
        free(c[k].row);
        free(c[k].col);
        free(c[k].val);
    }
    free(c);
}

/* Will the chunks' triplets fit beside the result (extra bytes per
 * entry bound)? Unknown availability lets the read go ahead. */
static int par_fits(const mm_text *t, const mm_header *h, const char *body, uint64_t result)
{
    uint64_t entries = (uint64_t)mm_entries_bound(t, h, body), avail;
    uint64_t need = result + entries * (2 * sizeof(int32_t) + sizeof(double));
    return sp_host_mem_available(&avail) || need <= avail;
}

/* Split and parse. 0: *out holds *nc chunks whose entry lines match the
 * size line, none rejected, *total triplets in all; 1: the serial path
 * must run (not eligible, or a problem it will name); -1: no memory. */
static int par_parse(const mm_text *t, const mm_header *h, const char *body,
                     const sp_mm_opts *o, uint64_t result_bytes, mm_chunk **out, int *nc,
                     int64_t *total, sp_err *err)
{
    int threads = par_threads(o);
    int64_t min = o && o->par_min_body > 0 ? o->par_min_body : MM_PAR_MIN_BODY;
    int64_t len = (int64_t)(t->end - body);
    last_threads = 1;
    if (h->array || threads < 2 || len < min || !par_fits(t, h, body, result_bytes))
        return 1;
    mm_chunk *c = calloc((size_t)threads, sizeof *c);
    if (!c)
        return sp_fail(err, "%s: out of memory", t->path);
    const char *from = body;
    for (int k = 0; k < threads; k++) {
        const char *to = k + 1 == threads ? t->end : body + len * (k + 1) / threads;
        to = to <= from ? from : line_boundary(to, t->end);
        c[k].from = from, c[k].to = to;
        from = to;
    }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int k = 0; k < threads; k++)
        mm_parse_chunk(t, h, &c[k]);
    int64_t entries = 0, n = 0;
    int bad = 0;
    for (int k = 0; k < threads; k++) {
        entries += c[k].entries, n += c[k].n;
        bad |= c[k].bad;
    }
    if (bad || entries != h->entries || n > INT32_MAX) {
        free_chunks(c, threads);
        return 1;
    }
    *out = c, *nc = threads, *total = n;
    last_threads = threads;
    return 0;
}

static const char *first_ignored(const mm_chunk *c, int nc)
{
    for (int k = 0; k < nc; k++)
        if (c[k].ignored_value)
            return c[k].ignored_value;
    return NULL;
}

int mm_par_csr(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_csr *A, const char **ignored_value, sp_err *err)
{
    mm_chunk *c;
    int nc;
    int64_t n;
    /* the serial reader's memory check first: its refusal, its words */
    if (mm_check_fit(t, h, body, 0, err))
        return -1;
    uint64_t csr = ((uint64_t)h->rows + 1) * sizeof(int32_t) +
                   (uint64_t)mm_entries_bound(t, h, body) * (sizeof(int32_t) + sizeof(double));
    int rc = par_parse(t, h, body, o, csr, &c, &nc, &n, err);
    if (rc)
        return rc;
    memset(A, 0, sizeof *A);
    A->rows = (int32_t)h->rows, A->cols = (int32_t)h->cols, A->nnz = (int32_t)n;
    A->rowptr = calloc((size_t)A->rows + 1, sizeof(int32_t));
    A->colidx = sp_alloc_large((size_t)n * sizeof(int32_t));
    A->val = sp_alloc_large((size_t)n * sizeof(double));
    if (!A->rowptr || !A->colidx || !A->val) {
        free_chunks(c, nc);
        sp_csr_free(A);
        return sp_fail(err, "%s: out of memory for %lld entries", t->path, (long long)n);
    }
    /* count, then rowptr[i + 1] = the start of row i (the cursor), then
     * scatter: each cursor ends at its row's end. Each thread owns a range
     * of rows and scans every chunk in file order for them, so a row's
     * entries keep file order whatever the thread count. */
    int32_t *next = A->rowptr + 1;
    int th = nc;
#pragma omp parallel num_threads(th)
    {
        int me = omp_get_thread_num(), all = omp_get_num_threads();
        int32_t lo = (int32_t)((int64_t)A->rows * me / all);
        int32_t hi = (int32_t)((int64_t)A->rows * (me + 1) / all);
        for (int k = 0; k < nc; k++)
            for (int64_t e = 0; e < c[k].n; e++) {
                int32_t r = c[k].row[e];
                if (r >= lo && r < hi)
                    next[r]++;
            }
#pragma omp barrier
#pragma omp single
        {
            int32_t sum = 0;
            for (int32_t i = 0; i < A->rows; i++) {
                int32_t cnt = next[i];
                next[i] = sum;
                sum += cnt;
            }
        }
        for (int k = 0; k < nc; k++)
            for (int64_t e = 0; e < c[k].n; e++) {
                int32_t r = c[k].row[e];
                if (r >= lo && r < hi) {
                    int32_t at = next[r]++;
                    A->colidx[at] = c[k].col[e];
                    A->val[at] = c[k].val[e];
                }
            }
    }
    *ignored_value = first_ignored(c, nc);
    free_chunks(c, nc);
    return 0;
}

int mm_par_coo(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_coo *T, const char **ignored_value, sp_err *err)
{
    mm_chunk *c;
    int nc;
    int64_t n;
    if (mm_check_fit(t, h, body, 1, err))
        return -1;
    uint64_t coo = (uint64_t)mm_entries_bound(t, h, body) *
                   (2 * sizeof(int32_t) + sizeof(double));
    int rc = par_parse(t, h, body, o, coo, &c, &nc, &n, err);
    if (rc)
        return rc;
    /* the capacity the serial reader gives it */
    int64_t cap = mm_entries_bound(t, h, body);
    if (sp_coo_init(T, (int32_t)h->rows, (int32_t)h->cols, cap > n ? cap : n, err)) {
        free_chunks(c, nc);
        return sp_fail_prefix(err, "%s", t->path);
    }
    /* each chunk copied to its place by a thread of its own */
    int64_t *at = malloc((size_t)nc * sizeof *at);
    if (!at) {
        free_chunks(c, nc);
        sp_coo_free(T);
        return sp_fail(err, "%s: out of memory", t->path);
    }
    for (int k = 0; k < nc; k++)
        at[k] = T->nnz, T->nnz += c[k].n;
#pragma omp parallel for num_threads(nc) schedule(static, 1)
    for (int k = 0; k < nc; k++) {
        if (!c[k].n)
            continue;                   /* an empty chunk has no arrays */
        memcpy(T->row + at[k], c[k].row, (size_t)c[k].n * sizeof(int32_t));
        memcpy(T->col + at[k], c[k].col, (size_t)c[k].n * sizeof(int32_t));
        memcpy(T->val + at[k], c[k].val, (size_t)c[k].n * sizeof(double));
    }
    free(at);
    *ignored_value = first_ignored(c, nc);
    free_chunks(c, nc);
    return 0;
}
