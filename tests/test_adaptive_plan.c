/* test_adaptive_plan.c — the host plan of the adaptive CSR kernel
 * (kernels/spmv/spmv_adaptive.c), without a GPU: every row in exactly one
 * block, in order, within the block's limits; long rows cut into chunks
 * that cover them; the blocks filled (not one row each); the `items` axis
 * and the memory statement. The GPU tests check the kernel's results. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/spmv/spmv_adaptive.h"
#include "../kernels/spmv/spmv_gpu_host.h"
#include "spmv_cases.h"

/* Set axis `name` of p to v (added when absent). */
static void set_axis(sp_params *p, const char *name, long v)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->name[i], name)) {
            p->value[i] = v;
            return;
        }
    p->name[p->n] = name;
    p->value[p->n++] = v;
}

static int32_t len_of(const sp_csr *A, int32_t r)
{
    return A->rowptr[r + 1] - A->rowptr[r];
}

/* The plan's invariants, as the kernel relies on them. */
static void check_plan(const sp_csr *A, int bs, int items, const char *what)
{
    sp_adaptive_plan pl;
    sp_err err;
    cr_assert_eq(sp_adaptive_split(A, bs, items, &pl, &err), 0, "%s: %s", what, err.msg);
    int32_t T = bs * items, steps = SP_ADAPTIVE_STEPS(items);
    cr_assert_eq(pl.per_block, T);
    int64_t nb;
    int32_t nl;
    sp_adaptive_count(A, bs, items, &nb, &nl);
    cr_assert_eq(nb, pl.nblocks, "%s: count and split agree", what);
    cr_assert_eq(nl, pl.nlong, "%s", what);
    int32_t row = 0, L = 0;
    for (int64_t b = 0; b < pl.nblocks; b++) {
        const sp_adaptive_block *k = &pl.block[b];
        cr_assert_eq(k->first, row, "%s block %lld starts at its row", what, (long long)b);
        if (k->rows > 0) {
            cr_assert_leq(k->rows, bs, "%s block %lld: a lane group per row", what,
                          (long long)b);
            cr_assert_eq(k->base, A->rowptr[row], "%s", what);
            cr_assert_eq(k->n, A->rowptr[row + k->rows] - k->base, "%s", what);
            cr_assert_leq(k->n, T, "%s block %lld fits in shared memory", what, (long long)b);
            if (k->rows >= 2) {
                int lanes = sp_adaptive_lanes(bs, k->rows);
                cr_assert(lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0);
                cr_assert_geq(bs / lanes, k->rows, "%s: enough groups", what);
                for (int32_t r = row; r < row + k->rows; r++)
                    cr_assert_leq((len_of(A, r) + lanes - 1) / lanes, steps,
                                  "%s row %d: its group's steps bounded", what, r);
            }
            row += k->rows;
            continue;
        }
        /* a long row: its chunks, consecutive, cover it */
        cr_assert_eq(-k->rows - 1, L, "%s: long rows in order", what);
        int32_t len = len_of(A, row);
        cr_assert_gt(len, T, "%s row %d is long", what, row);
        cr_assert_eq(pl.long_first[L], (int32_t)b, "%s", what);
        int32_t chunks = (len + T - 1) / T;
        cr_assert_eq(pl.long_chunks[L], chunks, "%s", what);
        for (int32_t c = 0; c < chunks; c++) {
            const sp_adaptive_block *q = &pl.block[b + c];
            cr_assert_eq(q->first, row);
            cr_assert_eq(q->rows, -(L + 1));
            cr_assert_eq(q->base, A->rowptr[row] + c * T);
            cr_assert_eq(q->n, c + 1 < chunks ? T : len - c * T, "%s chunk %d", what, c);
        }
        b += chunks - 1;
        row++, L++;
    }
    cr_assert_eq(row, A->rows, "%s: every row in a block", what);
    cr_assert_eq(L, pl.nlong, "%s", what);
    sp_adaptive_plan_free(&pl);
}

Test(adaptive_plan, every_row_once_in_order_within_the_limits)
{
    int shapes[][2] = {{32, 1}, {128, 2}, {128, 8}, {256, 8}, {256, 16}, {512, 8}};
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int s = 0; s < 6; s++)
            check_plan(&c.A, shapes[s][0], shapes[s][1], c.name);
        spmv_case_free(&c);
    }
}

