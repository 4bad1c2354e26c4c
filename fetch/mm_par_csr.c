/*
 * mm_par_csr.c — the parallel reader's CSR: the threads' parsed entries
 * (mm_par.c: per chunk, in row-block order, each block in file order)
 * into a sorted CSR with duplicates summed, bit for bit what the serial
 * reader (mm_fill_csr, then mm_finish_rows) gives.
 *
 * The rows are cut into one contiguous range per thread, at row-block
 * boundaries, balanced by entries (the blocks' sizes are known from the
 * parse), so a thread owns its rows' counts, cursors and CSR slots and
 * nothing is shared but reads. Each thread takes its blocks in order and,
 * for each block (small enough that its part of the CSR stays in cache):
 *   1. counts the entries of each row, reading the block's segment of
 *      every chunk;
 *   2. turns the counts into cursors from where the range's entries so
 *      far end (packed: after the duplicates summed before);
 *   3. scatters the block's entries into their slots, chunk after chunk,
 *      so a row's entries keep file order;
 *   4. sorts each row and sums duplicates (mm_finish_range, the serial
 *      code), packing the rows behind the previous block's.
 * The CSR is thus written once, a block at a time, never scattered over
 * the whole matrix (which cost a cache miss an entry: measured in
 * bench/RESULTS.md, 2026-11-28).
 * Summed duplicates leave a gap after each range; the ranges are then
 * moved down to close the gaps, in parallel: the only part of a range
 * another range's move may overwrite (what lies past where the range's
 * own packed entries will end) is saved first.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mm_read.h"

/* One thread's rows: [lo, hi), the blocks [blo, bhi) holding them, its
 * entries from `from` (before duplicates are summed), to `to` once moved. */
typedef struct row_range {
    int32_t lo, hi;
    int blo, bhi;
    int64_t from, m, to;        /* m: its entries once summed (-1: out of memory) */
    int32_t *keep_col;          /* the saved part of its entries when moving */
    double *keep_val;
    int64_t keep;
} row_range;

/* The ranges: contiguous runs of blocks, each taking the blocks whose
 * middle falls within its share of the entries. */
static int cut_ranges(const mm_segs *s, int32_t rows, int threads, row_range *rg)
{
    int64_t *tot = calloc((size_t)s->blocks + 1, sizeof *tot);
    if (!tot)
        return -1;
    for (int b = 0; b < s->blocks; b++)
        for (int k = 0; k < s->nchunks; k++)
            tot[b] += s->len[(size_t)b * (size_t)s->nchunks + (size_t)k];
    int64_t acc = 0;
    int b = 0;
    for (int j = 0; j < threads; j++) {
        int64_t share = s->total * (j + 1) / threads;
        rg[j].blo = b, rg[j].from = acc;
        while (b < s->blocks && (j + 1 == threads || acc + tot[b] / 2 <= share))
            acc += tot[b++];
        rg[j].bhi = b;
        int64_t lo = (int64_t)rg[j].blo << s->shift, hi = (int64_t)rg[j].bhi << s->shift;
        rg[j].lo = (int32_t)(lo < rows ? lo : rows);
        rg[j].hi = (int32_t)(hi < rows ? hi : rows);
    }
    free(tot);
    return 0;
}

/* Steps 1-3 for block b, rows [lo, hi), its entries from slot n on;
 * rowptr[i + 1] is row i's count, then its cursor, then its end. */
static void scatter_block(const mm_segs *s, sp_csr *A, int b, int32_t lo, int32_t hi, int32_t n)
{
    int32_t *next = A->rowptr + 1, *colidx = A->colidx;
    double *val = A->val;
    size_t nc = (size_t)s->nchunks;
    const uint32_t *beg = s->beg + (size_t)b * nc, *len = s->len + (size_t)b * nc;
    memset(next + lo, 0, (size_t)(hi - lo) * sizeof *next);
    for (size_t k = 0; k < nc; k++) {
        const mm_trip *e = s->ent + s->at[k] + beg[k];
        if (k + 2 < nc)             /* segments are short: fetch the next ones early */
            __builtin_prefetch(s->ent + s->at[k + 2] + beg[k + 2]);
        for (uint32_t q = 0; q < len[k]; q++)
            next[e[q].row]++;
    }
    int32_t sum = n;
    for (int32_t i = lo; i < hi; i++) {
        int32_t c = next[i];
        next[i] = sum;
        sum += c;
    }
    for (size_t k = 0; k < nc; k++) {
        const mm_trip *e = s->ent + s->at[k] + beg[k];
        for (uint32_t q = 0; q < len[k]; q++) {
            int32_t at = next[e[q].row]++;
            colidx[at] = e[q].col;
            val[at] = e[q].val;
        }
    }
}

