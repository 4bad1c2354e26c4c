/* test_bsr.c — block sparse rows (kernels/bsr.h): the layout against the
 * CSR it came from (every entry in its slot, every other slot zero, block
 * columns ascending, nothing stored that A lacks), the plan against the
 * built layout, duplicates summed, the `block` axis checked, and
 * spmv_bsr_omp and spmv_bsr_avx512 at every block size on every awkward
 * matrix (shapes not a multiple of the block included: x is never read
 * past its end, which `make asan` checks; the AVX-512 kernel's masked
 * loads are what keeps it so). (The kernel also runs in the generic checks of
 * test_spmv.c at its default axes.) */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "../kernels/bsr.h"

static void check_layout(const sp_bsr *B, const sp_csr *A, const char *what)
{
    const int32_t b = B->b;
    const int64_t bb = (int64_t)b * b;
    cr_assert(B->rows == A->rows && B->cols == A->cols && B->nnz == A->nnz, "%s", what);
    cr_assert_eq(B->brows, (A->rows + b - 1) / b, "%s", what);
    cr_assert_eq(B->stored, (int64_t)B->nblocks * bb, "%s", what);
    cr_assert_eq(B->browptr[B->brows], B->nblocks, "%s", what);
    double *dense = calloc((size_t)B->stored + 1, sizeof *dense);
    cr_assert(dense);
    for (int32_t I = 0; I < B->brows; I++)
        for (int32_t j = B->browptr[I]; j < B->browptr[I + 1]; j++) {
            cr_assert(B->bcol[j] >= 0 && B->bcol[j] < B->bcols, "%s: block column", what);
            if (j > B->browptr[I])
                cr_assert_lt(B->bcol[j - 1], B->bcol[j], "%s: block row %d not ascending", what,
                             I);
        }
    /* every entry of A, summed into its slot */
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t I = i / b, bc = A->colidx[k] / b, j = B->browptr[I];
            while (j < B->browptr[I + 1] && B->bcol[j] != bc)
                j++;
            cr_assert_lt(j, B->browptr[I + 1], "%s: block (%d, %d) missing", what, I, bc);
            dense[j * bb + (i % b) * b + A->colidx[k] % b] += A->val[k];
        }
    int32_t empty = 0;
    for (int32_t j = 0; j < B->nblocks; j++) {
        int any = 0;
        for (int64_t q = j * bb; q < (j + 1) * bb; q++) {
            cr_assert_eq(B->val[q], dense[q], "%s: slot %lld", what, (long long)q);
            any |= dense[q] != 0.0;
        }
        empty += !any;
    }
    /* a block is stored only for an entry of A (entries of value 0 aside) */
    cr_assert_leq(empty, A->nnz, "%s", what);
    free(dense);
}

/* A 3 x 3-blocked matrix (12 x 12, blocks on the diagonal and at (0, 3)
 * and (3, 1)) stores exactly its nonzeros; at b = 2 and 4 it pads. */
