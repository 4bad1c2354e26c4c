/*
 * transpose_scantrans.c — ScanTrans (H. Wang, W. Liu, K. Hou, W. Feng,
 * "Parallel Transposition of Sparse Data Structures", ICS'16) with OpenMP.
 *
 * The nonzeros are cut into `threads` equal ranges, one per thread. In one
 * parallel region, phases separated by barriers:
 *   0 window       thread t finds the columns [lo_t, hi_t) its entries
 *                  touch (rows are sorted, so from each row's first and
 *                  last entry in the range); the windows are laid out one
 *                  after another in `inter`;
 *   1 histogram    thread t counts its columns into its window of inter;
 *   2 vertical scan  down each column (columns split among the threads),
 *                  over the windows that hold it, thread by thread:
 *                  inter_t[j] becomes the number of column-j entries in
 *                  threads < t, colptr[j] the column's count;
 *   3 final scan   the counts prefix-summed into colptr (parallel scan);
 *   4 scatter      thread t's entries in order, each to colptr[j] +
 *                  inter_t[j]++ (the window is the thread's cursor).
 * Threads hold ranges in row order and fill each column in order, so rows
 * stay ascending in each column: the output equals the serial one.
 *
 * Two departures from the paper, both for memory traffic (bench/RESULTS.md):
 * the per-thread histogram spans only the thread's column window, not all
 * columns — the paper's (threads+1) x cols `inter` is 612 MB for laplace2d
 * 3000^2 at 16 threads, zeroed, scanned and written back on every run,
 * more than the matrix itself, while its windows add up to about cols +
 * threads x bandwidth; and the in-column offsets (`intra`, nnz int32,
 * written by the histogram and read by the scatter) are not stored: the
 * scatter recounts them by incrementing the window. A matrix whose
 * threads touch every column (R-MAT) still costs (threads+1) x cols, which
 * need() states exactly: the windows are computed from A there too.
 */
#include <omp.h>
#include <string.h>

#include "../partition.h"
#include "transpose.h"

/* The scratch, carved out of s->work for nt threads. */
typedef struct scan_work {
    int64_t *sums;      /* nt + 1: the final scan's partial sums */
    int64_t *base;      /* nt + 1: window t is inter[base[t] .. base[t+1]) */
    int32_t *lo;        /* nt: window t covers columns lo[t] .. lo[t] + width */
    int32_t *inter;     /* base[nt] */
} scan_work;

/* Thread t's nonzeros [*k0, *k1) of nt equal ranges. */
static void nnz_range(const sp_csr *A, int nt, int t, int64_t *k0, int64_t *k1)
{
    *k0 = sp_split_equal(A->nnz, nt, t);
    *k1 = sp_split_equal(A->nnz, nt, t + 1);
}

/* Columns [*lo, *hi) the entries [k0, k1) touch ([0, 0) when none): each
 * row's columns are sorted (sparse.h), so its first and last entry inside
 * the range bound it. */
static void window(const sp_csr *A, int64_t k0, int64_t k1, int32_t *lo, int32_t *hi)
{
    *lo = *hi = 0;
    if (k0 >= k1)
        return;
    int32_t i = sp_prefix_find(A->rowptr, A->rows, k0 + 1) - 1, l = A->cols, h = 0;
    for (int64_t k = k0; k < k1; i++) {
        int64_t end = A->rowptr[i + 1] < k1 ? A->rowptr[i + 1] : k1;
        if (end > k) {
            l = A->colidx[k] < l ? A->colidx[k] : l;
            h = A->colidx[end - 1] + 1 > h ? A->colidx[end - 1] + 1 : h;
            k = end;
        }
    }
    *lo = l, *hi = h;
}

/* int32 counters in all the windows of nt threads. */
static uint64_t window_total(const sp_csr *A, int nt)
{
    uint64_t total = 0;
    for (int t = 0; t < nt; t++) {
        int64_t k0, k1;
        int32_t lo, hi;
        nnz_range(A, nt, t, &k0, &k1);
        window(A, k0, k1, &lo, &hi);
        total += (uint64_t)(hi - lo);
    }
    return total;
}

static uint64_t scantrans_work(const sp_csr *A, int threads, size_t vb)
{
    (void)vb;
    return ((uint64_t)threads + 1) * 2 * sizeof(int64_t) + (uint64_t)threads * sizeof(int32_t) +
           window_total(A, threads) * sizeof(int32_t);
}

static scan_work carve(const sp_transpose_cpu *s, int nt)
{
    scan_work w;
    w.sums = s->work;
    w.base = w.sums + nt + 1;
    w.lo = (int32_t *)(w.base + nt + 1);
    w.inter = w.lo + nt;
    return w;
}

/* Phase 0: the windows and their places in inter. 0, or -1 (in every
 * thread) when they do not fit the scratch prepare sized for
 * s->threads threads: the team came out smaller than asked. */
static int windows(const sp_transpose_cpu *s, const scan_work *w, int t, int nt,
                   int64_t k0, int64_t k1)
{
    int32_t hi;
    window(s->A, k0, k1, &w->lo[t], &hi);
    w->base[t + 1] = hi - w->lo[t];
#pragma omp barrier
#pragma omp single
    {
        w->base[0] = 0;
        for (int i = 1; i <= nt; i++)
            w->base[i] += w->base[i - 1];
    }
    uint64_t bytes = (uint64_t)((char *)(w->inter + w->base[nt]) - (char *)s->work);
    return nt == s->threads && bytes <= s->work_bytes ? 0 : -1;
}

