/*
 * mm_write.c — write a CSR as Matrix Market "coordinate real general" with
 * 17 significant digits, so a read gives back the same doubles.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "matrix.h"

int sp_mm_write(const char *path, const sp_csr *A, sp_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return sp_fail(err, "%s: %s", path, strerror(errno));
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n"
               "%% written by spsweep\n%d %d %d\n", A->rows, A->cols, A->nnz);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            fprintf(f, "%d %d %.17g\n", i + 1, A->colidx[k] + 1, A->val[k]);
    int bad = ferror(f);
    if (fclose(f) || bad)
        return sp_fail(err, "%s: write failed: %s", path, strerror(errno));
    return 0;
}