Test(bsr, a_blocked_matrix_stores_its_nonzeros_and_no_more)
{
    sp_coo T = {0};
    sp_err err = {{0}};
    static const int blocks[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 3}, {3, 1}};
    cr_assert_eq(sp_coo_init(&T, 12, 12, 6 * 9, &err), 0, "%s", err.msg);
    for (int q = 0; q < 6; q++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                cr_assert_eq(sp_coo_push(&T, blocks[q][0] * 3 + r, blocks[q][1] * 3 + c,
                                         1.0 + q + 0.1 * r + 0.01 * c, &err), 0);
    sp_csr A;
    cr_assert_eq(sp_csr_from_coo(&A, &T, &err), 0, "%s", err.msg);
    for (int32_t b = 1; b <= 6; b++) {
        sp_bsr B;
        int32_t nb;
        int64_t stored;
        uint64_t bytes;
        cr_assert_eq(sp_bsr_plan(&A, b, &nb, &stored, &bytes, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_bsr_from_csr(&B, &A, b, 2, &err), 0, "%s", err.msg);
        cr_assert(nb == B.nblocks && stored == B.stored, "b = %d: plan %d blocks, built %d", b,
                  nb, B.nblocks);
        check_layout(&B, &A, "blocked 12 x 12");
        if (b == 3 || b == 1)
            cr_assert_eq(B.stored, A.nnz, "b = %d: %lld stored for %d", b, (long long)B.stored,
                         A.nnz);
        else
            cr_assert_gt(B.stored, A.nnz, "b = %d", b);
        sp_bsr_free(&B);
    }
    sp_csr_free(&A);
    sp_coo_free(&T);
}

/* A CSR may repeat a column within a row (what a reader that does not sum
 * them would hand over): both values land in the one slot. */
Test(bsr, duplicates_are_summed_into_one_slot)
{
    sp_csr A;
    sp_err err = {{0}};
    cr_assert_eq(sp_csr_alloc(&A, 5, 7, 4, &err), 0, "%s", err.msg);
    static const int32_t rp[] = {0, 1, 1, 1, 1, 4}, col[] = {0, 5, 6, 6};
    static const double val[] = {1.0, -1.0, 1.5, 2.0};
    memcpy(A.rowptr, rp, sizeof rp);
    memcpy(A.colidx, col, sizeof col);
    memcpy(A.val, val, sizeof val);
    sp_bsr B;
    cr_assert_eq(sp_bsr_from_csr(&B, &A, 3, 1, &err), 0, "%s", err.msg);
    check_layout(&B, &A, "duplicates");
    cr_assert_eq(B.nblocks, 3, "blocks (0,0), (1,1), (1,2): %d", B.nblocks);
    /* (4, 6): block row 1, its second block (column 2), local (1, 0) */
    cr_assert_eq(B.bcol[2], 2);
    cr_assert_eq(B.val[2 * 9 + 1 * 3 + 0], 3.5);
    sp_bsr_free(&B);
    sp_csr_free(&A);
}

/* Both kernels refuse block sizes outside their range with the axis's
 * name (the AVX-512 one past 8: x's b entries in one register; on a CPU
 * without AVX-512F it refuses every size, for that reason). */
Test(bsr, bad_block_sizes_are_refused_by_name)
{
    spmv_case c;
    spmv_case_build(1, &c);
    const sp_kernel *k = sp_kernel_find("spmv_bsr_omp");
    const sp_kernel *kv = sp_kernel_find("spmv_bsr_avx512");
    cr_assert_not_null(k);
    cr_assert_not_null(kv);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    long bad_avx[] = {0, -1, 9, SP_BSR_MAX_BLOCK};
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 1, .name = {"block"}, .value = {bad_avx[i]}};
        sp_need need = {0};
        void *state = NULL;
        err.msg[0] = 0;
        cr_assert_eq(kv->need(&pb, &p, &need, &err), -1, "block = %ld", bad_avx[i]);
        cr_assert(strstr(err.msg, spmv_cpu_lacks_isa(kv) ? "AVX-512F" : "block = "), "%s",
                  err.msg);
        cr_assert_eq(kv->prepare(&pb, &p, &state, &err), -1, "block = %ld", bad_avx[i]);
        cr_assert_null(state);
    }
    long bad[] = {0, -2, SP_BSR_MAX_BLOCK + 1};
    for (int i = 0; i < 3; i++) {
        sp_params p = {.n = 1, .name = {"block"}, .value = {bad[i]}};
        sp_need need = {0};
        void *state = NULL;
        err.msg[0] = 0;
        cr_assert_eq(k->need(&pb, &p, &need, &err), -1, "block = %ld", bad[i]);
        cr_assert_not_null(strstr(err.msg, "block"), "%s", err.msg);
        cr_assert_eq(k->prepare(&pb, &p, &state, &err), -1, "block = %ld", bad[i]);
        cr_assert_null(state);
        sp_bsr B;
        cr_assert_eq(sp_bsr_from_csr(&B, &c.A, (int32_t)bad[i], 1, &err), -1);
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* Every awkward matrix: the layout at b = 1..5, 8 and 16, spmv_bsr_omp at
 * b = 1, 2, 3, 4, 5, 6, 8, 16 (the unrolled sizes and the generic one) and
 * spmv_bsr_avx512 at b = 1..8 (each compiled size: one to eight vector
 * registers a block, b·b = 8q + 1 with its scalar lane, b <= 4 with its
 * permuted row sums) on 1, 2 and 7 threads. */
Test(bsr, every_block_size_on_the_awkward_matrices, .timeout = 120)
{
    static const long blocks[] = {1, 2, 3, 4, 5, 6, 8, 16}, threads[] = {1, 2, 7};
    const spmv_axis_override o[] = {{"block", blocks, 8}, {"threads", threads, 3}};
    static const long avx_blocks[] = {1, 2, 3, 4, 5, 6, 7, 8};
    const spmv_axis_override ov[] = {{"block", avx_blocks, 8}, {"threads", threads, 3}};
    const sp_kernel *k = sp_kernel_find("spmv_bsr_omp");
    const sp_kernel *kv = sp_kernel_find("spmv_bsr_avx512");
    cr_assert_not_null(k);
    cr_assert_not_null(kv);
    if (spmv_cpu_lacks_isa(kv))
        cr_log_info("this CPU has no AVX-512F: spmv_bsr_avx512 checked for its refusal only");
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int q = 0; q < 8; q++) {
            sp_bsr B;
            sp_err err = {{0}};
            int32_t nb;
            int64_t stored;
            uint64_t bytes;
            cr_assert_eq(sp_bsr_plan(&c.A, (int32_t)blocks[q], &nb, &stored, &bytes, &err), 0,
                         "%s: %s", c.name, err.msg);
            cr_assert_eq(sp_bsr_from_csr(&B, &c.A, (int32_t)blocks[q], 3, &err), 0, "%s: %s",
                         c.name, err.msg);
            cr_assert_eq(B.nblocks, nb, "%s b = %ld: plan and build disagree", c.name, blocks[q]);
            check_layout(&B, &c.A, c.name);
            sp_bsr_free(&B);
        }
        cr_assert_eq(spmv_check_kernel_with(k, o, 2, &c.A, c.name), 0, "%s refused", c.name);
        if (!spmv_cpu_lacks_isa(kv))
            cr_assert_eq(spmv_check_kernel_with(kv, ov, 2, &c.A, c.name), 0, "%s refused by %s",
                         c.name, kv->name);
        spmv_case_free(&c);
    }
}