/* A band of r rows of 4 nonzeros, or one row of `dense` nonzeros at row
 * `at` among rows of 2. */
static void make_rows(sp_csr *A, int32_t rows, int32_t per_row, int32_t at, int32_t dense)
{
    int64_t nnz = (int64_t)rows * per_row + (at >= 0 ? dense - per_row : 0);
    A->rows = rows, A->cols = dense > rows ? dense : rows, A->nnz = (int32_t)nnz;
    A->rowptr = malloc(((size_t)rows + 1) * 4);
    A->colidx = malloc((size_t)nnz * 4 + 4);
    A->val = malloc((size_t)nnz * 8 + 8);
    int32_t k = 0;
    A->rowptr[0] = 0;
    for (int32_t r = 0; r < rows; r++) {
        int32_t n = r == at ? dense : per_row;
        for (int32_t j = 0; j < n; j++, k++)
            A->colidx[k] = j, A->val[k] = 1.0;
        A->rowptr[r + 1] = k;
    }
}

static void free_rows(sp_csr *A)
{
    free(A->rowptr), free(A->colidx), free(A->val);
}

/* Even rows fill their blocks: as many rows as the block has threads (the
 * limit) when their nonzeros fit, not a row or a few a block. */
Test(adaptive_plan, even_rows_fill_the_blocks)
{
    sp_csr A;
    make_rows(&A, 100000, 4, -1, 0);
    int64_t nb;
    int32_t nl;
    sp_adaptive_count(&A, 256, 8, &nb, &nl);       /* 2048 a block: 256 rows of 4 */
    cr_assert_eq(nb, (100000 + 255) / 256);
    cr_assert_eq(nl, 0);
    sp_adaptive_count(&A, 128, 2, &nb, &nl);       /* 256 a block: 64 rows of 4 */
    cr_assert_eq(nb, (100000 + 63) / 64);
    check_plan(&A, 256, 8, "band of 4");
    free_rows(&A);
}

/* One row far longer than a block among short ones: cut into chunks of a
 * block's nonzeros; the short rows around it still share blocks. */
Test(adaptive_plan, a_long_row_is_cut_into_chunks)
{
    sp_csr A;
    make_rows(&A, 5000, 2, 777, 100001);
    sp_adaptive_plan pl;
    sp_err err;
    cr_assert_eq(sp_adaptive_split(&A, 128, 4, &pl, &err), 0, "%s", err.msg);
    cr_assert_eq(pl.nlong, 1);
    cr_assert_eq(pl.long_chunks[0], (100001 + 511) / 512);
    const sp_adaptive_block *k = &pl.block[pl.long_first[0]];
    cr_assert_eq(k->first, 777);
    /* the 4999 short rows of 2: 128 rows a block (the thread limit) */
    cr_assert_leq(pl.nblocks - pl.long_chunks[0], 4999 / 128 + 3);
    sp_adaptive_plan_free(&pl);
    check_plan(&A, 128, 4, "one row of 100001");
    free_rows(&A);
}

/* A row too long to share a block with others at its lanes' step bound
 * gets a block of its own, where the whole block sums it. */
Test(adaptive_plan, an_uneven_row_does_not_stall_a_block)
{
    sp_csr A;
    make_rows(&A, 1000, 1, 500, 1000);   /* 1000 <= 2048: short, but uneven */
    sp_adaptive_plan pl;
    sp_err err;
    cr_assert_eq(sp_adaptive_split(&A, 256, 8, &pl, &err), 0, "%s", err.msg);
    int found = 0;
    for (int64_t b = 0; b < pl.nblocks; b++)
        if (pl.block[b].first <= 500 && 500 < pl.block[b].first + pl.block[b].rows) {
            found = 1;
            int lanes = sp_adaptive_lanes(256, pl.block[b].rows);
            cr_assert(pl.block[b].rows == 1 || (1000 + lanes - 1) / lanes <= 16,
                      "row 500 in a block of %d rows, %d lanes", pl.block[b].rows, lanes);
        }
    cr_assert(found);
    sp_adaptive_plan_free(&pl);
    free_rows(&A);
}

