/*
 * spmv_hll_cpu.c — prepare, need, result and release of the ELLPACK and HLL
 * SpMV kernels: check the axes, convert from CSR (timed as the conversion
 * phase), own y.
 */
#include <omp.h>
#include <stdlib.h>

#include "../partition.h"
#include "spmv_hll.h"

/* One layout: ELLPACK (no `hack` axis), HLL row-major, HLL column-major. */
typedef struct hll_kind {
    const char *name;
    int ell, colmajor;
} hll_kind;

static const hll_kind kind_ell = {"spmv_ell", 1, 1};
static const hll_kind kind_hll = {"spmv_hll", 0, 0};
static const hll_kind kind_aligned = {"spmv_hll_aligned", 0, 1};

/* The layout: the `hack` axis (default 32; 0 for ELLPACK) in the CPU
 * options of kernels/hll.h. */
static int layout_param(const hll_kind *kd, const sp_params *p, sp_hll_opts *o, sp_err *err)
{
    long h = kd->ell ? 0 : sp_param(p, "hack", 32);
    if (!kd->ell && (h < 1 || h > SP_HACK_MAX))
        return sp_fail(err, "%s: hack = %ld outside 1..%d", kd->name, h, SP_HACK_MAX);
    *o = sp_hll_cpu((int32_t)h, kd->colmajor);
    return 0;
}

static int check_problem(const hll_kind *kd, const sp_problem *pb, sp_err *err)
{
    if (!pb || !pb->A || (!pb->x && pb->A->cols > 0))
        return sp_fail(err, "%s: problem without a matrix or x", kd->name);
    return 0;
}

/* The converted matrix with its padding, plus y: the runner skips the
 * combination when that is more than the free host memory (hll.h). */
static int hll_need(const hll_kind *kd, const sp_problem *pb, const sp_params *p,
                    sp_need *need, sp_err *err)
{
    sp_hll_opts o;
    int64_t stored;
    uint64_t bytes;
    if (check_problem(kd, pb, err) || layout_param(kd, p, &o, err))
        return -1;
    if (sp_hll_plan(pb->A, &o, &stored, &bytes, err))
        return sp_fail_prefix(err, "%s", kd->name);
    need->host_bytes = bytes + ((uint64_t)pb->A->rows + 1) * sizeof(double);
    need->device_bytes = 0;
    need->stored = (uint64_t)stored;
    return 0;
}

/* Check the axes, allocate y, convert (the harness times it: convert_s). */
static int hll_prepare(const hll_kind *kd, const sp_problem *pb, const sp_params *p,
                       void **state, sp_err *err)
{
    sp_hll_opts o;
    int threads, chunk;
    *state = NULL;
    if (check_problem(kd, pb, err) || layout_param(kd, p, &o, err) ||
        sp_threads_param(p, kd->name, &threads, err) ||
        sp_chunk_param(p, kd->name, &chunk, err))
        return -1;
    sp_spmv_hll *s = calloc(1, sizeof *s);
    if (s)
        s->y = malloc(((size_t)pb->A->rows + 1) * sizeof(double));
    if (!s || !s->y) {
        free(s);
        return sp_fail(err, "%s: out of memory for y (%d rows)", kd->name, pb->A->rows);
    }
    if (sp_hll_from_csr(&s->H, pb->A, &o, err)) {
        sp_spmv_hll_release(s);
        return sp_fail_prefix(err, "%s", kd->name);
    }
    s->x = pb->x, s->threads = threads, s->chunk = chunk;
    *state = s;
    return 0;
}

int sp_spmv_ell_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    return hll_prepare(&kind_ell, pb, p, state, err);
}

int sp_spmv_ell_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    return hll_need(&kind_ell, pb, p, need, err);
}

int sp_spmv_hll_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    return hll_prepare(&kind_hll, pb, p, state, err);
}

int sp_spmv_hll_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    return hll_need(&kind_hll, pb, p, need, err);
}

int sp_spmv_hll_aligned_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    return hll_prepare(&kind_aligned, pb, p, state, err);
}

int sp_spmv_hll_aligned_layout(const sp_params *p, sp_hll_opts *o, sp_err *err)
{
    return layout_param(&kind_aligned, p, o, err);
}

int sp_spmv_hll_aligned_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                             sp_err *err)
{
    return hll_need(&kind_aligned, pb, p, need, err);
}

/* Copy y into out (rows doubles). */
int sp_spmv_hll_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_spmv_hll *s = state;
    double *y = out;
    (void)ex;
    if (!s || !y)
        return sp_fail(err, "spmv (HLL): result without a state or an output buffer");
    for (int32_t i = 0; i < s->H.rows; i++)
        y[i] = s->y[i];
    return 0;
}

void sp_spmv_hll_release(void *state)
{
    sp_spmv_hll *s = state;
    if (s) {
        sp_hll_free(&s->H);
        free(s->y);
    }
    free(s);
}

void sp_spmv_hll_balanced(const sp_spmv_hll *s)
{
    const sp_hll *H = &s->H;
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int32_t h0 = sp_split_prefix(H->off, H->nhacks, nt, t);
        int32_t h1 = sp_split_prefix(H->off, H->nhacks, nt, t + 1);
        if (H->colmajor)
            sp_spmv_hll_colmajor(H, h0, h1, s->x, s->y);
        else
            sp_spmv_hll_rowmajor(H, h0, h1, s->x, s->y);
    }
}
