/*
 * spmv_dia.c — SpMV on the diagonal format (kernels/dia.h), serial and
 * OpenMP over rows, and the `need` of every DIA kernel (CPU and GPU).
 *
 * Rows are walked in strips of SP_DIA_STRIP so that the strip of y stays
 * in L1 while the pass goes down the diagonals; inside a strip each
 * diagonal is one unit-stride loop over val, x and y (no gather, no
 * column indices), clipped to the rows where the diagonal is inside the
 * matrix, so the padding outside it is never read. Diagonals go in
 * ascending offset, i.e. column, order: each y[i] sums its row's entries
 * in CSR order (plus zeros), as the serial reference does.
 *
 * The CPU kernels keep the values strip-major (a copy made in the
 * conversion, dia.h's diagonal-major array freed after it): strip q's
 * diagonal d at sval[(q·ndiags + d)·SP_DIA_STRIP], so a strip's values
 * are one contiguous run and a thread reads one stream, not one per
 * diagonal. Diagonal-major, a 27-point stencil is 27 streams a core,
 * more than the hardware prefetchers follow. On the 2-core development
 * VM (bench/RESULTS.md, 2026-12-07) one thread ran laplace3d n = 120 in
 * 21-26 ms instead of 36, the 2M-row band of width 16 in 30-34 instead of
 * 49.5; not yet timed on the 16-core host. The GPU kernel keeps dia.h's
 * layout (its threads read down a diagonal together).
 *
 * Inside a strip, the rows where no diagonal is clipped go SP_DIA_BLOCK
 * at a time through every diagonal with the sums in registers, y stored
 * once (a diagonal at a time, y was read and written once a diagonal: on
 * matrices that sit in cache that traffic was the cost). On the 2-core
 * Intel VM (bench/RESULTS.md, 2026-12-07, fifth session) one thread ran
 * olm1000 in 1.11 us instead of 1.61-1.80, a 2000-row band in 1.94 instead
 * of 2.9; the matrices that stream from memory are unchanged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../dia.h"
#include "../partition.h"
#include "spmv_gpu_host.h"

#define SP_DIA_STRIP 1024
/* y + v·x: fused where the target has FMA (one rounding; -std=c11 keeps
 * gcc from contracting a * b + c itself), else a multiply and an add. */
#ifdef __FMA__
#define DIA_MADD(v, x, y) fma(v, x, y)
#else
#define DIA_MADD(v, x, y) ((y) + (v) * (x))
#endif
/* Rows a strip's interior sums in registers across its diagonals. */
#ifndef SP_DIA_BLOCK
#define SP_DIA_BLOCK 16
#endif

typedef struct sp_spmv_dia {
    sp_dia D;           /* offsets; D.val freed once sval holds the values */
    double *sval;       /* strips · ndiags · SP_DIA_STRIP values, strip-major */
    int64_t strips;
    const double *x;
    double *y;          /* rows entries */
    int threads;        /* the `threads` axis, 1 when absent */
} sp_spmv_dia;

static int64_t strips_of(const sp_csr *A)
{
    return ((int64_t)A->rows + SP_DIA_STRIP - 1) / SP_DIA_STRIP;
}

/* Rows r0..r1 of strip q (first row i0) of y = D·x, a diagonal at a
 * time, each clipped to the rows where it is inside the matrix. */
static void dia_rows_clipped(const sp_spmv_dia *s, int64_t q, int64_t i0, int64_t r0,
                             int64_t r1, const double *restrict x, double *restrict y)
{
    const sp_dia *D = &s->D;
    for (int64_t i = r0; i < r1; i++)
        y[i] = 0.0;
    for (int32_t d = 0; d < D->ndiags; d++) {
        const int64_t off = D->offset[d];
        const int64_t lo = r0 > -off ? r0 : -off, hi = r1 < D->cols - off ? r1 : D->cols - off;
        const double *restrict v = s->sval + (q * D->ndiags + d) * SP_DIA_STRIP - i0;
#pragma omp simd
        for (int64_t i = lo; i < hi; i++)
            y[i] = DIA_MADD(v[i], x[i + off], y[i]);
    }
}

/* Strip q of y = D·x (its values at sval). Its rows where every diagonal
 * is inside the matrix go SP_DIA_BLOCK at a time, summed over all the
 * diagonals in registers and stored once (y read and written once, not
 * once a diagonal); the rows at the ends, where diagonals are clipped, a
 * diagonal at a time. Both add a row's diagonals in ascending order from
 * 0.0 with the same DIA_MADD: the same sums either way. */
