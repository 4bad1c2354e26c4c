/*
 * spmv_csr_serial.c — CSR SpMV, one row after another: the baseline every
 * other SpMV kernel's speedup is measured against.
 */
#include "spmv.h"

/* y = A·x row by row; the wall time of the loop. */
static int csr_serial_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    const sp_spmv_cpu *s = state;
    if (!s)
        return sp_fail(err, "spmv_csr_serial: launch without a state");
    const sp_csr *A = s->A;
    const double *restrict x = s->x;
    double *restrict y = s->y;
    for (int32_t i = 0; i < A->rows; i++)
        y[i] = sp_spmv_csr_row(A, x, i);
    return 0;
}

/* Memory beyond the problem: y (rows + 1 doubles, as prepare allocates)
 * and the state. Pure arithmetic: the runner calls it before forking. */
static int csr_serial_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    (void)p, (void)err;
    need->host_bytes = ((uint64_t)pb->A->rows + 1) * sizeof(double) + sizeof(sp_spmv_cpu);
    need->device_bytes = 0;
    return 0;
}

const sp_kernel sp_spmv_csr_serial = {
    .name = "spmv_csr_serial",
    .operation = "spmv",
    .format = "csr",
    .backend = "serial",
    .summary = "CSR, one row after another (the baseline)",
    .prepare = sp_spmv_cpu_prepare,
    .launch = csr_serial_launch,
    .result = sp_spmv_cpu_result,
    .release = sp_spmv_cpu_release,
    .need = csr_serial_need,
};
