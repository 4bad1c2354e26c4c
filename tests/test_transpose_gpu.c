/* test_transpose_gpu.c — the host side of the GPU transposition and its
 * primitives, without a GPU: registration, the primitive operations'
 * inputs and references against independent constructions, the serial
 * primitives, ScanTrans's unit choice and refusal, the block-size checks
 * and the memory statements (2 MiB pages). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/prim/prim.h"
#include "../kernels/spmv/spmv_gpu_host.h"
#include "../kernels/transpose/transpose_gpu.h"
#include "spmv_cases.h"

static const char *const ops[] = {"scan", "histogram", "idx2ptr", "ptr2idx", "segsort", "merge"};

Test(transpose_gpu, kernels_and_operations_are_registered)
{
    static const char *const trans[] = {"transpose_cuda_scatter", "transpose_cuda_scantrans",
                                        "transpose_cuda_mergetrans", "transpose_cub_sort",
                                        "transpose_cusparse"};
    for (size_t i = 0; i < 5; i++) {
        const sp_kernel *k = sp_kernel_find(trans[i]);
        cr_assert_not_null(k, "%s", trans[i]);
        cr_assert_str_eq(k->operation, "transpose");
        cr_assert(k->needs_gpu && k->need);
        cr_assert_eq(k->naxes, i < 3 ? 1 : 0, "%s", k->name);
    }
    for (size_t i = 0; i < 6; i++) {
        cr_assert_not_null(sp_operation_find(ops[i]), "%s", ops[i]);
        char name[32];
        snprintf(name, sizeof name, "%s_cuda", ops[i]);
        const sp_kernel *k = sp_kernel_find(name);
        cr_assert_not_null(k, "%s", name);
        cr_assert_str_eq(k->operation, ops[i]);
        cr_assert_str_eq(k->axes[0].name, "blocksize");
        cr_assert_str_eq(k->axes[0].defaults, SP_PRIM_BLOCKSIZES);
    }
}

/* The reference of operation `op` on A into a fresh buffer. */
static void *reference(const char *op, const sp_csr *A, size_t *bytes)
{
    const sp_operation *o = sp_operation_find(op);
    sp_problem pb;
    sp_err err;
    cr_assert_eq(o->setup(&pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    *bytes = o->output_bytes(&pb);
    void *out = malloc(*bytes + 8);
    cr_assert_not_null(out);
    cr_assert_eq(o->reference(&pb, out, &err), 0, "%s", err.msg);
    cr_assert_eq(o->error(&pb, out, out), 0.0);
    o->teardown(&pb);
    return out;
}

/* Every primitive's reference equals what the serial transposition
 * (sp_transpose_count, an independent code path) implies: colptr for
 * scan and idx2ptr, its differences for histogram, the rows of the CSR
 * for ptr2idx, the CSC order of (column, position) for merge, and
 * sorted 1024-segments of the CSR-order keys for segsort. */
static void check_references(const sp_csr *A, const char *what)
{
    void *csc = malloc(sp_csc_bytes(A) + 8);
    sp_csc C;
    sp_csc_view(csc, A, &C);
    sp_transpose_count(A, &C);
    size_t b;
    int32_t *scan = reference("scan", A, &b);
    cr_assert_eq(b, ((size_t)A->cols + 1) * 4);
    cr_assert_eq(memcmp(scan, C.colptr, b), 0, "%s: scan", what);
    int32_t *i2p = reference("idx2ptr", A, &b);
    cr_assert_eq(memcmp(i2p, C.colptr, b), 0, "%s: idx2ptr", what);
    int32_t *hist = reference("histogram", A, &b);
    for (int32_t j = 0; j < A->cols; j++)
        cr_assert_eq(hist[j], C.colptr[j + 1] - C.colptr[j], "%s: histogram %d", what, j);
    int32_t *p2i = reference("ptr2idx", A, &b);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            cr_assert_eq(p2i[k], i, "%s: ptr2idx %d", what, k);
    uint64_t *merged = reference("merge", A, &b);
    cr_assert_eq(b, (size_t)A->nnz * 8);
    for (int32_t j = 0; j < A->cols; j++)
        for (int32_t p = C.colptr[j]; p < C.colptr[j + 1]; p++) {
            uint32_t k = (uint32_t)merged[p];
            cr_assert_eq(merged[p] >> 32, (uint64_t)j, "%s: merge column at %d", what, p);
            cr_assert_eq(p2i[k], C.rowidx[p], "%s: merge position at %d", what, p);
        }
    uint64_t *seg = reference("segsort", A, &b);
    for (int32_t k = 0; k < A->nnz; k++) {
        if (k % SP_PRIM_SEG)
            cr_assert_lt(seg[k - 1], seg[k], "%s: segsort at %d", what, k);
        cr_assert_eq((uint32_t)seg[k] / SP_PRIM_SEG, (uint32_t)k / SP_PRIM_SEG,
                     "%s: segsort keeps segments", what);
        cr_assert_eq(seg[k] >> 32, (uint64_t)A->colidx[(uint32_t)seg[k]], "%s", what);
    }
    free(csc), free(scan), free(i2p), free(hist), free(p2i), free(merged), free(seg);
}

Test(transpose_gpu, primitive_references, .timeout = 120)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_references(&c.A, c.name);
        spmv_case_free(&c);
    }
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("rmat?scale=12&ef=8", &A, &err), 0, "%s", err.msg);
    check_references(&A, "rmat 12");
    sp_csr_free(&A);
}

