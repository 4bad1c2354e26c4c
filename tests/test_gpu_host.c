/* test_gpu_host.c — the host side of the GPU SpMV kernels, without a GPU:
 * sliced ELL conversion in the GPU layout (padding, refusals), the merge-path split,
 * the `lanes` choice, the kernels' memory statements and their host-only prepare. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/hll.h"
#include "../fetch/matrix.h"
#include "../kernels/spmv/spmv_gpu_host.h"
#include "spmv_cases.h"

/* The GPU layout (kernels/hll.h: ld = hack, padding column -1) read the
 * way the GPU kernels read it — width from the offsets, stride hack —
 * against A's rows. */
static void check_sell(const sp_csr *A, int hack, int col_major, const char *what)
{
    sp_hll S;
    sp_err err;
    sp_hll_opts o = sp_hll_gpu(hack, col_major);
    cr_assert_eq(sp_hll_from_csr(&S, A, &o, &err), 0, "%s: %s", what, err.msg);
    int32_t h = S.hack;
    cr_assert_eq(S.ld, h, "%s: the GPU kernels step by hack", what);
    cr_assert_eq(S.off[S.nhacks], S.stored);
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t s = i / h, r = i % h, base = S.off[s], w = (S.off[s + 1] - base) / h;
        int32_t k0 = A->rowptr[i], len = A->rowptr[i + 1] - k0;
        cr_assert_eq(w, S.width[s]);
        cr_assert_geq(w, len, "%s: slice %d narrower than row %d", what, s, i);
        for (int32_t k = 0; k < w; k++) {
            int64_t at = col_major ? base + (int64_t)k * h + r : base + (int64_t)r * w + k;
            if (k < len) {
                cr_assert_eq(S.col[at], A->colidx[k0 + k], "%s row %d entry %d", what, i, k);
                cr_assert_eq(S.val[at], A->val[k0 + k]);
            } else {
                cr_assert_eq(S.col[at], -1, "%s row %d: padding %d", what, i, k);
                cr_assert_eq(S.val[at], 0.0);
            }
        }
    }
    sp_hll_free(&S);
}

/* Every awkward case whose layout fits the tests' free memory. */
Test(sell, layouts_match_the_csr)
{
    int hacks[] = {0, 1, 7, 32, 256};
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int h = 0; h < 5; h++) {
            int64_t stored;
            uint64_t bytes;
            sp_err err;
            sp_hll_opts o = sp_hll_gpu(hacks[h], 1);
            cr_assert_eq(sp_hll_plan(&c.A, &o, &stored, &bytes, &err), 0, "%s", err.msg);
            if (bytes > SPMV_TEST_FREE_BYTES)
                continue;       /* the runner would skip it: see need_states_the_padded_bytes */
            check_sell(&c.A, hacks[h], 1, c.name);
            check_sell(&c.A, hacks[h], 0, c.name);
        }
        spmv_case_free(&c);
    }
}

/* rows x cols with one full row (row 0) and one entry in every other row. */
static void dense_row_matrix(sp_csr *A, int32_t rows, int32_t cols)
{
    sp_err err;
    cr_assert_eq(sp_csr_alloc(A, rows, cols, cols + rows - 1, &err), 0, "%s", err.msg);
    int32_t k = 0;
    for (int32_t i = 0; i < rows; i++) {
        int32_t n = i == 0 ? cols : 1;
        for (int32_t j = 0; j < n; j++, k++) {
            A->colidx[k] = i == 0 ? j : i % cols;
            A->val[k] = 1.0;
        }
        A->rowptr[i + 1] = k;
    }
}

/* ELL of 10^5 rows with a row of 10^6 nonzeros (10^11 entries, past the
 * 32-bit offsets): refused by need, with the reason, before anything is
 * allocated; HLL with hacks of 32 is accepted and states its bytes, with
 * hacks of 4096 it is past the offsets again. */
