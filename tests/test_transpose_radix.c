/* test_transpose_radix.c — the radix route's host side: how the column
 * bits split into passes, the digit_bits axis and its refusals (by need
 * and by prepare, on the host), the memory statement (the kernel itself:
 * tests/gpu/test_gpu_transpose.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/kernel.h"
#include "../kernels/prim/prim.h"
#include "../kernels/spmv/spmv_gpu_host.h"
#include "../kernels/transpose/transpose_gpu.h"

#define RADIX "transpose_cuda_radix"

static void plan_is(int32_t cols, int dmax, int bits, int passes, int digit)
{
    sp_radix_plan pl;
    sp_radix_plan_of(cols, 100, dmax, &pl);
    cr_assert_eq(pl.bits, bits, "cols %d: bits %d", cols, pl.bits);
    cr_assert_eq(pl.passes, passes, "cols %d max %d: passes %d", cols, dmax, pl.passes);
    cr_assert_eq(pl.digit, digit, "cols %d max %d: digit %d", cols, dmax, pl.digit);
}

Test(transpose_radix, plans_by_hand)
{
    plan_is(0, 11, 1, 1, 1);
    plan_is(1, 11, 1, 1, 1);
    plan_is(2, 11, 1, 1, 1);
    plan_is(3, 11, 2, 1, 2);
    plan_is(4096, 12, 12, 1, 12);
    plan_is(4096, 11, 12, 2, 6);
    plan_is(4097, 12, 13, 2, 7);
    plan_is(1 << 22, 11, 22, 2, 11);      /* R-MAT scale 22: 2^22 columns, 0 .. 2^22 - 1 */
    plan_is((1 << 22) + 1, 11, 23, 3, 8);
    plan_is(9000000, 12, 24, 2, 12);      /* laplace2d 3000^2 */
    plan_is(9000000, 11, 24, 3, 8);
    plan_is(INT32_MAX, 12, 31, 3, 11);
    plan_is(INT32_MAX, 1, 31, 31, 1);
}

/* Every plan covers the column bits, no pass is empty, no digit is wider
 * than asked, and 2^bits holds every column. */
Test(transpose_radix, plans_cover_every_column)
{
    for (int64_t cols = 1; cols <= INT32_MAX; cols = cols * 3 / 2 + 1)
        for (int d = SP_RADIX_DIGIT_MIN; d <= SP_RADIX_DIGIT_MAX; d++) {
            sp_radix_plan pl;
            sp_radix_plan_of((int32_t)cols, 0, d, &pl);
            cr_assert_leq(pl.digit, d);
            cr_assert_geq((int64_t)pl.digit * pl.passes, pl.bits);
            cr_assert_lt((int64_t)pl.digit * (pl.passes - 1), pl.bits, "an empty last pass");
            cr_assert_geq((int64_t)1 << pl.bits, cols);
            cr_assert(pl.bits == 1 || ((int64_t)1 << (pl.bits - 1)) < cols, "a bit too many");
        }
}

Test(transpose_radix, tiles)
{
    sp_radix_plan pl;
    static const int32_t nnz[] = {0, 1, SP_RADIX_TILE, SP_RADIX_TILE + 1, INT32_MAX};
    static const int32_t want[] = {1, 1, 1, 2, (int32_t)(((int64_t)INT32_MAX + SP_RADIX_TILE - 1) / SP_RADIX_TILE)};
    for (int i = 0; i < 5; i++) {
        sp_radix_plan_of(1000, nnz[i], 11, &pl);
        cr_assert_eq(pl.tiles, want[i], "nnz %d", nnz[i]);
    }
}