static void dia_strip(const sp_spmv_dia *s, int64_t q, const double *restrict x,
                      double *restrict y)
{
    const sp_dia *D = &s->D;
    const int64_t i0 = q * SP_DIA_STRIP, i1 = i0 + SP_DIA_STRIP < D->rows ? i0 + SP_DIA_STRIP
                                                                          : D->rows;
    const int32_t nd = D->ndiags;
    int64_t a = i0, b = i0;     /* the interior rows [a, b) */
    if (nd > 0) {
        const int64_t first = D->offset[0], last = D->offset[nd - 1];
        a = i0 > -first ? i0 : -first;
        b = i1 < D->cols - last ? i1 : D->cols - last;
    }
    if (a >= b) {
        dia_rows_clipped(s, q, i0, i0, i1, x, y);
        return;
    }
    dia_rows_clipped(s, q, i0, i0, a, x, y);
    const double *base = s->sval + q * nd * SP_DIA_STRIP - i0;
    int64_t i = a;
    for (; i + SP_DIA_BLOCK <= b; i += SP_DIA_BLOCK) {
        double acc[SP_DIA_BLOCK] = {0};
        for (int32_t d = 0; d < nd; d++) {
            const double *restrict v = base + (int64_t)d * SP_DIA_STRIP + i;
            const double *restrict xd = x + i + D->offset[d];
#pragma omp simd
            for (int k = 0; k < SP_DIA_BLOCK; k++)
                acc[k] = DIA_MADD(v[k], xd[k], acc[k]);
        }
        for (int k = 0; k < SP_DIA_BLOCK; k++)
            y[i + k] = acc[k];
    }
    dia_rows_clipped(s, q, i0, i, i1, x, y);
}

/* sval from D.val (strip q's diagonal d: rows q·STRIP .. of diagonal d,
 * zeros past the last row), then D.val freed. */
static int dia_restripe(sp_spmv_dia *s, int threads, sp_err *err)
{
    sp_dia *D = &s->D;
    const int64_t strips = s->strips, nd = D->ndiags;
    const int64_t blocks = strips * nd > 0 ? strips * nd : 1;
    s->sval = sp_alloc_large((size_t)blocks * SP_DIA_STRIP * sizeof(double));
    if (!s->sval)
        return sp_fail(err, "spmv_dia: out of memory for the strip-major values (%.1f MB)",
                       (double)strips * nd * SP_DIA_STRIP * 8 / 1e6);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t q = 0; q < strips; q++)
        for (int64_t d = 0; d < nd; d++) {
            const int64_t i0 = q * SP_DIA_STRIP;
            const int64_t n = D->rows - i0 < SP_DIA_STRIP ? D->rows - i0 : SP_DIA_STRIP;
            double *to = s->sval + (q * nd + d) * SP_DIA_STRIP;
            memcpy(to, D->val + d * D->rows + i0, (size_t)n * sizeof(double));
            memset(to + n, 0, (size_t)(SP_DIA_STRIP - n) * sizeof(double));
        }
    free(D->val);
    D->val = NULL;
    return 0;
}

static int dia_check_problem(const char *name, const sp_problem *pb, sp_err *err)
{
    if (!pb || !pb->A || (!pb->x && pb->A->cols > 0))
        return sp_fail(err, "%s: problem without a matrix or x", name);
    return 0;
}

/* The layout, the conversion's work table and y: the runner skips the
 * combination when that is more than the free host memory. */
static int dia_cpu_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    (void)p;
    int32_t nd;
    int64_t stored;
    uint64_t bytes;
    if (dia_check_problem("spmv_dia", pb, err))
        return -1;
    if (sp_dia_plan(pb->A, &nd, &stored, &bytes, err))
        return sp_fail_prefix(err, "spmv_dia");
    /* the strip-major copy is made while dia.h's layout still exists */
    need->host_bytes = bytes + sp_dia_work_bytes(pb->A) +
                       (uint64_t)strips_of(pb->A) * (uint64_t)nd * SP_DIA_STRIP * sizeof(double) +
                       ((uint64_t)pb->A->rows + 1) * sizeof(double) + sizeof(sp_spmv_dia);
    need->device_bytes = 0;
    need->stored = (uint64_t)stored;
    return 0;
}

static void dia_release(void *state)
{
    sp_spmv_dia *s = state;
    if (s) {
        sp_dia_free(&s->D);
        free(s->sval);
        free(s->y);
    }
    free(s);
}

