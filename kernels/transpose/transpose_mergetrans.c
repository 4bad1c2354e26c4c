/*
 * transpose_mergetrans.c — MergeTrans (H. Wang, W. Liu, K. Hou, W. Feng,
 * ICS'16) with OpenMP: sort the nonzeros by column with merges instead of
 * per-thread column histograms, so the scratch does not grow with
 * threads × cols.
 *
 * The rows are cut into `threads` ranges of about equal nonzeros. Each
 * thread copies its entries as (column, row, value) triples and sorts its
 * range by column with a stable LSD radix sort (11-bit digits: 2 passes up
 * to 4 Mi columns, 3 beyond; the paper leaves the local sort open, and
 * merging the rows' sorted runs pairwise would take log2(rows) passes).
 * Then the threads' ranges are merged
 * pairwise in a tree (round s: thread t, t a multiple of 2s, merges its
 * block with the one s threads on), and the column pointer is read off the
 * sorted columns. The radix passes are stable, merges take the left run on
 * ties and the left run holds the earlier rows, so rows stay ascending in
 * each column.
 *
 * Triples ping-pong between two buffers; every thread runs the same number
 * of rounds (copying when it has nothing to merge), and the copy-in goes to
 * the buffer that makes the last round land in the CSC's own rowidx/val.
 * Scratch: a second set of triples and two column arrays, 20 bytes a nonzero.
 */
#include <omp.h>

#include "../partition.h"
#include "transpose.h"

typedef struct triples {
    int32_t *col, *row;
    double *val;
} triples;

static uint64_t mergetrans_work(const sp_csr *A, int threads)
{
    (void)threads;
    return (uint64_t)A->nnz * (sizeof(double) + 3 * sizeof(int32_t));
}

/* The two buffers: b[0] ends in the CSC, b[1] is scratch. */
static void buffers(sp_transpose_cpu *s, triples b[2])
{
    size_t nnz = (size_t)s->A->nnz;
    b[1].val = s->work;
    b[1].row = (int32_t *)(b[1].val + nnz);
    b[1].col = b[1].row + nnz;
    b[0].col = b[1].col + nnz;
    b[0].row = s->C.rowidx;
    b[0].val = s->C.val;
}

/* Stable merge of src[lo, mid) and src[mid, hi) into dst[lo, hi) by column. */
static void merge(const triples *src, const triples *dst, int64_t lo, int64_t mid, int64_t hi)
{
    int64_t a = lo, b = mid, o = lo;
    while (a < mid || b < hi) {
        int64_t f = (a < mid && (b >= hi || src->col[a] <= src->col[b])) ? a++ : b++;
        dst->col[o] = src->col[f];
        dst->row[o] = src->row[f];
        dst->val[o++] = src->val[f];
    }
}

/* Rounds that merge n sorted runs pairwise into one: ceil(log2 n). */
static int rounds_for(int64_t n)
{
    int r = 0;
    while (((int64_t)1 << r) < n)
        r++;
    return r;
}

/* Rows [r0, r1) as triples into dst. */
static void copy_in(const sp_csr *A, const triples *dst, int32_t r0, int32_t r1)
{
    for (int32_t i = r0; i < r1; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            dst->col[k] = A->colidx[k];
            dst->row[k] = i;
            dst->val[k] = A->val[k];
        }
}

/* Bits of the column sort's digits: 2048 counters per thread, on the stack. */
#define DIGIT_BITS 11
#define DIGITS (1 << DIGIT_BITS)

/* Digit passes that sort columns 0..cols-1: ceil(bits(cols - 1) / 11). */
static int digit_passes(int32_t cols)
{
    int bits = 0;
    while (bits < 31 && ((int64_t)1 << bits) < cols)
        bits++;
    return (bits + DIGIT_BITS - 1) / DIGIT_BITS;
}

/* Pass `pass` of a stable LSD radix sort by column of positions [lo, hi),
 * src -> dst (same positions). */