Test(transpose_radix, registered_with_its_axis_and_need)
{
    const sp_kernel *k = sp_kernel_find(RADIX);
    cr_assert_not_null(k);
    cr_assert_str_eq(k->operation, "transpose");
    cr_assert_str_eq(k->backend, "cuda");
    cr_assert(k->needs_gpu && k->need);
    cr_assert_eq(k->naxes, 3);
    cr_assert_str_eq(k->axes[2].name, SP_AXIS_PRECISION);
    cr_assert_str_eq(k->axes[0].name, "digit_bits");
    cr_assert_str_eq(k->axes[0].defaults, SP_RADIX_DIGITS);
    cr_assert_str_eq(k->axes[1].name, "small_nnz");
    cr_assert_eq(atol(k->axes[1].defaults), SP_TRANS_SMALL_NNZ);
    /* two, three and four passes at the default width (8 bits) and one;
     * the work sets (two at most) and the table by hand */
    static const sp_csr shapes[] = {{.rows = 1000, .cols = 2000, .nnz = 100000},
                                    {.rows = 1000000, .cols = 1 << 22, .nnz = 10000000},
                                    {.rows = 50, .cols = 1 << 25, .nnz = 70000},
                                    {.rows = 0, .cols = 0, .nnz = 0}};
    static const int passes[] = {2, 3, 4, 1};
    for (int s = 0; s < 4; s++) {
        const sp_csr *A = &shapes[s];
        sp_problem pb = {.A = (sp_csr *)A};
        sp_need need = {0};
        sp_err err;
        cr_assert_eq(k->need(&pb, NULL, &need, &err), 0, "%s", err.msg);
        sp_radix_plan pl;
        sp_radix_plan_of(A->cols, A->nnz, SP_RADIX_DIGIT_DEFAULT, &pl);
        cr_assert_eq(pl.passes, passes[s], "shape %d", s);
        uint64_t nnz = (uint64_t)A->nnz, cells = ((uint64_t)1 << pl.digit) * (uint64_t)pl.tiles;
        uint64_t want = sp_gpu_array_bytes((uint64_t)A->rows + 1, 4) + sp_gpu_array_bytes(nnz, 4) +
                        sp_gpu_array_bytes(nnz, 8) +
                        sp_gpu_array_bytes(nnz * 12 + (uint64_t)A->cols * 4 + 4, 1) +
                        sp_gpu_array_bytes(nnz, 4) +
                        (uint64_t)(passes[s] - 1 < 2 ? passes[s] - 1 : 2) *
                            (2 * sp_gpu_array_bytes(nnz, 4) + sp_gpu_array_bytes(nnz, 8)) +
                        sp_gpu_array_bytes(cells + 1, 4) +
                        sp_gpu_array_bytes(sp_gpu_scan_temp_bytes((int64_t)cells, 256), 1);
        cr_assert_eq(need.device_bytes, want, "shape %d", s);
        cr_assert_eq(sp_trans_gpu_bytes_radix(A, &pl, 8), want);
    }
}

/* prepare (built in a CUDA build) refuses what need refuses, with the same
 * words, on the host (the matrix has no arrays) and leaves no state. */
static void check_prepare_refuses(const sp_kernel *k, const sp_problem *pb, const sp_params *p,
                                  const char *want)
{
    if (!k->prepare)
        return;
    void *state = NULL;
    sp_err err = {{0}};
    cr_assert_eq(k->prepare(pb, p, &state, &err), -1);
    cr_assert_null(state);
    cr_assert_str_eq(err.msg, want);
}

Test(transpose_radix, axis_values_outside_their_range_are_refused)
{
    const sp_kernel *k = sp_kernel_find(RADIX);
    cr_assert_not_null(k);
    static const sp_csr A = {.rows = 10, .cols = 10, .nnz = 10};
    sp_problem pb = {.A = (sp_csr *)&A};
    static const long bad[] = {0, -3, SP_RADIX_DIGIT_MAX + 1, 64};
    for (int i = 0; i < 4; i++) {
        sp_need need = {0};
        sp_err err;
        sp_params p = {.n = 1, .name = {"digit_bits"}, .value = {bad[i]}};
        cr_assert_eq(k->need(&pb, &p, &need, &err), -1);
        char want[96];
        snprintf(want, sizeof want, RADIX ": digit_bits = %ld is outside 1..12", bad[i]);
        cr_assert_str_eq(err.msg, want);
        check_prepare_refuses(k, &pb, &p, want);
    }
    static const long bad_small[] = {0, -1, SP_TRANS_SMALL_NNZ + 1};
    for (int i = 0; i < 3; i++) {
        sp_need need = {0};
        sp_err err;
        sp_params p = {.n = 1, .name = {"small_nnz"}, .value = {bad_small[i]}};
        cr_assert_eq(k->need(&pb, &p, &need, &err), -1);
        char want[96];
        snprintf(want, sizeof want, RADIX ": small_nnz = %ld is outside 1..%d", bad_small[i],
                 SP_TRANS_SMALL_NNZ);
        cr_assert_str_eq(err.msg, want);
        check_prepare_refuses(k, &pb, &p, want);
    }
    int32_t most = 0;
    sp_err e2;
    cr_assert_eq(sp_radix_small_nnz(RADIX, NULL, &most, &e2), 0);
    cr_assert_eq(most, SP_TRANS_SMALL_NNZ);
    int d = 0;
    sp_err err;
    sp_params ok = {.n = 1, .name = {"digit_bits"}, .value = {SP_RADIX_DIGIT_MAX}};
    cr_assert_eq(sp_radix_digit(RADIX, &ok, &d, &err), 0);
    cr_assert_eq(d, SP_RADIX_DIGIT_MAX);
    cr_assert_eq(sp_radix_digit(RADIX, NULL, &d, &err), 0);
    cr_assert_eq(d, SP_RADIX_DIGIT_DEFAULT);
}