Test(sell, ell_of_a_dense_row_is_refused)
{
    sp_csr A;
    dense_row_matrix(&A, 100000, 1000000);
    const sp_kernel *ell = sp_kernel_find("spmv_ell_cuda");
    const sp_kernel *hll = sp_kernel_find("spmv_hll_cuda_aligned");
    cr_assert(ell && ell->need && hll && hll->need);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    sp_need need = {0};
    cr_assert_eq(ell->need(&pb, NULL, &need, &err), -1);
    cr_assert_not_null(strstr(err.msg, "ELL"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "refused"), "%s", err.msg);
    sp_params p = {.n = 1, .name = {"hack"}, .value = {32}};
    cr_assert_eq(hll->need(&pb, &p, &need, &err), 0, "%s", err.msg);
    cr_assert_eq(need.host_bytes, (uint64_t)32 * 1000000 * 12 + 99968 * 12 + (2 * 3125 + 1) * 4);
    p.value[0] = 4096;
    cr_assert_eq(hll->need(&pb, &p, &need, &err), -1);
    sp_hll S;
    sp_hll_opts o = sp_hll_gpu(0, 1);
    cr_assert_eq(sp_hll_from_csr(&S, &A, &o, &err), -1);
    cr_assert_null(S.col);
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* Tiles: start at (0,0), end at (rows,nnz), move on by exactly `tile` items,
 * and lie on the merge path (row ends before the tile <= its first nonzero). */
Test(merge_path, tiles_partition_the_path)
{
    int sizes[] = {1, 7, 256};
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        const sp_csr *A = &c.A;
        for (int t = 0; t < 3; t++) {
            int32_t *co;
            int64_t n;
            sp_err err;
            cr_assert_eq(sp_merge_tiles(A, sizes[t], &co, &n, &err), 0, "%s", err.msg);
            cr_assert_eq(n, sp_merge_tile_count(A, sizes[t]));
            cr_assert(co[0] == 0 && co[1] == 0);
            cr_assert(co[2 * n] == A->rows && co[2 * n + 1] == A->nnz, "%s", c.name);
            for (int64_t k = 0; k < n; k++) {
                int64_t step = (int64_t)co[2 * k + 2] + co[2 * k + 3] - co[2 * k] - co[2 * k + 1];
                cr_assert(step == sizes[t] || k == n - 1, "%s tile %ld", c.name, (long)k);
                int32_t r = co[2 * k + 2], z = co[2 * k + 3];
                cr_assert(A->rowptr[r] <= z, "%s: tile %ld past a row end", c.name, (long)k);
                cr_assert(r == A->rows || z <= A->rowptr[r + 1], "%s tile %ld", c.name, (long)k);
            }
            free(co);
        }
        spmv_case_free(&c);
    }
}

Test(gpu_host, lanes_auto_follows_the_mean_row_length)
{
    struct { int32_t rows, nnz; int lanes; } t[] = {
        {10, 0, 2}, {10, 30, 2}, {10, 50, 4}, {10, 270, 16}, {10, 160, 16}, {10, 80, 8},
        {10, 100000, 32}, {0, 0, 2}};
    for (int i = 0; i < 8; i++) {
        sp_csr A = {.rows = t[i].rows, .cols = 1, .nnz = t[i].nnz};
        int lanes;
        sp_err err;
        cr_assert_eq(sp_gpu_lanes(&A, NULL, &lanes, &err), 0);
        cr_assert_eq(lanes, t[i].lanes, "mean %d/%d: %d lanes", t[i].nnz, t[i].rows, lanes);
    }
    sp_csr A = {.rows = 1};
    sp_params p = {.n = 1, .name = {"lanes"}, .value = {3}};
    int lanes;
    sp_err err;
    cr_assert_eq(sp_gpu_lanes(&A, &p, &lanes, &err), -1);
    cr_assert_not_null(strstr(err.msg, "lanes"));
}

/* Every GPU SpMV kernel states its memory, at least its x and y (the GPU
 * sort kernels' need lives in their CUDA harness: NULL without CUDA). */