Test(transpose_gpu, serial_primitives)
{
    int32_t in[] = {3, 0, 2, 5}, out[5];
    sp_scan_serial(in, out, 4);
    cr_assert(out[0] == 0 && out[1] == 3 && out[2] == 3 && out[3] == 5 && out[4] == 10);
    sp_scan_serial(in, in, 0);
    cr_assert_eq(in[0], 0, "n = 0: out[0] = 0");
    int32_t sorted[] = {1, 1, 4}, ptr[7];
    sp_idx2ptr_serial(sorted, 3, ptr, 6);
    int32_t want[] = {0, 0, 2, 2, 2, 3, 3};
    cr_assert_eq(memcmp(ptr, want, sizeof want), 0);
    int32_t idx[3];
    int32_t p2[] = {0, 0, 2, 2, 3};
    sp_ptr2idx_serial(p2, 4, idx);
    cr_assert(idx[0] == 1 && idx[1] == 1 && idx[2] == 3);
    uint64_t keys[] = {5, 1, 9, 3, 2};
    sp_segsort_serial(keys, 5, 3);
    cr_assert(keys[0] == 1 && keys[1] == 5 && keys[2] == 9 && keys[3] == 2 && keys[4] == 3);
    sp_err err;
    void *bad;
    int64_t n;
    cr_assert_eq(sp_prim_input("sort", NULL, &bad, &n, &err), -1);
    cr_assert_not_null(strstr(err.msg, "sort"), "%s", err.msg);
}

Test(transpose_gpu, scantrans_units_fit_the_budget)
{
    sp_csr A = {.rows = 10, .cols = 1000, .nnz = 100000};
    int32_t u = 0;
    sp_err err;
    cr_assert_eq(sp_scantrans_gpu_units(&A, SP_SCANTRANS_BUDGET, &u, &err), 0);
    cr_assert_eq(u, (100000 + SP_SCANTRANS_CHUNK - 1) / SP_SCANTRANS_CHUNK, "one per chunk");
    A.cols = 9000000;
    A.nnz = 45000000;
    cr_assert_eq(sp_scantrans_gpu_units(&A, SP_SCANTRANS_BUDGET, &u, &err), 0);
    cr_assert_eq(u, (int32_t)(SP_SCANTRANS_BUDGET / (9000000ull * 4) - 1), "capped: %d", u);
    cr_assert_leq(((uint64_t)u + 1) * A.cols * 4, SP_SCANTRANS_BUDGET);
    A.nnz = 0;
    cr_assert_eq(sp_scantrans_gpu_units(&A, SP_SCANTRANS_BUDGET, &u, &err), 0);
    cr_assert_eq(u, 1);
    A.cols = 1000;
    cr_assert_eq(sp_scantrans_gpu_units(&A, 7999, &u, &err), -1, "two rows of counts do not fit");
    cr_assert_not_null(strstr(err.msg, "budget"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "cols = 1000"), "%s", err.msg);
    cr_assert_eq(sp_scantrans_gpu_units(&A, 8000, &u, &err), 0);
    cr_assert_eq(u, 1);
}

Test(transpose_gpu, block_sizes_are_checked)
{
    static const long good[] = {64, 128, 256, 512, 1024}, bad[] = {0, 32, 63, 96, 2048, -64};
    int bs;
    sp_err err;
    for (int i = 0; i < 5; i++) {
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {good[i]}};
        cr_assert_eq(sp_trans_gpu_blocksize("k", &p, &bs, &err), 0);
        cr_assert_eq(bs, good[i]);
    }
    for (int i = 0; i < 6; i++) {
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {bad[i]}};
        cr_assert_eq(sp_trans_gpu_blocksize("k", &p, &bs, &err), -1, "%ld", bad[i]);
        cr_assert_not_null(strstr(err.msg, "blocksize"), "%s", err.msg);
    }
    cr_assert_eq(sp_trans_gpu_blocksize("k", NULL, &bs, &err), 0);
    cr_assert_eq(bs, 256, "default");
    sp_params p32 = {.n = 1, .name = {"blocksize"}, .value = {32}};
    cr_assert_eq(sp_prim_blocksize("k", &p32, &bs, &err), 0, "primitives take 32");
    sp_params p48 = {.n = 1, .name = {"blocksize"}, .value = {48}};
    cr_assert_eq(sp_prim_blocksize("k", &p48, &bs, &err), -1);
}

