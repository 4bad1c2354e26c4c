/*
 * spmv_cpu.c — what the CPU SpMV kernels share: a state that points at the
 * problem's CSR and x (no conversion, no copy) and owns y.
 */
#include <stdlib.h>

#include "../partition.h"
#include "spmv.h"

/* The runner's bounds for the `threads` axis (runner/plan/axis.c). */
#define SP_MAX_THREADS 4096

/* Check the problem and the `threads` axis, allocate y. */
int sp_spmv_cpu_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    *state = NULL;
    if (!pb || !pb->A || (!pb->x && pb->A->cols > 0))
        return sp_fail(err, "spmv (CPU): problem without a matrix or x");
    long threads = sp_param(p, "threads", 1);
    if (threads < 1 || threads > SP_MAX_THREADS)
        return sp_fail(err, "spmv (CPU): threads = %ld outside 1..%d", threads,
                       SP_MAX_THREADS);
    int chunk;
    if (sp_chunk_param(p, "spmv (CPU)", &chunk, err))
        return -1;
    sp_spmv_cpu *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "spmv (CPU): out of memory for the kernel state");
    s->y = malloc(((size_t)pb->A->rows + 1) * sizeof(double));  /* +1: rows may be 0 */
    if (!s->y) {
        free(s);
        return sp_fail(err, "spmv (CPU): out of memory for y (%d rows)", pb->A->rows);
    }
    s->A = pb->A;
    s->x = pb->x;
    s->threads = (int)threads;
    s->chunk = chunk;
    *state = s;
    return 0;
}

/* Copy y into out (op->output_bytes = rows doubles). */
int sp_spmv_cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_spmv_cpu *s = state;
    double *y = out;
    (void)ex;
    if (!s || !y)
        return sp_fail(err, "spmv (CPU): result without a state or an output buffer");
    for (int32_t i = 0; i < s->A->rows; i++)
        y[i] = s->y[i];
    return 0;
}

/* Free y and the state; NULL is fine. */
void sp_spmv_cpu_release(void *state)
{
    sp_spmv_cpu *s = state;
    if (s)
        free(s->y);
    free(s);
}