Test(adaptive_plan, items_axis_refusals_name_the_axis)
{
    sp_params p = {0};
    sp_err err;
    int items;
    cr_assert_eq(sp_adaptive_items("k", &p, 256, &items, &err), 0);
    cr_assert_eq(items, 8, "default 8");
    set_axis(&p, "items", 3);
    cr_assert_eq(sp_adaptive_items("k", &p, 256, &items, &err), -1);
    cr_assert_not_null(strstr(err.msg, "items = 3"), "%s", err.msg);
    set_axis(&p, "items", 16);
    cr_assert_eq(sp_adaptive_items("k", &p, 256, &items, &err), 0);
    cr_assert_eq(sp_adaptive_items("k", &p, 512, &items, &err), -1);
    cr_assert_not_null(strstr(err.msg, "shared memory"), "%s", err.msg);
    sp_csr A;
    make_rows(&A, 10, 1, -1, 0);
    sp_adaptive_plan pl;
    cr_assert_eq(sp_adaptive_split(&A, 100, 2, &pl, &err), -1, "blocksize not whole warps");
    free_rows(&A);
}

/* The memory statement covers the CSR, the vectors and the plan, and a
 * refused axis is refused there too (before any prepare). */
Test(adaptive_plan, need_counts_the_plan)
{
    sp_csr A;
    make_rows(&A, 100000, 4, 10, 500000);
    sp_problem pb = {.A = &A};
    sp_params p = {0};
    sp_need csr = {0}, need = {0};
    sp_err err;
    cr_assert_eq(sp_need_gpu_csr(&pb, &p, &csr, &err), 0);
    set_axis(&p, "blocksize", 128);
    set_axis(&p, "items", 1);
    cr_assert_eq(sp_need_gpu_adaptive(&pb, &p, &need, &err), 0, "%s", err.msg);
    int64_t nb;
    int32_t nl;
    sp_adaptive_count(&A, 128, 1, &nb, &nl);
    cr_assert_geq(need.device_bytes, csr.device_bytes + (uint64_t)nb * 24);
    cr_assert_geq(need.host_bytes, (uint64_t)nb * sizeof(sp_adaptive_block));
    set_axis(&p, "items", 5);
    cr_assert_eq(sp_need_gpu_adaptive(&pb, &p, &need, &err), -1);
    free_rows(&A);
}

/* The `loads` axis: cached, stream and auto (the default) only; auto
 * streams exactly when the CSR and the vectors exceed the L2 it is given. */
Test(adaptive_plan, stream_axis_and_the_auto_choice)
{
    sp_params p = {0};
    sp_err err;
    int st;
    cr_assert_eq(sp_adaptive_stream("k", &p, &st, &err), 0);
    cr_assert_eq(st, 2, "auto by default");
    set_axis(&p, SP_AXIS_LOADS, SP_LOADS_STREAM);
    cr_assert_eq(sp_adaptive_stream("k", &p, &st, &err), 0);
    cr_assert_eq(st, 1);
    set_axis(&p, SP_AXIS_LOADS, SP_LOADS_CACHED);
    cr_assert_eq(sp_adaptive_stream("k", &p, &st, &err), 0);
    cr_assert_eq(st, 0);
    set_axis(&p, SP_AXIS_LOADS, 4);
    cr_assert_eq(sp_adaptive_stream("k", &p, &st, &err), -1);
    cr_assert_not_null(strstr(err.msg, "loads = 4"), "%s", err.msg);
    /* 10^6 rows and columns, 10^7 nonzeros in double: 120 MB + 4 MB + 16 MB */
    int64_t bytes = 10000000LL * 12 + 1000001LL * 4 + 2000000LL * 8;
    cr_assert_eq(sp_adaptive_streams(1000000, 1000000, 10000000, 8, bytes), 0);
    cr_assert_eq(sp_adaptive_streams(1000000, 1000000, 10000000, 8, bytes - 1), 1);
    cr_assert_eq(sp_adaptive_streams(1000000, 1000000, 10000000, 4, 50 << 20), 1);
    cr_assert_eq(sp_adaptive_streams(100000, 100000, 1000000, 4, 50 << 20), 0);
}