/* Check the axes, allocate y, convert (the harness times it: convert_s). */
static int dia_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    int threads;
    *state = NULL;
    if (dia_check_problem("spmv_dia", pb, err) || sp_threads_param(p, "spmv_dia", &threads, err))
        return -1;
    sp_spmv_dia *s = calloc(1, sizeof *s);
    if (s)
        s->y = malloc(((size_t)pb->A->rows + 1) * sizeof(double));
    if (!s || !s->y) {
        free(s);
        return sp_fail(err, "spmv_dia: out of memory for y (%d rows)", pb->A->rows);
    }
    if (sp_dia_from_csr(&s->D, pb->A, err)) {
        dia_release(s);
        return sp_fail_prefix(err, "spmv_dia");
    }
    s->strips = strips_of(pb->A);
    if (dia_restripe(s, threads, err)) {
        dia_release(s);
        return -1;
    }
    s->x = pb->x, s->threads = threads;
    *state = s;
    return 0;
}

static int dia_serial_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_dia *s = state;
    if (!s)
        return sp_fail(err, "spmv_dia_serial: launch without a state");
    for (int64_t q = 0; q < s->strips; q++)
        dia_strip(s, q, s->x, s->y);
    return 0;
}

/* Strips shared out statically among the threads. */
static int dia_omp_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_dia *s = state;
    if (!s)
        return sp_fail(err, "spmv_dia_omp: launch without a state");
#pragma omp parallel for schedule(static) num_threads(s->threads) if (s->threads > 1)
    for (int64_t q = 0; q < s->strips; q++)
        dia_strip(s, q, s->x, s->y);
    return 0;
}

/* Copy y into out (rows doubles). */
static int dia_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_spmv_dia *s = state;
    double *y = out;
    (void)ex;
    if (!s || !y)
        return sp_fail(err, "spmv_dia: result without a state or an output buffer");
    for (int32_t i = 0; i < s->D.rows; i++)
        y[i] = s->y[i];
    return 0;
}

/* The GPU kernel (spmv_dia_cuda.cu): the layout and the conversion's
 * table on the host; values, offsets, x and y on the device, in whole
 * 2 MiB pages. */
int sp_need_gpu_dia(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int32_t nd;
    int64_t stored;
    uint64_t bytes;
    sp_precision prec;
    if (dia_check_problem("spmv_dia_cuda", pb, err) ||
        sp_precision_param(p, "spmv_dia_cuda", &prec, err))
        return -1;
    if (sp_dia_plan(pb->A, &nd, &stored, &bytes, err))
        return sp_fail_prefix(err, "spmv_dia_cuda");
    const sp_csr *A = pb->A;
    uint64_t vb = prec == SP_SINGLE ? 4 : 8;    /* a value of the layout, x, y */
    need->host_bytes = bytes + sp_dia_work_bytes(A) + 4096 +
                       (prec == SP_SINGLE ? ((uint64_t)stored + (uint64_t)A->cols) * 4 : 0);
    need->stored = (uint64_t)stored;
    need->device_bytes = sp_gpu_array_bytes((uint64_t)stored, vb) +
                         sp_gpu_array_bytes((uint64_t)nd, 4) +
                         sp_gpu_array_bytes((uint64_t)A->cols, vb) +
                         sp_gpu_array_bytes((uint64_t)A->rows, vb);
    return sp_need_gpu_managed(p, need, err);
}

int sp_gpu_rows_per_thread(const char *kernel, const sp_params *p, int *rpt, sp_err *err)
{
    long v = sp_param(p, "rows_per_thread", 1);
    if (v != 1 && v != 2 && v != 4)
        return sp_fail(err, "%s: rows_per_thread = %ld is not 1, 2 or 4", kernel, v);
    *rpt = (int)v;
    return 0;
}

const sp_kernel sp_spmv_dia_serial = {
    .name = "spmv_dia_serial",
    .operation = "spmv",
    .format = "dia",
    .backend = "serial",
    .summary = "DIA (diagonal-major, no column indices), strips of 1024 rows, "
               "unit stride down each diagonal",
    .prepare = dia_prepare,
    .launch = dia_serial_launch,
    .result = dia_result,
    .release = dia_release,
    .need = dia_cpu_need,
};

const sp_kernel sp_spmv_dia_omp = {
    .name = "spmv_dia_omp",
    .operation = "spmv",
    .format = "dia",
    .backend = "openmp",
    .summary = "DIA, strips of 1024 rows shared statically",
    .naxes = 1,
    .axes = {{"threads", "1..nproc:*2,nproc"}},
    .prepare = dia_prepare,
    .launch = dia_omp_launch,
    .result = dia_result,
    .release = dia_release,
    .need = dia_cpu_need,
};
