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
 * Scratch: a second set of triples and two column arrays, 20 bytes a nonzero
 * (16 at the `precision` single, whose triples carry float values:
 * transpose_mergetrans_v.h holds the steps that move values, built once
 * per type).
 */
#include <omp.h>

#include "../partition.h"
#include "transpose.h"

static uint64_t mergetrans_work(const sp_csr *A, int threads, size_t vb)
{
    (void)threads;
    return (uint64_t)A->nnz * (vb + 3 * sizeof(int32_t));
}

/* Rounds that merge n sorted runs pairwise into one: ceil(log2 n). */
static int rounds_for(int64_t n)
{
    int r = 0;
    while (((int64_t)1 << r) < n)
        r++;
    return r;
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

/* The value-carrying steps, in double and in float. */
#define MT_V double
#define MT(name) name##_double
#define MT_AVAL(s) ((s)->A->val)
#define MT_CVAL(s) ((s)->C.val)
#include "transpose_mergetrans_v.h"
#undef MT_V
#undef MT
#undef MT_AVAL
#undef MT_CVAL
#define MT_V float
#define MT(name) name##_float
#define MT_AVAL(s) ((s)->val32)
#define MT_CVAL(s) ((s)->cval32)
#include "transpose_mergetrans_v.h"

static int mergetrans_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    sp_transpose_cpu *s = state;
    if (!s)
        return sp_fail(err, "transpose_mergetrans: launch without a state");
#pragma omp parallel num_threads(s->threads)
    if (s->prec == SP_SINGLE)
        mergetrans_thread_float(s, omp_get_thread_num(), omp_get_num_threads());
    else
        mergetrans_thread_double(s, omp_get_thread_num(), omp_get_num_threads());
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
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {SP_AXIS_PRECISION, "double"}},
    .prepare = mergetrans_prepare,
    .launch = mergetrans_launch,
    .result = sp_transpose_cpu_result,
    .release = sp_transpose_cpu_release,
    .need = mergetrans_need,
};