Test(transpose_gpu, memory_statements)
{
    const uint64_t page = 2u << 20;
    cr_assert_eq(sp_gpu_array_bytes(0, 8), page, "never less than one element, one page");
    cr_assert_eq(sp_gpu_array_bytes(page / 4, 4), page);
    cr_assert_eq(sp_gpu_array_bytes(page / 4 + 1, 4), 2 * page);
    sp_csr A = {.rows = 1000000, .cols = 2000000, .nnz = 10000000};
    uint64_t csr = sp_gpu_array_bytes(1000001, 4) + sp_gpu_array_bytes(10000000, 4) +
                   sp_gpu_array_bytes(10000000, 8);
    uint64_t csc = sp_gpu_array_bytes(10000000ull * 12 + 2000000ull * 4 + 4, 1);
    cr_assert_eq(sp_trans_gpu_bytes_mergetrans(&A),
                 csr + csc + 2 * sp_gpu_array_bytes(10000000, 8) +
                     sp_gpu_array_bytes(10000000, 4));
    cr_assert_eq(sp_trans_gpu_bytes_scantrans(&A, 5, 256),
                 csr + csc + sp_gpu_array_bytes(6ull * 2000000, 4) +
                     sp_gpu_array_bytes(10000000, 4) +
                     sp_gpu_array_bytes(sp_gpu_scan_temp_bytes(2000000, 256), 1));
    uint64_t all[] = {sp_trans_gpu_bytes_scatter(&A), sp_trans_gpu_bytes_cub(&A),
                      sp_trans_gpu_bytes_cusparse(&A)};
    for (int i = 0; i < 3; i++) {
        cr_assert_gt(all[i], csr + csc, "more than the CSR and the CSC");
        cr_assert_eq(all[i] % page, 0, "whole pages");
    }
    /* scan temporaries: one level of block sums per 8 x bs elements */
    cr_assert_eq(sp_gpu_scan_temp_bytes(0, 256), 0);
    cr_assert_eq(sp_gpu_scan_temp_bytes(2048, 256), 0, "one tile");
    cr_assert_eq(sp_gpu_scan_temp_bytes(2049, 256), 3 * 4, "two tiles: 2 sums + total");
    int64_t n = 2048ll * 2048 + 1;  /* 2049 tiles, then 2 */
    cr_assert_eq(sp_gpu_scan_temp_bytes(n, 256), (2050 + 3) * 4);
}

/* need states the device arrays, and refuses what prepare would refuse. */
Test(transpose_gpu, need_of_every_kernel)
{
    spmv_case c;
    spmv_case_build(0, &c);
    sp_problem pb = {.A = &c.A};
    sp_err err;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!k->needs_gpu || !strcmp(k->operation, "spmv"))
            continue;
        sp_need need = {0, 0};
        cr_assert_eq(k->need(&pb, NULL, &need, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_gt(need.device_bytes, 0, "%s", k->name);
        cr_assert_eq(need.device_bytes % (2u << 20), 0, "%s: whole pages", k->name);
        cr_assert_gt(need.host_bytes, 0, "%s", k->name);
    }
    sp_params p = {.n = 1, .name = {"blocksize"}, .value = {100}};
    sp_need need;
    cr_assert_eq(sp_kernel_find("segsort_cuda")->need(&pb, &p, &need, &err), -1);
    cr_assert_not_null(strstr(err.msg, "segsort_cuda: blocksize = 100"), "%s", err.msg);
    spmv_case_free(&c);
}

/* ScanTrans on a matrix whose counts cannot fit: skipped with the reason
 * by need (the runner records it), never allocated. */
Test(transpose_gpu, scantrans_need_refuses_too_many_columns)
{
    sp_csr A = {.rows = 1, .cols = INT32_MAX, .nnz = 0};
    sp_problem pb = {.A = &A};
    sp_need need;
    sp_err err;
    cr_assert_eq(sp_kernel_find("transpose_cuda_scantrans")->need(&pb, NULL, &need, &err), -1);
    cr_assert_not_null(strstr(err.msg, "transpose_cuda_scantrans"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "budget"), "%s", err.msg);
}