Test(gpu_host, every_gpu_kernel_states_its_memory)
{
    spmv_case c;
    spmv_case_build(0, &c);
    sp_err err;
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu)
            continue;
        /* the kernel's own operation on the matrix (every GPU operation
         * takes one): its result must fit in what the kernel states */
        const sp_operation *op = sp_operation_find(k->operation);
        cr_assert_not_null(op, "%s: no operation %s", k->name, k->operation);
        sp_problem pb;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
        cr_assert_not_null(k->need, "%s has no need", k->name);
        sp_need need = {0};
        cr_assert_eq(k->need(&pb, NULL, &need, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_geq(need.device_bytes, (uint64_t)op->output_bytes(&pb), "%s: %llu bytes",
                      k->name, (unsigned long long)need.device_bytes);
        if (!strcmp(k->operation, "spmv"))
            cr_assert_geq(need.device_bytes, (uint64_t)(c.A.rows + c.A.cols) * 8, "%s", k->name);
        op->teardown(&pb);
        kernels++;
    }
    cr_assert_geq(kernels, 30, "every GPU kernel of every operation");
    spmv_case_free(&c);
}

/* The hybrid plan lists exactly the rows above the threshold, in order, and
 * their chunks cover each row's nonzeros in SP_HYBRID_CHUNK pieces. */
Test(gpu_host, hybrid_plan_lists_the_long_rows)
{
    int32_t mins[] = {0, 7, 64, 1 << 30};
    int32_t chunks[] = {1, 5, 2048};
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        const sp_csr *A = &c.A;
        for (int m = 0; m < 4; m++)
            for (int t = 0; t < 3; t++) {
                sp_hybrid_plan pl;
                sp_err err;
                cr_assert_eq(sp_hybrid_split(A, mins[m], chunks[t], &pl, &err), 0, "%s",
                             err.msg);
                int32_t L = 0;
                for (int32_t r = 0; r < A->rows; r++) {
                    int32_t len = A->rowptr[r + 1] - A->rowptr[r];
                    if (len <= mins[m])
                        continue;
                    cr_assert(L < pl.nlong && pl.long_row[L] == r, "%s row %d", c.name, r);
                    int32_t n = pl.long_first[L + 1] - pl.long_first[L];
                    cr_assert_eq(n, (len + chunks[t] - 1) / chunks[t], "%s row %d", c.name, r);
                    for (int32_t j = pl.long_first[L]; j < pl.long_first[L + 1]; j++)
                        cr_assert_eq(pl.chunk_long[j], L);
                    L++;
                }
                cr_assert_eq(L, pl.nlong, "%s", c.name);
                cr_assert_eq(pl.long_first[L], pl.nchunks, "%s", c.name);
                sp_hybrid_plan_free(&pl);
            }
        spmv_case_free(&c);
    }
    sp_hybrid_plan pl;
    sp_err err;
    spmv_case c;
    spmv_case_build(0, &c);
    cr_assert_eq(sp_hybrid_split(&c.A, 8, 0, &pl, &err), -1);
    cr_assert_not_null(strstr(err.msg, "chunk"));
    spmv_case_free(&c);
}

/* SELL-C-sigma's permutation: a permutation that keeps each window's rows
 * in it, sorted by length (longest first, ties in row order), and the
 * permuted CSR holds row perm[i] of A as its row i. */
Test(gpu_host, sell_sigma_sorts_rows_within_windows)
{
    int32_t sigmas[] = {1, 3, 32, 1 << 30};
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        const sp_csr *A = &c.A;
        for (int s = 0; s < 4; s++) {
            int32_t *perm, sg = sigmas[s];
            sp_csr P;
            sp_err err;
            cr_assert_eq(sp_sell_sigma(A, sg, &perm, &P, &err), 0, "%s", err.msg);
            char *seen = calloc((size_t)A->rows + 1, 1);
            for (int32_t r = 0; r < A->rows; r++) {
                int32_t o = perm[r];
                cr_assert(o >= 0 && o < A->rows && !seen[o], "%s: perm[%d] = %d", c.name, r, o);
                seen[o] = 1;
                cr_assert_eq(o / sg, r / sg, "%s: row %d left its window", c.name, o);
                int32_t len = A->rowptr[o + 1] - A->rowptr[o];
                cr_assert_eq(P.rowptr[r + 1] - P.rowptr[r], len);
                cr_assert(!memcmp(P.colidx + P.rowptr[r], A->colidx + A->rowptr[o],
                                  (size_t)len * 4), "%s row %d", c.name, r);
                cr_assert(!memcmp(P.val + P.rowptr[r], A->val + A->rowptr[o], (size_t)len * 8));
                if (r % sg && sg > 1) {
                    int32_t p0 = perm[r - 1], l0 = A->rowptr[p0 + 1] - A->rowptr[p0];
                    cr_assert(l0 > len || (l0 == len && p0 < o), "%s: rows %d, %d", c.name,
                              p0, o);
                }
                if (sg == 1)
                    cr_assert_eq(o, r);
            }
            free(seen);
            free(perm);
            sp_csr_free(&P);
        }
        spmv_case_free(&c);
    }
}

