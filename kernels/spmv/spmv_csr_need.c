/*
 * spmv_csr_need.c — the memory need of the CPU CSR kernels that work in
 * place on the problem's CSR: y alone.
 */
#include "spmv.h"

int sp_spmv_csr_y_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    (void)p;
    if (!pb || !pb->A || !need)
        return sp_fail(err, "spmv (CPU): need without a problem");
    need->host_bytes = ((uint64_t)pb->A->rows + 1) * sizeof(double);
    need->device_bytes = 0;
    return 0;
}