/* One range, block by block: each block scattered right behind the
 * previous one's packed rows, then finished (step 4). */
static void build_range(const mm_segs *s, sp_csr *A, row_range *g)
{
    int64_t n = g->from;
    for (int b = g->blo; b < g->bhi && n >= 0; b++) {
        int64_t lo = (int64_t)b << s->shift, hi = (int64_t)(b + 1) << s->shift;
        int32_t l = (int32_t)(lo < A->rows ? lo : A->rows), e = (int32_t)(hi < A->rows ? hi : A->rows);
        scatter_block(s, A, b, l, e, (int32_t)n);
        n = mm_finish_range(A, l, e, (int32_t)n);
    }
    g->m = n < 0 ? -1 : n - g->from;
}

/* Before any range moves: save the part of this range's entries that
 * lies at or past where its packed entries end after the move (the next
 * ranges' entries land there). */
static int save_tail(sp_csr *A, row_range *g)
{
    int64_t end = g->to + g->m, from = end > g->from ? end : g->from;
    g->keep = g->from + g->m - from;
    if (g->keep <= 0)
        return g->keep = 0, 0;
    g->keep_col = malloc((size_t)g->keep * sizeof *g->keep_col);
    g->keep_val = malloc((size_t)g->keep * sizeof *g->keep_val);
    if (!g->keep_col || !g->keep_val)
        return -1;
    memcpy(g->keep_col, A->colidx + from, (size_t)g->keep * sizeof *g->keep_col);
    memcpy(g->keep_val, A->val + from, (size_t)g->keep * sizeof *g->keep_val);
    return 0;
}

/* Move the range to `to`: the unsaved head (only this range reads or
 * writes there now), then the saved tail; its row ends follow. */
static void move_range(sp_csr *A, row_range *g)
{
    int64_t head = g->m - g->keep, down = g->from - g->to;
    memmove(A->colidx + g->to, A->colidx + g->from, (size_t)head * sizeof *A->colidx);
    memmove(A->val + g->to, A->val + g->from, (size_t)head * sizeof *A->val);
    if (g->keep) {
        memcpy(A->colidx + g->to + head, g->keep_col, (size_t)g->keep * sizeof *A->colidx);
        memcpy(A->val + g->to + head, g->keep_val, (size_t)g->keep * sizeof *A->val);
    }
    for (int32_t i = g->lo; i < g->hi; i++)
        A->rowptr[i + 1] -= (int32_t)down;
}

static void free_ranges(row_range *rg, int n)
{
    for (int j = 0; rg && j < n; j++) {
        free(rg[j].keep_col);
        free(rg[j].keep_val);
    }
    free(rg);
}

int mm_segs_to_csr(const mm_text *t, const mm_header *h, const mm_segs *s, int threads,
                   sp_csr *A, sp_err *err)
{
    memset(A, 0, sizeof *A);
    A->rows = (int32_t)h->rows, A->cols = (int32_t)h->cols, A->nnz = (int32_t)s->total;
    row_range *rg = calloc((size_t)threads, sizeof *rg);
    A->rowptr = malloc(((size_t)A->rows + 1) * sizeof *A->rowptr);
    A->colidx = sp_alloc_large((size_t)s->total * sizeof *A->colidx);
    A->val = sp_alloc_large((size_t)s->total * sizeof *A->val);
    if (!rg || !A->rowptr || !A->colidx || !A->val || cut_ranges(s, A->rows, threads, rg)) {
        free(rg);
        sp_csr_free(A);
        return sp_fail(err, "%s: out of memory for %lld entries", t->path, (long long)s->total);
    }
    A->rowptr[0] = 0;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int j = 0; j < threads; j++)
        build_range(s, A, &rg[j]);
    int64_t to = 0, oom = 0;
    for (int j = 0; j < threads; j++) {
        oom |= rg[j].m < 0;
        rg[j].to = to;
        to += rg[j].m;
    }
    if (!oom && to < s->total) {        /* duplicates were summed: close the gaps */
#pragma omp parallel for num_threads(threads) schedule(static, 1) reduction(| : oom)
        for (int j = 0; j < threads; j++)
            oom |= save_tail(A, &rg[j]);
        if (!oom) {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
            for (int j = 0; j < threads; j++)
                move_range(A, &rg[j]);
        }
    }
    free_ranges(rg, threads);
    if (oom) {
        sp_csr_free(A);
        return sp_fail(err, "%s: out of memory summing duplicates", t->path);
    }
    mm_shrink_entries(A, (int32_t)to);
    return 0;
}
