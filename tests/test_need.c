/* test_need.c — what the SpMV kernels state they will allocate (sp_kernel
 * .need), checked against the arithmetic done by hand. need is pure
 * arithmetic on the matrix's sizes, so a matrix with sizes and no arrays
 * will do. */
#include <criterion/criterion.h>

#include "../kernels/spmv/spmv.h"

extern const sp_kernel sp_spmv_csr_serial, sp_spmv_csr_omp, sp_spmv_csr_cuda_scalar,
    sp_spmv_csr_cusparse;

static sp_need need_of(const sp_kernel *k, int32_t rows, int32_t cols, int32_t nnz)
{
    sp_csr A = {.rows = rows, .cols = cols, .nnz = nnz};
    sp_problem pb = {.A = &A};
    sp_params p = {0};
    sp_need need = {1, 1, 0};
    sp_err err;
    cr_assert_not_null(k->need, "%s has no need function", k->name);
    cr_assert_eq(k->need(&pb, &p, &need, &err), 0, "%s", err.msg);
    return need;
}

Test(need, cpu_kernels_need_y_and_their_state)
{
    /* (100 + 1) doubles = 808 bytes, plus the state (A, x, y pointers and
     * the thread count: 32 bytes on LP64). */
    sp_need n = need_of(&sp_spmv_csr_serial, 100, 100, 460);
    cr_assert_eq(n.host_bytes, 808 + sizeof(sp_spmv_cpu));
    cr_assert_eq(n.device_bytes, 0);
    n = need_of(&sp_spmv_csr_omp, 3000000, 3000000, 40000000);
    cr_assert_eq(n.host_bytes, 3000001ull * 8 + sizeof(sp_spmv_cpu));
}

Test(need, gpu_kernels_count_whole_2mib_pages)
{
    /* Small: every one of rowptr, colidx, val, x, y takes one 2 MiB page. */
    sp_need n = need_of(&sp_spmv_csr_cuda_scalar, 100, 100, 460);
    cr_assert_eq(n.device_bytes, 5ull * 2097152);
    /* rows = cols = 3e6, nnz = 4e7, in 2 MiB pages (2097152 bytes):
     *   rowptr 3000001·4 = 12000004 → 6 pages   12582912
     *   colidx 4e7·4 = 1.6e8       → 77 pages  161480704
     *   val    4e7·8 = 3.2e8       → 153 pages 320864256
     *   x, y   3e6·8 = 2.4e7       → 12 pages  25165824 each
     * total 545259520. */
    n = need_of(&sp_spmv_csr_cuda_scalar, 3000000, 3000000, 40000000);
    cr_assert_eq(n.device_bytes, 545259520ull);
    cr_assert_eq(n.host_bytes, 4096);
    /* cuSPARSE: + (3000001·16 = 48000016 → 23 pages = 48234496) + 64 MiB. */
    n = need_of(&sp_spmv_csr_cusparse, 3000000, 3000000, 40000000);
    cr_assert_eq(n.device_bytes, 545259520ull + 48234496ull + 67108864ull);
}
