/* test_gpu_adaptive.c — the adaptive CSR kernel (spmv_csr_cuda_adaptive)
 * beyond the registry-walking tests of test_gpu_spmv.c, which take its
 * declared defaults: every `items` value and both explicit `loads` at two
 * block sizes, on matrices whose rows sit on the plan's boundaries (a row
 * of exactly a block's nonzeros, one more, many chunks of a long row, rows
 * uneven enough to get a block of their own) and on power-law rows. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../kernels/spmv/spmv_adaptive.h"
#include "../spmv_cases.h"

static const sp_kernel *adaptive(void)
{
    for (int i = 0; sp_kernels[i]; i++)
        if (!strcmp(sp_kernels[i]->name, "spmv_csr_cuda_adaptive"))
            return sp_kernels[i];
    cr_assert_fail("spmv_csr_cuda_adaptive is not registered");
    return NULL;
}

/* rows of `len[r % nlen]` nonzeros at columns (r * 7 + j) % cols */
static void pattern(sp_csr *A, int32_t rows, int32_t cols, const int32_t *len, int nlen)
{
    int64_t nnz = 0;
    for (int32_t r = 0; r < rows; r++)
        nnz += len[r % nlen];
    A->rows = rows, A->cols = cols, A->nnz = (int32_t)nnz;
    A->rowptr = malloc(((size_t)rows + 1) * 4);
    A->colidx = malloc((size_t)nnz * 4 + 4);
    A->val = malloc((size_t)nnz * 8 + 8);
    cr_assert(A->rowptr && A->colidx && A->val);
    int64_t k = 0;
    A->rowptr[0] = 0;
    for (int32_t r = 0; r < rows; r++) {
        int32_t n = len[r % nlen];
        /* distinct sorted columns: a stride through the columns, sorted */
        for (int32_t j = 0; j < n; j++, k++) {
            A->colidx[k] = (int32_t)(((int64_t)j * cols) / n + r % (cols / n > 0 ? cols / n : 1));
            A->val[k] = 1.0 + (double)((r * 31 + j * 17) % 97) / 97.0;
        }
        A->rowptr[r + 1] = (int32_t)k;
    }
}

static void check_all(const sp_csr *A, const char *what)
{
    static const long items[] = {1, 2, 4, 8, 16}, bs[] = {64, 256},
                      loads[] = {SP_LOADS_CACHED, SP_LOADS_STREAM, SP_LOADS_AUTO};
    spmv_axis_override o[3] = {{"items", items, 5}, {"blocksize", bs, 2},
                               {SP_AXIS_LOADS, loads, 3}};
    spmv_check_kernel_with(adaptive(), o, 3, A, what);
}

/* Rows of 1024 and 1025 nonzeros (a block's nonzeros at 256 × 4 and 64 ×
 * 16, and one more: a long row of two chunks), rows of 4096·3 + 1 (four
 * chunks at the largest block), short rows between them. */
Test(gpu_adaptive, rows_on_the_block_boundaries, .timeout = 300)
{
    const int32_t len[] = {1024, 3, 1025, 0, 1, 12289, 2, 2, 1023};
    sp_csr A;
    pattern(&A, 2000, 20000, len, 9);
    sp_err err;
    cr_assert_eq(sp_csr_validate(&A, &err), 0, "%s", err.msg);
    check_all(&A, "block boundaries");
    sp_csr_free(&A);
}

/* Power-law rows (R-MAT) and one dense row among short rows: blocks of
 * many short rows beside rows cut into chunks, at every shape. */
Test(gpu_adaptive, power_law_and_a_dense_row, .timeout = 300)
{
    const char *specs[] = {"rmat?scale=15&ef=8&seed=3",
                           "denserow?rows=30001&cols=70000&per_row=3&dense=70000&seed=2"};
    for (int i = 0; i < 2; i++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[i], &A, &err), 0, "%s: %s", specs[i], err.msg);
        check_all(&A, specs[i]);
        sp_csr_free(&A);
    }
}
