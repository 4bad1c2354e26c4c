/*
 * registry.c — every kernel and operation spsweep knows. Adding a kernel is
 * one file plus one line here.
 */
#include <string.h>

#include "kernel.h"
#include "spmv/spmv.h"

const sp_kernel *const sp_kernels[] = {
    &sp_spmv_csr_serial,
    &sp_spmv_csr_omp,
    &sp_spmv_csr_cuda_scalar,
    &sp_spmv_csr_cusparse,
    NULL,
};

static const sp_operation *const operations[] = {
    &sp_op_spmv,
    NULL,
};

const sp_kernel *sp_kernel_find(const char *name)
{
    for (int i = 0; sp_kernels[i]; i++)
        if (!strcmp(sp_kernels[i]->name, name))
            return sp_kernels[i];
    return NULL;
}

const sp_operation *sp_operation_find(const char *name)
{
    for (int i = 0; operations[i]; i++)
        if (!strcmp(operations[i]->name, name))
            return operations[i];
    return NULL;
}

long sp_param(const sp_params *p, const char *name, long dflt)
{
    for (int i = 0; p && i < p->n; i++)
        if (!strcmp(p->name[i], name))
            return p->value[i];
    return dflt;
}
