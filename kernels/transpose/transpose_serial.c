/*
 * transpose_serial.c — the kernel transpose_serial: CSR -> CSC by the
 * counting sort of transpose_count.c (the operation's reference too), the
 * baseline of the other transposition kernels; at the `precision` single
 * the same sort moves float values (transpose_cpu.c).
 */

#include "transpose.h"

static uint64_t serial_work(const sp_csr *A, int threads, size_t vb)
{
    (void)A, (void)threads, (void)vb;
    return 0;
}

static int serial_prepare(const sp_problem *pb, const sp_params *p, void **state,
                          sp_err *err)
{
    return sp_transpose_cpu_prepare("transpose_serial", serial_work, pb, p, state, err);
}

static int serial_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    return sp_transpose_cpu_need("transpose_serial", serial_work, pb, p, need, err);
}

static int serial_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    sp_transpose_cpu *s = state;
    if (!s)
        return sp_fail(err, "transpose_serial: launch without a state");
    if (s->prec == SP_SINGLE)
        sp_transpose_count_float(s->A, s->val32, s->C.colptr, s->C.rowidx, s->cval32);
    else
        sp_transpose_count(s->A, &s->C);
    return 0;
}

const sp_kernel sp_transpose_serial = {
    .name = "transpose_serial",
    .operation = "transpose",
    .format = "csc",
    .backend = "serial",
    .summary = "CSR -> CSC, counting sort over columns (the baseline)",
    .naxes = 1,
    .axes = {{SP_AXIS_PRECISION, "double"}},
    .prepare = serial_prepare,
    .launch = serial_launch,
    .result = sp_transpose_cpu_result,
    .release = sp_transpose_cpu_release,
    .need = serial_need,
};
