/*
 * transpose_cpu.c — what the CPU transposition kernels share: a state that
 * reads the problem's CSR in place and owns the CSC and the scratch; at
 * the `precision` single, A's values rounded to float (prepare: timed as
 * conversion) and a CSC of float values, widened to double by result.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../partition.h"
#include "transpose.h"

static int check_problem(const char *who, const sp_problem *pb, sp_err *err)
{
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", who);
    return 0;
}

static size_t value_bytes(sp_precision prec)
{
    return prec == SP_SINGLE ? sizeof(float) : sizeof(double);
}

int sp_transpose_cpu_need(const char *who, sp_transpose_work work, const sp_problem *pb,
                          const sp_params *p, sp_need *need, sp_err *err)
{
    int threads;
    sp_precision prec;
    if (check_problem(who, pb, err) || sp_threads_param(p, who, &threads, err) ||
        sp_precision_param(p, who, &prec, err))
        return -1;
    size_t vb = value_bytes(prec);
    need->host_bytes = sp_csc_bytes_vb(pb->A, vb) + work(pb->A, threads, vb);
    if (prec == SP_SINGLE)      /* A's values rounded to float */
        need->host_bytes += (uint64_t)pb->A->nnz * sizeof(float);
    need->device_bytes = 0;
    return 0;
}

/* The CSC's views into s->out: in double the operation's layout; in
 * single float values (padded to 8 bytes), then colptr and rowidx. */
static void views(sp_transpose_cpu *s)
{
    const sp_csr *A = s->A;
    if (s->prec == SP_DOUBLE) {
        sp_csc_view(s->out, A, &s->C);
        return;
    }
    s->C.rows = A->rows, s->C.cols = A->cols, s->C.nnz = A->nnz;
    s->C.val = NULL;
    s->cval32 = s->out;
    s->C.colptr = (int32_t *)((char *)s->out + ((size_t)A->nnz * 4 + 7) / 8 * 8);
    s->C.rowidx = s->C.colptr + (size_t)A->cols + 1;
}

/* Single: A's values rounded to float into s->val32. */
static int round_values(sp_transpose_cpu *s)
{
    const sp_csr *A = s->A;
    s->val32 = sp_float_copy(A->val, (size_t)A->nnz);
    return s->val32 ? 0 : -1;
}

int sp_transpose_cpu_prepare(const char *who, sp_transpose_work work, const sp_problem *pb,
                             const sp_params *p, void **state, sp_err *err)
{
    int threads;
    sp_precision prec;
    *state = NULL;
    if (check_problem(who, pb, err) || sp_threads_param(p, who, &threads, err) ||
        sp_precision_param(p, who, &prec, err))
        return -1;
    sp_transpose_cpu *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "%s: out of memory for the state", who);
    s->A = pb->A, s->threads = threads, s->prec = prec;
    size_t vb = value_bytes(prec);
    uint64_t scratch = work(pb->A, threads, vb);
    s->work_bytes = scratch;
    s->out = sp_alloc_large(sp_csc_bytes_vb(pb->A, vb));
    s->work = scratch <= SIZE_MAX ? sp_alloc_large((size_t)scratch) : NULL;
    if (!s->out || !s->work || (prec == SP_SINGLE && round_values(s))) {
        sp_transpose_cpu_release(s);
        return sp_fail(err, "%s: out of memory for the CSC, %llu bytes of scratch and the "
                       "float values", who, (unsigned long long)scratch);
    }
    views(s);
    *state = s;
    return 0;
}

int sp_transpose_cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_transpose_cpu *s = state;
    (void)ex;
    if (!s || !out)
        return sp_fail(err, "transpose (CPU): result without a state or an output buffer");
    if (s->prec == SP_DOUBLE) {
        memcpy(out, s->out, sp_csc_bytes(s->A));
        return 0;
    }
    sp_csc C;
    sp_csc_view(out, s->A, &C);
    for (int32_t k = 0; k < s->A->nnz; k++)
        C.val[k] = (double)s->cval32[k];
    memcpy(C.colptr, s->C.colptr, ((size_t)s->A->cols + 1 + (size_t)s->A->nnz) * sizeof(int32_t));
    return 0;
}

void sp_transpose_cpu_release(void *state)
{
    sp_transpose_cpu *s = state;
    if (s) {
        free(s->out);
        free(s->work);
        free(s->val32);
    }
    free(s);
}
