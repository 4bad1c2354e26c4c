/*
 * transpose_scantrans.c — ScanTrans (H. Wang, W. Liu, K. Hou, W. Feng,
 * "Parallel Transposition of Sparse Data Structures", ICS'16) with OpenMP.
 *
 * The nonzeros are cut into `threads` equal ranges, one per thread. In one
 * parallel region, phases separated by barriers:
 *   1 histogram    thread t counts its columns into inter row t+1 and
 *                  records, per nonzero, its offset among the thread's
 *                  entries of the same column (intra);
 *   2 vertical scan  down each column of inter (columns split among the
 *                  threads): inter[t][j] becomes the number of column-j
 *                  entries in threads < t, inter[T][j] the column's count;
 *   3 final scan   the counts prefix-summed into colptr (parallel scan);
 *   4 scatter      entry k of thread t goes to
 *                  colptr[j] + inter[t][j] + intra[k].
 * Threads hold ranges in row order and intra counts in order, so rows stay
 * ascending in each column: the output equals the serial one.
 * Scratch: inter (threads+1)·cols int32, intra nnz int32 and threads+1
 * partial sums — inter grows with threads × cols, which need() states.
 */
#include <omp.h>
#include <string.h>

#include "../partition.h"
#include "transpose.h"

/* The scratch, carved out of s->work for nt threads. */
typedef struct scan_work {
    int64_t *sums;      /* nt + 1 */
    int32_t *inter;     /* (nt + 1) x cols */
    int32_t *intra;     /* nnz */
} scan_work;

static uint64_t scantrans_work(const sp_csr *A, int threads)
{
    return ((uint64_t)threads + 1) * sizeof(int64_t) +
           ((uint64_t)threads + 1) * (uint64_t)A->cols * sizeof(int32_t) +
           (uint64_t)A->nnz * sizeof(int32_t);
}

static scan_work carve(const sp_transpose_cpu *s, int nt)
{
    scan_work w;
    w.sums = s->work;
    w.inter = (int32_t *)(w.sums + nt + 1);
    w.intra = w.inter + ((size_t)nt + 1) * (size_t)s->A->cols;
    return w;
}

/* Phase 1: thread t's column counts into inter row t+1, offsets into intra. */
static void histogram(const sp_csr *A, const scan_work *w, int t, int64_t k0, int64_t k1)
{
    int32_t *mine = w->inter + ((size_t)t + 1) * (size_t)A->cols;
    memset(mine, 0, (size_t)A->cols * sizeof *mine);
    if (t == 0)
        memset(w->inter, 0, (size_t)A->cols * sizeof *w->inter);
    for (int64_t k = k0; k < k1; k++)
        w->intra[k] = mine[A->colidx[k]]++;
}

/* Phase 2 on columns [j0, j1): prefix over the thread rows, top to bottom
 * (row by row, so each pass is contiguous); the totals into colptr. */
static void vertical_scan(const sp_csr *A, const scan_work *w, int nt, int32_t *colptr,
                          int64_t j0, int64_t j1)
{
    size_t cols = (size_t)A->cols;
    for (int r = 1; r <= nt; r++)
        for (int64_t j = j0; j < j1; j++)
            w->inter[(size_t)r * cols + j] += w->inter[(size_t)(r - 1) * cols + j];
    for (int64_t j = j0; j < j1; j++)
        colptr[j] = w->inter[(size_t)nt * cols + j];
}

/* Phase 3: exclusive prefix sum of colptr[0..cols) in place, colptr[cols] =
 * the total; thread t owns [j0, j1). Called by every thread of the team. */
static void final_scan(int32_t *colptr, int32_t cols, const scan_work *w, int t, int nt,
                       int64_t j0, int64_t j1)
{
    int64_t sum = 0;
    for (int64_t j = j0; j < j1; j++)
        sum += colptr[j];
    w->sums[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    {
        w->sums[0] = 0;
        for (int i = 1; i <= nt; i++)
            w->sums[i] += w->sums[i - 1];
        colptr[cols] = (int32_t)w->sums[nt];
    }
    int64_t run = w->sums[t];
    for (int64_t j = j0; j < j1; j++) {
        int32_t c = colptr[j];
        colptr[j] = (int32_t)run;
        run += c;
    }
}

/* Phase 4: thread t's entries to their slots; rows found by walking from
 * the row that holds k0. */
static void scatter(const sp_csr *A, sp_csc *C, const scan_work *w, int t, int64_t k0,
                    int64_t k1)
{
    if (k0 >= k1)
        return;
    const int32_t *before = w->inter + (size_t)t * (size_t)A->cols;
    int32_t i = sp_prefix_find(A->rowptr, A->rows, k0 + 1) - 1;
    for (int64_t k = k0; k < k1; k++) {
        while (A->rowptr[i + 1] <= k)
            i++;
        int32_t j = A->colidx[k];
        int64_t dst = (int64_t)C->colptr[j] + before[j] + w->intra[k];
        C->rowidx[dst] = i;
        C->val[dst] = A->val[k];
    }
}

/* One thread's part of the four phases. */
static void scantrans_thread(sp_transpose_cpu *s, int t, int nt)
{
    const sp_csr *A = s->A;
    scan_work w = carve(s, nt);
    int64_t k0 = sp_split_equal(A->nnz, nt, t), k1 = sp_split_equal(A->nnz, nt, t + 1);
    int64_t j0 = sp_split_equal(A->cols, nt, t), j1 = sp_split_equal(A->cols, nt, t + 1);
    histogram(A, &w, t, k0, k1);
#pragma omp barrier
    vertical_scan(A, &w, nt, s->C.colptr, j0, j1);
    final_scan(s->C.colptr, A->cols, &w, t, nt, j0, j1);  /* barriers inside */
#pragma omp barrier
    scatter(A, &s->C, &w, t, k0, k1);
}

static int scantrans_run(void *state, double *seconds, sp_err *err)
{
    sp_transpose_cpu *s = state;
    if (!s)
        return sp_fail(err, "transpose_scantrans: run without a state");
    double t0 = sp_seconds();
#pragma omp parallel num_threads(s->threads)
    scantrans_thread(s, omp_get_thread_num(), omp_get_num_threads());
    *seconds = sp_seconds() - t0;
    return 0;
}

static int scantrans_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_phases *ph, sp_err *err)
{
    (void)ph;
    return sp_transpose_cpu_prepare("transpose_scantrans", scantrans_work, pb, p, state, err);
}

static int scantrans_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                          sp_err *err)
{
    return sp_transpose_cpu_need("transpose_scantrans", scantrans_work, pb, p, need, err);
}

const sp_kernel sp_transpose_scantrans = {
    .name = "transpose_scantrans",
    .operation = "transpose",
    .format = "csc",
    .backend = "openmp",
    .summary = "ScanTrans: per-thread column histograms, vertical and final scans, scatter",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = scantrans_prepare,
    .run = scantrans_run,
    .result = sp_transpose_cpu_result,
    .release = sp_transpose_cpu_release,
    .need = scantrans_need,
};