/* The SELL-C-sigma plan counts exactly what the conversion of the sorted
 * rows stores, and its need states at least those bytes. */
Test(gpu_host, sell_sigma_plan_matches_the_layout)
{
    int32_t sigmas[] = {1, 3, 4096};
    int32_t hacks[] = {1, 32, 64};
    const sp_operation *op = sp_operation_find("spmv");
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int s = 0; s < 3; s++)
            for (int h = 0; h < 3; h++) {
                int32_t *perm;
                sp_csr P;
                sp_err err;
                int64_t stored;
                cr_assert_eq(sp_sell_sigma(&c.A, sigmas[s], &perm, &P, &err), 0);
                sp_hll S;
                sp_hll_opts o = sp_hll_gpu(hacks[h], 1);
                int built = sp_hll_from_csr(&S, &P, &o, &err);
                int planned = sp_sell_sigma_plan(&c.A, sigmas[s], hacks[h], &stored, &err);
                cr_assert_eq(planned, built, "%s sigma %d hack %d", c.name, sigmas[s], hacks[h]);
                if (!built) {
                    cr_assert_eq(stored, S.stored, "%s sigma %d hack %d", c.name, sigmas[s],
                                 hacks[h]);
                    sp_problem pb;
                    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
                    sp_params p = {.n = 2, .name = {"hack", "sigma"},
                                   .value = {hacks[h], sigmas[s]}};
                    sp_need need = {0};
                    const sp_kernel *k = sp_kernel_find("spmv_sell_cuda");
                    cr_assert_eq(k->need(&pb, &p, &need, &err), 0, "%s", err.msg);
                    cr_assert_geq(need.host_bytes, (uint64_t)S.stored * 12);
                    cr_assert_geq(need.device_bytes, (uint64_t)S.stored * 12);
                    op->teardown(&pb);
                    sp_hll_free(&S);
                }
                free(perm);
                sp_csr_free(&P);
            }
        spmv_case_free(&c);
    }
}

/* prepare is host only (kernels/kernel.h): every GPU SpMV kernel builds its
 * state on every awkward matrix at its default axes with no device (where
 * this runs without one, a CUDA call in prepare would fail it) and frees it
 * again with release; a combination need refuses, prepare refuses too and
 * leaves no state (one over SPMV_TEST_FREE_BYTES is left out, as the
 * runner skips it). Each has the upload the harness requires of a GPU
 * kernel. In a CPU-only build the CUDA entry points are NULL: nothing runs. */
Test(gpu_host, spmv_prepare_is_host_only)
{
    const sp_operation *op = sp_operation_find("spmv");
    /* NULL: the kernels' defaults (double); then single, whose prepare
     * rounds the values and x to float on the host */
    const sp_params single = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_SINGLE}};
    const sp_params *precisions[] = {NULL, &single};
    for (int i = 0; i < 2 * spmv_case_count(); i++) {
        const sp_params *p = precisions[i % 2];
        spmv_case c;
        spmv_case_build(i / 2, &c);
        sp_problem pb;
        sp_err err = {{0}};
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
        for (int j = 0; sp_kernels[j]; j++) {
            const sp_kernel *k = sp_kernels[j];
            if (!k->needs_gpu || strcmp(k->operation, "spmv") || !k->prepare)
                continue;
            cr_assert(k->upload && k->release, "%s: no upload or release", k->name);
            sp_need need = {0};
            int refused = k->need && k->need(&pb, p, &need, &err);
            if (need.host_bytes > SPMV_TEST_FREE_BYTES)
                continue;               /* the runner would skip it */
            void *state = NULL;
            int rc = k->prepare(&pb, p, &state, &err);
            cr_assert_eq(rc, refused ? -1 : 0, "%s on %s: %s", k->name, c.name, err.msg);
            cr_assert(rc == 0 || !state, "%s on %s: a refusal left a state", k->name, c.name);
            k->release(state);
        }
        op->teardown(&pb);
        spmv_case_free(&c);
    }
}

