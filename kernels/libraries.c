/*
 * libraries.c — the outside libraries this binary's CPU kernels run on,
 * with their versions, for the sweep's provenance (sweeps.libraries):
 * librsb (spmv_librsb) and, when built in, Intel MKL with its threading
 * layer (spmv_mkl, transpose_mkl). The GPU's libraries are named by the
 * CUDA runtime and driver fields.
 */
#include <rsb.h>
#include <stdio.h>
#include <string.h>

#include "mkl_lib.h"

void sp_kernel_libraries(char *buf, size_t len)
{
    char mkl[256];
    sp_mkl_describe(mkl, sizeof mkl);
    snprintf(buf, len, "librsb %s%s%s", RSB_LIBRSB_VER_STRING, *mkl ? "; " : "", mkl);
}