/* Phase 1: thread t's column counts into its window. */
static void histogram(const sp_csr *A, const scan_work *w, int t, int64_t k0, int64_t k1)
{
    int32_t *mine = w->inter + w->base[t] - w->lo[t];  /* indexed by column */
    memset(mine + w->lo[t], 0, (size_t)(w->base[t + 1] - w->base[t]) * sizeof *mine);
    for (int64_t k = k0; k < k1; k++)
        mine[A->colidx[k]]++;
}

/* Phase 2 on columns [j0, j1): colptr[j] accumulates the counts window by
 * window, in thread order, and each window keeps the sum before it. */
static void vertical_scan(const scan_work *w, int nt, int32_t *colptr, int64_t j0,
                          int64_t j1)
{
    memset(colptr + j0, 0, (size_t)(j1 - j0) * sizeof *colptr);
    for (int t = 0; t < nt; t++) {
        int32_t *win = w->inter + w->base[t] - w->lo[t];
        int64_t a = w->lo[t] > j0 ? w->lo[t] : j0;
        int64_t b = w->lo[t] + (w->base[t + 1] - w->base[t]);
        b = b < j1 ? b : j1;
        for (int64_t j = a; j < b; j++) {
            int32_t c = win[j];
            win[j] = colptr[j];
            colptr[j] += c;
        }
    }
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

/* Phase 4: thread t's entries to their slots, in order; rows found by
 * walking from the row that holds k0. Values of type V: val in CSR order
 * to cval (double, or float at the `precision` single). */
#define SCATTER(NAME, V)                                                                   \
    static void NAME(const sp_csr *A, const V *val, const sp_csc *C, V *cval,              \
                     const scan_work *w, int t, int64_t k0, int64_t k1)                    \
    {                                                                                      \
        if (k0 >= k1)                                                                      \
            return;                                                                        \
        int32_t *next = w->inter + w->base[t] - w->lo[t]; /* indexed by column */         \
        int32_t i = sp_prefix_find(A->rowptr, A->rows, k0 + 1) - 1;                        \
        for (int64_t k = k0; k < k1; k++) {                                                \
            while (A->rowptr[i + 1] <= k)                                                  \
                i++;                                                                       \
            int32_t j = A->colidx[k];                                                      \
            int64_t dst = (int64_t)C->colptr[j] + next[j]++;                               \
            C->rowidx[dst] = i;                                                            \
            cval[dst] = val[k];                                                            \
        }                                                                                  \
    }
SCATTER(scatter_double, double)
SCATTER(scatter_float, float)

/* Where the sweep times steps (`steps = 1`, ex->mark set, the same in
 * every thread): wait for the team, then thread 0 marks the step that
 * starts, so each step's time is the whole team's. Without it, no barrier
 * is added: the measured kernel is the one a plain sweep runs. The steps
 * bear the names of study 001's four CUDA kernels. */
#define STEP(ex, t, name)                                                                  \
    do {                                                                                   \
        if ((ex)->mark) {                                                                  \
            _Pragma("omp barrier");                                                        \
            if ((t) == 0)                                                                  \
                sp_exec_mark(ex, name);                                                    \
        }                                                                                  \
    } while (0)

/* One thread's part of the phases; -1 when the team is not the one the
 * scratch was sized for. */
static int scantrans_thread(sp_transpose_cpu *s, const sp_exec *ex, int t, int nt)
{
    const sp_csr *A = s->A;
    scan_work w = carve(s, nt);
    int64_t k0, k1;
    nnz_range(A, nt, t, &k0, &k1);
    int64_t j0 = sp_split_equal(A->cols, nt, t), j1 = sp_split_equal(A->cols, nt, t + 1);
    if (windows(s, &w, t, nt, k0, k1))
        return -1;                                  /* the same answer in every thread */
    histogram(A, &w, t, k0, k1);
#pragma omp barrier
    STEP(ex, t, "vertical_scan");
    vertical_scan(&w, nt, s->C.colptr, j0, j1);
    STEP(ex, t, "prefix_sum");
    final_scan(s->C.colptr, A->cols, &w, t, nt, j0, j1);  /* barriers inside */
#pragma omp barrier
    STEP(ex, t, "write_back");
    if (s->prec == SP_SINGLE)
        scatter_float(A, s->val32, &s->C, s->cval32, &w, t, k0, k1);
    else
        scatter_double(A, A->val, &s->C, s->C.val, &w, t, k0, k1);
    return 0;
}

static int scantrans_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_transpose_cpu *s = state;
    if (!s)
        return sp_fail(err, "transpose_scantrans: launch without a state");
    int short_team = 0;
    sp_exec_mark(ex, "histogram");      /* with the windows of phase 0 */
#pragma omp parallel num_threads(s->threads) reduction(| : short_team)
    short_team = scantrans_thread(s, ex, omp_get_thread_num(), omp_get_num_threads()) != 0;
    if (short_team)
        return sp_fail(err, "transpose_scantrans: OpenMP gave fewer than threads = %d "
                       "threads (OMP_THREAD_LIMIT?)", s->threads);
    return 0;
}

static int scantrans_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_err *err)
{
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
    .naxes = 2,
    .axes = {{"threads", "1..nproc:*2,nproc"}, {SP_AXIS_PRECISION, "double"}},
    .prepare = scantrans_prepare,
    .launch = scantrans_launch,
    .result = sp_transpose_cpu_result,
    .release = sp_transpose_cpu_release,
    .need = scantrans_need,
};
