/*
 * mm_par_csr.c — the parallel reader's CSR: the threads' parsed entries
 * (mm_par.c: in the CSR's own arrays, grouped by row block, each block in
 * file order) into a sorted CSR with duplicates summed, bit for bit what
 * the serial reader (mm_fill_csr, then mm_finish_rows) gives.
 *
 * The rows are cut into one contiguous range per thread, at row-block
 * boundaries, balanced by entries (the blocks' sizes are known from the
 * parse), so a thread owns its rows' counts, cursors and CSR slots and
 * nothing is shared but reads. Each thread takes its blocks in order and,
 * for each block (small enough to stay in cache):
 *   1. copies the block's entries aside (thread-local scratch, reused)
 *      and counts the entries of each row;
 *   2. turns the counts into cursors from where the range's entries so
 *      far end (packed: after the duplicates summed before, so never past
 *      the block's own place);
 *   3. puts the entries back at their rows' cursors, in file order;
 *   4. sorts each row and sums duplicates (mm_finish_range, the serial
 *      code), packing the rows behind the previous block's.
 * The CSR is never scattered over the whole matrix (the serial fill pass
 * does that: a cache miss an entry).
 * Summed duplicates leave a gap after each range; the ranges are then
 * moved down to close the gaps, in parallel: the only part of a range
 * another range's move may overwrite (what lies past where the range's
 * own packed entries will end) is saved first.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sparse.h"

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
static int cut_ranges(const mm_segs *s, int32_t rows, int threads, row_range *rg,
                      int64_t *longest)
{
    int64_t *tot = calloc((size_t)s->blocks + 1, sizeof *tot);
    if (!tot)
        return -1;
    for (int b = 0; b < s->blocks; b++)
        for (int k = 0; k < s->nchunks; k++)
            tot[b] += s->len[(size_t)b * (size_t)s->nchunks + (size_t)k];
    for (int b = 0; b < s->blocks; b++)
        *longest = tot[b] > *longest ? tot[b] : *longest;
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

/* A thread's scratch for one block's entries at a time. */
typedef struct block_scratch {
    int32_t *col;
    double *val;
    uint16_t *rib;
} block_scratch;

/* Steps 1-3 for block b, rows [lo, hi), its entries from slot n on (n is
 * at most the block's first slot); rowptr[i + 1] is row i's count, then
 * its cursor, then its end. */
static void sort_block(const mm_segs *s, sp_csr *A, int b, int32_t lo, int32_t hi, int32_t n,
                       block_scratch *w)
{
    int32_t *cnt = A->rowptr + 1, *colidx = A->colidx;
    double *val = A->val;
    size_t nc = (size_t)s->nchunks;
    uint32_t from = s->beg[(size_t)b * nc], m = 0;
    for (size_t k = 0; k < nc; k++)
        m += s->len[(size_t)b * nc + k];
    int cb = s->colbits;
    uint32_t cmask = cb >= 32 ? UINT32_MAX : ((uint32_t)1 << cb) - 1;
    memset(cnt + lo, 0, (size_t)(hi - lo) * sizeof *cnt);
    memcpy(w->col, colidx + from, (size_t)m * sizeof *w->col);
    memcpy(w->val, val + from, (size_t)m * sizeof *w->val);
    if (s->rib) {
        memcpy(w->rib, s->rib + from, (size_t)m * sizeof *w->rib);
        for (uint32_t q = 0; q < m; q++)
            cnt[lo + w->rib[q]]++;
    } else {
        for (uint32_t q = 0; q < m; q++)
            cnt[lo + (int32_t)((uint32_t)w->col[q] >> cb)]++;
    }
    int32_t sum = n;
    for (int32_t i = lo; i < hi; i++) {
        int32_t c = cnt[i];
        cnt[i] = sum;
        sum += c;
    }
    if (s->rib) {
        for (uint32_t q = 0; q < m; q++) {
            int32_t at = cnt[lo + w->rib[q]]++;
            colidx[at] = w->col[q];
            val[at] = w->val[q];
        }
    } else {
        for (uint32_t q = 0; q < m; q++) {
            uint32_t key = (uint32_t)w->col[q];
            int32_t at = cnt[lo + (int32_t)(key >> cb)]++;
            colidx[at] = (int32_t)(key & cmask);
            val[at] = w->val[q];
        }
    }
}

/* One range, block by block: each block sorted into rows right behind
 * the previous one's packed rows, then finished (step 4). */
static void build_range(const mm_segs *s, sp_csr *A, row_range *g, int64_t longest)
{
    size_t n1 = (size_t)(longest ? longest : 1);
    block_scratch w = {malloc(n1 * sizeof *w.col), malloc(n1 * sizeof *w.val),
                       s->rib ? malloc(n1 * sizeof *w.rib) : NULL};
    int64_t n = g->from;
    if (!w.col || !w.val || (s->rib && !w.rib))
        n = -1;
    for (int b = g->blo; b < g->bhi && n >= 0; b++) {
        int64_t lo = (int64_t)b << s->shift, hi = (int64_t)(b + 1) << s->shift;
        int32_t l = (int32_t)(lo < A->rows ? lo : A->rows);
        int32_t e = (int32_t)(hi < A->rows ? hi : A->rows);
        sort_block(s, A, b, l, e, (int32_t)n, &w);
        n = mm_finish_range(A, l, e, (int32_t)n);
    }
    free(w.col);
    free(w.val);
    free(w.rib);
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

int mm_segs_to_csr(const mm_text *t, const mm_segs *s, int threads, sp_csr *A, sp_err *err)
{
    row_range *rg = calloc((size_t)threads, sizeof *rg);
    int64_t longest = 0;
    if (!rg || cut_ranges(s, A->rows, threads, rg, &longest)) {
        free(rg);
        return sp_fail(err, "%s: out of memory for %lld entries", t->path, (long long)s->total);
    }
    A->rowptr[0] = 0;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int j = 0; j < threads; j++)
        build_range(s, A, &rg[j], longest);
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
    if (oom)
        return sp_fail(err, "%s: out of memory sorting rows", t->path);
    mm_shrink_entries(A, (int32_t)to);
    return 0;
}