/* The `precision` axis in a test's sp_params: precision alone, or after
 * one other axis. */
static sp_params with_precision(long prec)
{
    return (sp_params){.n = 1, .name = {SP_AXIS_PRECISION}, .value = {prec}};
}

/* cudaMalloc's 2 MiB pages, as the kernels' need counts each array. */
static uint64_t pages(uint64_t n, uint64_t elem)
{
    return sp_gpu_array_bytes(n, elem);
}

/* A single-precision run moves 4-byte values: its need counts A's values,
 * x and y at 4 bytes on the device (the CSR kernels exactly: rowptr and
 * colidx unchanged, values, x and y halved), and on the host the float
 * copies prepare rounds (values and x). Every GPU SpMV kernel needs less
 * device memory in single than in double on a matrix whose arrays span
 * many pages, and no less host memory; double is what it was. */
Test(gpu_host, single_precision_need_counts_four_byte_values)
{
    sp_csr A;
    sp_err err = {{0}};
    cr_assert_eq(sp_generate("laplace2d?n=700", &A, &err), 0, "%s", err.msg);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    uint64_t rows = (uint64_t)A.rows, cols = (uint64_t)A.cols, nnz = (uint64_t)A.nnz;
    const sp_params sp = with_precision(SP_SINGLE), dp = with_precision(SP_DOUBLE);
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu || strcmp(k->operation, "spmv"))
            continue;
        sp_need s = {0}, d = {0}, none = {0};
        cr_assert_eq(k->need(&pb, &sp, &s, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_eq(k->need(&pb, &dp, &d, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_eq(k->need(&pb, NULL, &none, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert(none.device_bytes == d.device_bytes && none.host_bytes == d.host_bytes,
                  "%s: no axis is double", k->name);
        cr_assert_lt(s.device_bytes, d.device_bytes, "%s: single %llu, double %llu bytes",
                     k->name, (unsigned long long)s.device_bytes,
                     (unsigned long long)d.device_bytes);
        cr_assert_geq(s.host_bytes, d.host_bytes + (nnz + cols) * 4, "%s: host %llu vs %llu",
                      k->name, (unsigned long long)s.host_bytes,
                      (unsigned long long)d.host_bytes);
        cr_assert_eq(s.stored, d.stored, "%s: the layout is the same", k->name);
        /* the value arrays shrink by half, at least all but a page each */
        cr_assert_geq(d.device_bytes - s.device_bytes, (nnz + rows + cols) * 4 - 3 * (2u << 20),
                      "%s", k->name);
        kernels++;
    }
    cr_assert_geq(kernels, 15);
    const sp_kernel *scalar = sp_kernel_find("spmv_csr_cuda_scalar");
    sp_need s = {0};
    cr_assert_eq(scalar->need(&pb, &sp, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.device_bytes, pages(rows + 1, 4) + pages(nnz, 4) + pages(nnz, 4) +
                                     pages(cols, 4) + pages(rows, 4));
    cr_assert_eq(s.host_bytes, 4096 + (nnz + cols) * 4);
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* A precision that is neither double nor single is refused by need and by
 * prepare, naming the axis, before anything is built. */
Test(gpu_host, a_precision_of_neither_kind_is_refused)
{
    spmv_case c;
    spmv_case_build(1, &c);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    const sp_params bad = with_precision(2);
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu || strcmp(k->operation, "spmv"))
            continue;
        sp_need need = {0};
        err.msg[0] = 0;
        cr_assert_eq(k->need(&pb, &bad, &need, &err), -1, "%s: need took precision 2",
                     k->name);
        cr_assert_not_null(strstr(err.msg, "precision = 2"), "%s: %s", k->name, err.msg);
        if (!k->prepare)
            continue;           /* a CPU-only build */
        void *state = &err;
        err.msg[0] = 0;
        cr_assert_eq(k->prepare(&pb, &bad, &state, &err), -1, "%s", k->name);
        cr_assert_null(state, "%s: a refusal left a state", k->name);
        cr_assert_not_null(strstr(err.msg, "precision = 2"), "%s: %s", k->name, err.msg);
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}