static void radix_pass(const triples *src, const triples *dst, int64_t lo, int64_t hi,
                       int pass)
{
    int64_t start[DIGITS] = {0};
    int shift = pass * DIGIT_BITS;
    for (int64_t k = lo; k < hi; k++)
        start[(src->col[k] >> shift) & (DIGITS - 1)]++;
    for (int64_t d = 0, run = lo; d < DIGITS; d++) {
        int64_t n = start[d];
        start[d] = run;
        run += n;
    }
    for (int64_t k = lo; k < hi; k++) {
        int64_t o = start[(src->col[k] >> shift) & (DIGITS - 1)]++;
        dst->col[o] = src->col[k];
        dst->row[o] = src->row[k];
        dst->val[o] = src->val[k];
    }
}

/* colptr from the sorted columns of positions [k0, k1): colptr[j] = first
 * position with column >= j; the last thread also fills the columns after
 * the last used one (all of them when nnz = 0). */
static void pointers(const int32_t *col, int32_t nnz, int32_t cols, int32_t *colptr,
                     int64_t k0, int64_t k1, int last)
{
    for (int64_t k = k0; k < k1; k++)
        for (int32_t j = k ? col[k - 1] + 1 : 0; j <= col[k]; j++)
            colptr[j] = (int32_t)k;
    if (last)
        for (int32_t j = nnz ? col[nnz - 1] + 1 : 0; j <= cols; j++)
            colptr[j] = nnz;
}

/* One thread's part: copy in, radix passes, tree rounds, pointers. */
static void mergetrans_thread(sp_transpose_cpu *s, int t, int nt)
{
    const sp_csr *A = s->A;
    triples b[2];
    buffers(s, b);
    int local = digit_passes(A->cols), total = local + rounds_for(nt), cur = total % 2;
    int32_t r0 = sp_split_prefix(A->rowptr, A->rows, nt, t);
    int32_t r1 = sp_split_prefix(A->rowptr, A->rows, nt, t + 1);
    copy_in(A, &b[cur], r0, r1);
    for (int r = 0; r < local; r++, cur ^= 1)
        radix_pass(&b[cur], &b[cur ^ 1], A->rowptr[r0], A->rowptr[r1], r);
    for (int step = 1; step < nt; step *= 2, cur ^= 1) {
#pragma omp barrier
        if (t % (2 * step) == 0) {
            int m = t + step < nt ? t + step : nt, e = t + 2 * step < nt ? t + 2 * step : nt;
            merge(&b[cur], &b[cur ^ 1], A->rowptr[r0],
                  A->rowptr[sp_split_prefix(A->rowptr, A->rows, nt, m)],
                  A->rowptr[sp_split_prefix(A->rowptr, A->rows, nt, e)]);
        }
    }
#pragma omp barrier
    pointers(b[0].col, A->nnz, A->cols, s->C.colptr, sp_split_equal(A->nnz, nt, t),
             sp_split_equal(A->nnz, nt, t + 1), t == nt - 1);
}

static int mergetrans_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    sp_transpose_cpu *s = state;
    if (!s)
        return sp_fail(err, "transpose_mergetrans: launch without a state");
#pragma omp parallel num_threads(s->threads)
    mergetrans_thread(s, omp_get_thread_num(), omp_get_num_threads());
    return 0;
}

static int mergetrans_prepare(const sp_problem *pb, const sp_params *p, void **state,
                              sp_err *err)
{
    return sp_transpose_cpu_prepare("transpose_mergetrans", mergetrans_work, pb, p, state,
                                    err);
}

static int mergetrans_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                           sp_err *err)
{
    return sp_transpose_cpu_need("transpose_mergetrans", mergetrans_work, pb, p, need, err);
}

const sp_kernel sp_transpose_mergetrans = {
    .name = "transpose_mergetrans",
    .operation = "transpose",
    .format = "csc",
    .backend = "openmp",
    .summary = "MergeTrans: per-thread merge sort by column, pairwise tree merges, pointers",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = mergetrans_prepare,
    .launch = mergetrans_launch,
    .result = sp_transpose_cpu_result,
    .release = sp_transpose_cpu_release,
    .need = mergetrans_need,
};
