/* test_transpose_gpu.c — the host side of the GPU transposition and its
 * primitives, without a GPU: registration, prepare (host only: it runs
 * here, device or not), the primitive operations' inputs and references
 * against independent constructions, the serial primitives, ScanTrans's
 * unit choice and refusal, the block-size checks and the memory
 * statements (2 MiB pages). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/partition.h"
#include "../kernels/prim/prim.h"
#include "../kernels/spmv/spmv_gpu_host.h"
#include "../kernels/transpose/transpose_gpu.h"
#include "../kernels/transpose/transpose_symperm.h"
#include "../runner/runner.h"
#include "spmv_cases.h"
#include "util_symm.h"

static const char *const ops[] = {"scan",    "histogram", "idx2ptr",     "ptr2idx",
                                  "segsort", "merge",     "hist_idx2ptr"};

Test(transpose_gpu, kernels_and_operations_are_registered)
{
    static const char *const trans[] = {"transpose_cuda_scatter", "transpose_cuda_scantrans",
                                        "transpose_cuda_mergetrans", "transpose_cub_sort",
                                        "transpose_cusparse", "transpose_cub_carry"};
    for (size_t i = 0; i < 6; i++) {
        const sp_kernel *k = sp_kernel_find(trans[i]);
        cr_assert_not_null(k, "%s", trans[i]);
        cr_assert_str_eq(k->operation, "transpose");
        cr_assert(k->needs_gpu && k->need);
        /* blocksize for the first three, then the precision of every one;
         * ScanTrans's scan_threads after it */
        cr_assert_eq(k->naxes, i == 1 ? 3 : i < 3 ? 2 : 1, "%s", k->name);
        cr_assert_str_eq(k->axes[i < 3 ? 1 : 0].name, SP_AXIS_PRECISION, "%s", k->name);
        if (i == 1)
            cr_assert_str_eq(k->axes[2].name, SP_AXIS_SCAN_THREADS);
    }
    /* the carry route's statement: CSR, CSC, two 64-bit key arrays, CUB's
     * buffer estimated at 16 bytes a nonzero + 16 MiB */
    static const sp_csr A = {.rows = 1000, .cols = 3000, .nnz = 100000};
    sp_problem pb = {.A = (sp_csr *)&A};
    sp_need need = {0};
    sp_err err;
    const sp_kernel *carry = sp_kernel_find("transpose_cub_carry");
    cr_assert_eq(carry->need(&pb, NULL, &need, &err), 0, "%s", err.msg);
    uint64_t nnz = (uint64_t)A.nnz;
    uint64_t want = sp_gpu_array_bytes(1001, 4) + sp_gpu_array_bytes(nnz, 4) +
                    sp_gpu_array_bytes(nnz, 8) + sp_gpu_array_bytes(nnz * 12 + 3000 * 4 + 4, 1) +
                    2 * sp_gpu_array_bytes(nnz, 8) + sp_gpu_array_bytes(nnz * 16 + (16u << 20), 1);
    cr_assert_eq(need.device_bytes, want);
    cr_assert_eq(sp_trans_gpu_bytes_carry(&A, 8), want);
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

/* A GPU kernel of the transposition or of a primitive operation. */
static int is_family(const sp_kernel *k)
{
    if (!k->needs_gpu)
        return 0;
    if (!strcmp(k->operation, "transpose"))
        return 1;
    for (size_t i = 0; i < 7; i++)
        if (!strcmp(k->operation, ops[i]))
            return 1;
    return 0;
}

/* k's steps are all built (a CUDA build) or none (a CPU-only one; no
 * analyse either). */
static int steps_built(const sp_kernel *k)
{
    int built = k->prepare != NULL;
    cr_assert(!!k->upload == built && !!k->launch == built && !!k->result == built &&
                  !!k->release == built && (built || !k->analyse),
              "%s: steps built in part", k->name);
    return built;
}

/* prepare at a bad block size: refused on the host, no state, the axis
 * named (the transpositions take powers of two, the primitives 1..1024). */
static void check_bad_blocksize(const sp_kernel *k, const sp_problem *pb)
{
    long bad = strcmp(k->operation, "transpose") ? 1025 : 48;
    sp_params p = {.n = 1, .name = {"blocksize"}, .value = {bad}};
    void *state = NULL;
    sp_err err = {{0}};
    cr_assert_eq(k->prepare(pb, &p, &state, &err), -1, "%s", k->name);
    cr_assert_null(state, "%s", k->name);
    cr_assert_not_null(strstr(err.msg, "blocksize"), "%s: %s", k->name, err.msg);
}

/* prepare is host only (kernel.h): in a CUDA build it makes every GPU
 * transposition and primitive kernel's state here, where there may be no
 * device (a CUDA call would fail), and release frees that state without
 * one; a bad block size is refused there. */
Test(transpose_gpu, prepare_is_host_only)
{
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("laplace2d?n=31", &A, &err), 0, "%s", err.msg);
    sp_problem pb = {.A = &A};
    int n = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!is_family(k) || !steps_built(k))
            continue;
        void *state = NULL;
        cr_assert_eq(k->prepare(&pb, NULL, &state, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_not_null(state, "%s", k->name);
        k->release(state);
        if (k->naxes > 0 && !strcmp(k->axes[0].name, "blocksize"))
            check_bad_blocksize(k, &pb);
        n++;
    }
#ifdef SP_HAVE_CUDA
    cr_assert_eq(n, 18, "9 transposition and 9 primitive kernels");
#else
    cr_assert_eq(n, 0);
#endif
    sp_csr_free(&A);
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
    cr_assert_eq(sp_prim_input("scan", NULL, 0, &bad, &n, &err), -1, "no problem");
    sp_csr A;
    cr_assert_eq(sp_generate("laplace2d?n=4", &A, &err), 0, "%s", err.msg);
    sp_problem pb = {.A = &A};
    cr_assert_eq(sp_prim_input("sort", &pb, 0, &bad, &n, &err), -1);
    cr_assert_not_null(strstr(err.msg, "sort"), "%s", err.msg);
    sp_csr_free(&A);
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
    static const long any[] = {1, 3, 33, 48, 1000, 1024}, out[] = {0, -1, 1025, 4096};
    for (int i = 0; i < 6; i++) {   /* any block size of CUDA's: 1..1024 */
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {any[i]}};
        cr_assert_eq(sp_prim_blocksize("k", &p, &bs, &err), 0, "%ld: %s", any[i], err.msg);
        cr_assert_eq(bs, any[i]);
    }
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {out[i]}};
        cr_assert_eq(sp_prim_blocksize("k", &p, &bs, &err), -1, "%ld", out[i]);
        cr_assert_not_null(strstr(err.msg, "blocksize") && strstr(err.msg, "1..1024"), "%s",
                           err.msg);
    }
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
    cr_assert_eq(sp_trans_gpu_bytes_mergetrans(&A, 8),
                 csr + csc + 2 * sp_gpu_array_bytes(10000000, 8) +
                     sp_gpu_array_bytes(10000000, 4));
    cr_assert_eq(sp_trans_gpu_bytes_scantrans(&A, 5, 256, 8),
                 csr + csc + sp_gpu_array_bytes(6ull * 2000000, 4) +
                     sp_gpu_array_bytes(10000000, 4) +
                     sp_gpu_array_bytes(sp_gpu_scan_temp_bytes(2000000, 256), 1));
    uint64_t all[] = {sp_trans_gpu_bytes_scatter(&A, 8), sp_trans_gpu_bytes_cub(&A, 8),
                      sp_trans_gpu_bytes_cusparse(&A, 8)};
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
        if (!k->needs_gpu || !strcmp(k->operation, "spmv") ||
            !strcmp(k->name, "transpose_cuda_wintrans"))   /* refuses: wintrans_refusals */
            continue;
        sp_need need = {0};
        cr_assert_eq(k->need(&pb, NULL, &need, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_gt(need.device_bytes, 0, "%s", k->name);
        cr_assert_eq(need.device_bytes % (2u << 20), 0, "%s: whole pages", k->name);
        cr_assert_gt(need.host_bytes, 0, "%s", k->name);
    }
    sp_params p = {.n = 1, .name = {"blocksize"}, .value = {2000}};
    sp_need need;
    cr_assert_eq(sp_kernel_find("segsort_cuda")->need(&pb, &p, &need, &err), -1);
    cr_assert_not_null(strstr(err.msg, "segsort_cuda: blocksize = 2000"), "%s", err.msg);
    sp_params seg = {.n = 2, .name = {"blocksize", "segment"}, .value = {100, 4096}};
    cr_assert_eq(sp_kernel_find("segsort_cuda")->need(&pb, &seg, &need, &err), -1);
    cr_assert_not_null(strstr(err.msg, "segsort_cuda: segment = 4096 is outside 1..2048"),
                       "%s", err.msg);
    sp_params dist = {.n = 2, .name = {"blocksize", "sp_dist"}, .value = {100, 0}};
    cr_assert_eq(sp_kernel_find("merge_cuda")->need(&pb, &dist, &need, &err), -1);
    cr_assert_not_null(strstr(err.msg, "merge_cuda: sp_dist = 0"), "%s", err.msg);
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

/* ---- windowed ScanTrans: the plan ------------------------------------- */

#define WINTRANS "transpose_cuda_wintrans"

Test(transpose_gpu, wintrans_is_registered_with_its_axes)
{
    const sp_kernel *k = sp_kernel_find(WINTRANS);
    cr_assert_not_null(k);
    cr_assert_str_eq(k->operation, "transpose");
    cr_assert(k->needs_gpu && k->need);
    cr_assert_eq(k->naxes, 3);
    cr_assert_str_eq(k->axes[0].name, "blocksize");
    cr_assert_str_eq(k->axes[1].name, "chunk");
    cr_assert_str_eq(k->axes[1].defaults, SP_WINTRANS_CHUNKS);
    cr_assert_str_eq(k->axes[2].name, SP_AXIS_PRECISION);
}

Test(transpose_gpu, wintrans_chunks_and_row_starts)
{
    /* rows of 3, 0, 2, 4, 1 entries */
    int32_t rowptr[] = {0, 3, 3, 5, 9, 10};
    sp_csr A = {.rows = 5, .cols = 10, .nnz = 10, .rowptr = rowptr};
    cr_assert_eq(sp_wintrans_chunks(10, 4), 3);
    cr_assert_eq(sp_wintrans_chunks(8, 4), 2);
    cr_assert_eq(sp_wintrans_chunks(0, 4), 1, "nnz = 0: one (empty) chunk");
    cr_assert_eq(sp_wintrans_chunks(1, 1 << 20), 1);
    int32_t want[] = {0, 3, 4, 5};   /* first rows starting at >= 0, 4, 8; rows */
    for (int32_t c = 0; c <= 3; c++)
        cr_assert_eq(sp_wintrans_row_start(&A, 4, 3, c), want[c], "chunk %d", c);
    /* a row longer than the chunk leaves empty chunks (equal starts) */
    int32_t longrow[] = {0, 1, 11, 12};
    sp_csr L = {.rows = 3, .cols = 20, .nnz = 12, .rowptr = longrow};
    int32_t lwant[] = {0, 2, 2, 2, 3};
    for (int32_t c = 0; c <= 4; c++)
        cr_assert_eq(sp_wintrans_row_start(&L, 3, 4, c), lwant[c], "long row, chunk %d", c);
}

/* The plan checked against an independent construction: chunk row ranges
 * by a linear walk, windows as min and max over all entries (not the
 * first and last of each row), widened by a direct search over the other
 * chunks, W recomputed. */
static void check_plan(const sp_csr *A, int64_t chunk, const char *what)
{
    sp_wintrans_plan pl;
    sp_err err = {{0}};
    int rc = sp_wintrans_plan_of(A, chunk, &pl, &err);
    int32_t C = A->nnz ? (int32_t)((A->nnz + chunk - 1) / chunk) : 1, r = 0;
    int32_t *lo = malloc((size_t)C * 8), *hi = lo + C;
    cr_assert_not_null(lo);
    for (int32_t c = 0; c < C; c++) {
        int32_t r1 = r;
        if (c == C - 1)
            r1 = A->rows;
        else
            while (r1 < A->rows && A->rowptr[r1] < (int64_t)(c + 1) * chunk)
                r1++;
        lo[c] = INT32_MAX, hi[c] = -1;
        for (int32_t k = A->rowptr[r]; k < A->rowptr[r1]; k++) {
            lo[c] = A->colidx[k] < lo[c] ? A->colidx[k] : lo[c];
            hi[c] = A->colidx[k] > hi[c] ? A->colidx[k] : hi[c];
        }
        int32_t glo, ghi;
        cr_assert_eq(sp_wintrans_row_start(A, chunk, C, c), r, "%s: chunk %d", what, c);
        cr_assert_eq(sp_wintrans_window(A, &(sp_wintrans_plan){.chunk = chunk, .chunks = C}, c,
                                        &glo, &ghi), hi[c] >= lo[c]);
        if (hi[c] >= lo[c])
            cr_assert(glo == lo[c] && ghi == hi[c], "%s: chunk %d [%d, %d] vs [%d, %d]", what,
                      c, glo, ghi, lo[c], hi[c]);
        r = r1;
    }
    int64_t W = 0;
    int32_t widest = 0;
    for (int32_t c = 0; c < C; c++) {
        if (hi[c] < lo[c])
            continue;
        int32_t wl = lo[c], wh = hi[c];
        for (int32_t d = 0; d < C; d++)
            if (hi[d] >= lo[d]) {
                if (d > c && lo[d] < wl)
                    wl = lo[d];
                if (d < c && hi[d] > wh)
                    wh = hi[d];
            }
        W += wh - wl + 1;
        widest = wh - wl + 1 > widest ? wh - wl + 1 : widest;
    }
    free(lo);
    int64_t budget = 2 * (int64_t)A->nnz + SP_WINTRANS_SLACK;
    if (W > budget) {
        cr_assert_eq(rc, -1, "%s at %lld: W = %lld accepted", what, (long long)chunk,
                     (long long)W);
        cr_assert_not_null(strstr(err.msg, WINTRANS), "%s", err.msg);
        cr_assert_not_null(strstr(err.msg, "budget"), "%s", err.msg);
    } else {
        cr_assert_eq(rc, 0, "%s at %lld: %s", what, (long long)chunk, err.msg);
        cr_assert_eq(pl.chunks, C);
        cr_assert_eq(pl.width, W, "%s: W", what);
        cr_assert_eq(pl.max_width, widest, "%s: widest", what);
    }
}

Test(transpose_gpu, wintrans_plan_matches_brute_force, .timeout = 120)
{
    static const int64_t chunks[] = {256, 1000, 4096, 65536};
    int accepted = 0;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int k = 0; k < 4; k++)
            check_plan(&c.A, chunks[k], c.name);
        spmv_case_free(&c);
    }
    static const char *specs[] = {"laplace2d?n=101", "laplace3d?n=9&points=27",
                                  "banded?n=5001&bw=7", "rmat?scale=10&ef=8",
                                  "denserow?rows=2000&cols=30000&per_row=4&dense=30000"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s", err.msg);
        for (int k = 0; k < 4; k++) {
            check_plan(&A, chunks[k], specs[s]);
            sp_wintrans_plan pl;
            accepted += sp_wintrans_plan_of(&A, chunks[k], &pl, &err) == 0;
        }
        sp_csr_free(&A);
    }
    cr_assert_geq(accepted, 12, "the stencils and the band at every chunk size");
}

/* Stencils are taken with W below nnz; for 5 points on n x n with
 * chunk / 5 rows a chunk, each window is about chunk / 5 + 2n wide. The
 * 27-point stencil's first plane of rows reaches column 0 only in the
 * plane after it: its raw windows are not monotone, the widened are. */
Test(transpose_gpu, wintrans_takes_stencils)
{
    sp_csr A;
    sp_err err;
    sp_wintrans_plan pl;
    cr_assert_eq(sp_generate("laplace2d?n=300", &A, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_wintrans_plan_of(&A, 16384, &pl, &err), 0, "%s", err.msg);
    cr_assert_lt(pl.width, A.nnz);
    cr_assert_leq(pl.max_width, 16384 / 5 + 2 * 300 + 2 * 300);
    cr_assert_geq(pl.max_width, 16384 / 5 + 2 * 300 - 10);
    sp_csr_free(&A);
    cr_assert_eq(sp_generate("laplace3d?n=40&points=27", &A, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_wintrans_plan_of(&A, 16384, &pl, &err), 0, "%s", err.msg);
    cr_assert_lt(pl.width, A.nnz);
    sp_wintrans_plan raw = pl;
    int32_t lo0, hi0, lo1, hi1, c = 0;
    do {
        sp_wintrans_window(&A, &raw, c, &lo0, &hi0);
        sp_wintrans_window(&A, &raw, ++c, &lo1, &hi1);
    } while (lo1 >= lo0 && c + 1 < pl.chunks);
    cr_assert_lt(c, pl.chunks, "a raw window decreases (chunk %d: %d after %d)", c, lo1, lo0);
    sp_csr_free(&A);
}

/* Refusals, all by W above the budget: an anti-diagonal (each widened
 * window is every column), rows holding the first and the last column
 * (every window full), a dense row among random rows; by need, naming the
 * kernel. */
Test(transpose_gpu, wintrans_refusals)
{
    enum { N = 5000 };
    static int32_t rowptr[N + 1], colidx[N];
    static double val[N];
    for (int32_t i = 0; i < N; i++)
        rowptr[i] = i, colidx[i] = N - 1 - i, val[i] = 1;
    rowptr[N] = N;
    sp_csr A = {.rows = N, .cols = N, .nnz = N, .rowptr = rowptr, .colidx = colidx, .val = val};
    sp_problem pb = {.A = &A};
    sp_params p = {.n = 1, .name = {"chunk"}, .value = {256}};
    sp_need need;
    sp_err err;
    const sp_kernel *k = sp_kernel_find(WINTRANS);
    cr_assert_eq(k->need(&pb, &p, &need, &err), -1);
    cr_assert_not_null(strstr(err.msg, WINTRANS ": the column windows of 20 chunks of 256 "
                              "nonzeros (made monotone) sum to W = 100000"), "%s", err.msg);
    static int32_t ends_ptr[N / 2 + 1];
    for (int32_t i = 0; i < N; i++)
        colidx[i] = i % 2 ? N - 1 : 0;
    for (int32_t i = 0; i <= N / 2; i++)
        ends_ptr[i] = 2 * i;
    sp_csr E = {.rows = N / 2, .cols = N, .nnz = N, .rowptr = ends_ptr, .colidx = colidx,
                .val = val};
    pb.A = &E;
    cr_assert_eq(k->need(&pb, &p, &need, &err), -1, "every window full");
    cr_assert_not_null(strstr(err.msg, WINTRANS ": the column windows of 20 chunks of 256 "
                              "nonzeros (made monotone) sum to W = 100000 counts, above the "
                              "budget min(2 x nnz + 65536, 2^31 - 1) = 75536"),
                       "%s", err.msg);
    sp_csr D;
    cr_assert_eq(sp_generate("denserow?rows=100000&cols=100000&per_row=8&dense=100000", &D,
                             &err), 0, "%s", err.msg);
    pb.A = &D;
    cr_assert_eq(k->need(&pb, NULL, &need, &err), -1, "a dense row among random rows");
    cr_assert_not_null(strstr(err.msg, WINTRANS ": the column windows"), "%s", err.msg);
    sp_csr_free(&D);
    /* a diagonal is taken: W = nnz */
    for (int32_t i = 0; i < N; i++)
        colidx[i] = i;
    pb.A = &A;
    cr_assert_eq(k->need(&pb, &p, &need, &err), 0, "%s", err.msg);
    sp_wintrans_plan pl;
    cr_assert_eq(sp_wintrans_plan_of(&A, 256, &pl, &err), 0);
    cr_assert_eq(pl.width, N);
    cr_assert_eq(need.device_bytes, sp_trans_gpu_bytes_wintrans(&A, &pl, 256, 8));
}

Test(transpose_gpu, wintrans_chunk_axis)
{
    int64_t chunk;
    sp_err err;
    cr_assert_eq(sp_wintrans_chunk("k", NULL, &chunk, &err), 0);
    cr_assert_eq(chunk, 16384, "default");
    long good[] = {SP_WINTRANS_CHUNK_MIN, 1000, SP_WINTRANS_CHUNK_MAX};
    long bad[] = {0, -5, SP_WINTRANS_CHUNK_MIN - 1, SP_WINTRANS_CHUNK_MAX + 1};
    for (int i = 0; i < 3; i++) {
        sp_params p = {.n = 1, .name = {"chunk"}, .value = {good[i]}};
        cr_assert_eq(sp_wintrans_chunk("k", &p, &chunk, &err), 0, "%ld", good[i]);
        cr_assert_eq(chunk, good[i]);
    }
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 1, .name = {"chunk"}, .value = {bad[i]}};
        cr_assert_eq(sp_wintrans_chunk("k", &p, &chunk, &err), -1, "%ld", bad[i]);
        cr_assert_not_null(strstr(err.msg, "chunk"), "%s", err.msg);
    }
    sp_csr A = {.rows = 0, .cols = 0, .nnz = 0};
    sp_wintrans_plan pl;
    cr_assert_eq(sp_wintrans_plan_of(&A, 0, &pl, &err), -1);
    cr_assert_not_null(strstr(err.msg, "chunk"), "%s", err.msg);
}

Test(transpose_gpu, wintrans_memory_statement)
{
    sp_csr A = {.rows = 1000000, .cols = 2000000, .nnz = 10000000};
    sp_wintrans_plan pl = {.chunk = 16384, .chunks = 611, .width = 3000000, .max_width = 9000};
    uint64_t csr = sp_gpu_array_bytes(1000001, 4) + sp_gpu_array_bytes(10000000, 4) +
                   sp_gpu_array_bytes(10000000, 8);
    uint64_t csc = sp_gpu_array_bytes(10000000ull * 12 + 2000000ull * 4 + 4, 1);
    cr_assert_eq(sp_trans_gpu_bytes_wintrans(&A, &pl, 512, 8),
                 csr + csc + sp_gpu_array_bytes(6 * 611 + 3, 4) +
                     sp_gpu_array_bytes(3000000, 4) + sp_gpu_array_bytes(2000000, 4) +
                     sp_gpu_array_bytes(sp_gpu_scan_temp_bytes(2000000, 512), 1));
}

/* A serial model of the device passes (transpose_cuda_wintrans.cu), step
 * for step: widened windows (prefix max / suffix min), the column pass's
 * binary search over the widened hi and walk while the widened lo <= j,
 * the scatter in rounds of nw x 32 positions: each warp's row search (32
 * row starts at a time from the last row of its previous round) and lane
 * ranks among equal columns, then the cursors advanced by the warps in
 * warp order (the kernel's sub-steps between barriers), slot = the
 * leader's cursor + rank. Its CSC must equal the serial transposition. */
static int32_t model_row_of(const int32_t *rowptr, int32_t r1, int32_t cur, int32_t k)
{
    for (int32_t base = cur;; base += 32) {
        int n = 0;
        for (int i = 0; i < 32; i++)
            n += (base + 1 + i < r1 ? rowptr[base + 1 + i] : INT32_MAX) <= k;
        if (n < 32)
            return base + n;
    }
}

static void model_wintrans(const sp_csr *A, int64_t chunk, int nw, sp_csc *C)
{
    sp_wintrans_plan pl;
    sp_err err;
    cr_assert_eq(sp_wintrans_plan_of(A, chunk, &pl, &err), 0, "%s", err.msg);
    int32_t n = pl.chunks, *lo = malloc((size_t)n * 16 + 8), *hi = lo + n, *off = hi + n;
    int32_t *len = calloc((size_t)A->cols + 1, 4), *cnt = calloc((size_t)pl.width + 1, 4);
    cr_assert(lo && len && cnt);
    for (int32_t c = 0; c < n; c++)
        sp_wintrans_window(A, &pl, c, &lo[c], &hi[c]);
    int32_t run = -1;
    for (int32_t c = 0; c < n; c++)     /* widened, carried over empty chunks */
        hi[c] = run = hi[c] >= lo[c] && hi[c] > run ? hi[c] : run;
    run = INT32_MAX;
    int32_t *full = malloc((size_t)n * 4);
    for (int32_t c = n - 1; c >= 0; c--) {
        full[c] = hi[c] >= 0 && lo[c] != INT32_MAX;
        lo[c] = run = full[c] && lo[c] < run ? lo[c] : run;
    }
    off[0] = 0;
    for (int32_t c = 0; c < n; c++)
        off[c + 1] = off[c] + (full[c] ? hi[c] - lo[c] + 1 : 0);
    cr_assert_eq(off[n], pl.width);
    for (int32_t c = 0; c < n; c++) {   /* count */
        int32_t r0 = sp_wintrans_row_start(A, chunk, n, c);
        int32_t r1 = sp_wintrans_row_start(A, chunk, n, c + 1);
        for (int32_t k = A->rowptr[r0]; k < A->rowptr[r1]; k++) {
            cr_assert(A->colidx[k] >= lo[c] && A->colidx[k] <= hi[c]);
            cnt[off[c] + A->colidx[k] - lo[c]]++;
        }
    }
    for (int32_t j = 0; j < A->cols; j++) {   /* columns */
        int32_t a = sp_prefix_find(hi, n, j);   /* the first chunk with hi >= j */
        for (int32_t c = a; c < n && lo[c] <= j; c++)
            if (off[c + 1] > off[c]) {
                int32_t x = cnt[off[c] + j - lo[c]];
                cnt[off[c] + j - lo[c]] = len[j];
                len[j] += x;
            }
    }
    sp_scan_serial(len, C->colptr, A->cols);
    for (int32_t c = 0; c < n; c++) {   /* scatter: rounds of nw x 32, warps in order */
        if (off[c + 1] == off[c])
            continue;
        int32_t r0 = sp_wintrans_row_start(A, chunk, n, c);
        int32_t r1 = sp_wintrans_row_start(A, chunk, n, c + 1);
        int32_t p0 = A->rowptr[r0], p1 = A->rowptr[r1];
        int32_t *cur = cnt + off[c], warp_row[32];
        for (int32_t i = 0; i < off[c + 1] - off[c]; i++)
            cur[i] += C->colptr[lo[c] + i];
        for (int w = 0; w < nw; w++)
            warp_row[w] = r0;
        static int32_t col[32 * 32], row[32 * 32], slot[32 * 32];
        static int ok[32 * 32], leader[32 * 32], rank[32 * 32], peers[32 * 32];
        for (int32_t base = p0; base < p1; base += nw * 32) {
            for (int w = 0; w < nw; w++) {   /* every warp: rows, then peers */
                int32_t next = warp_row[w];
                for (int lane = 0; lane < 32; lane++) {
                    int t = w * 32 + lane;
                    int32_t k = base + t;
                    ok[t] = k < p1;
                    col[t] = ok[t] ? A->colidx[k] : -1;
                    row[t] = model_row_of(A->rowptr, r1, warp_row[w], ok[t] ? k : -1);
                    if (ok[t]) {
                        cr_assert(A->rowptr[row[t]] <= k && k < A->rowptr[row[t] + 1],
                                  "row of %d", k);
                        next = row[t] > next ? row[t] : next;
                    }
                }
                warp_row[w] = next;
                for (int lane = 0; lane < 32; lane++) {
                    int t = w * 32 + lane;
                    leader[t] = -1, rank[t] = 0, peers[t] = 0;
                    for (int o = 0; o < 32; o++)
                        if (col[w * 32 + o] == col[t]) {
                            peers[t]++;
                            rank[t] += o < lane;
                            if (leader[t] < 0)
                                leader[t] = o;
                        }
                }
            }
            for (int w = 0; w < nw; w++)   /* sub-step w: warp w's leaders */
                for (int lane = 0; lane < 32; lane++) {
                    int t = w * 32 + lane;
                    if (ok[t] && leader[t] == lane) {
                        slot[t] = cur[col[t] - lo[c]];
                        cur[col[t] - lo[c]] = slot[t] + peers[t];
                    }
                }
            for (int t = 0; t < nw * 32; t++)   /* the writes */
                if (ok[t]) {
                    int32_t s = slot[(t & ~31) + leader[t]] + rank[t];
                    C->rowidx[s] = row[t];
                    C->val[s] = A->val[base + t];
                }
        }
    }
    free(lo), free(len), free(cnt), free(full);
}

static int check_model(const sp_csr *A, int64_t chunk, const char *what)
{
    sp_wintrans_plan pl;
    sp_err err;
    if (sp_wintrans_plan_of(A, chunk, &pl, &err))
        return 0;
    size_t bytes = sp_csc_bytes(A);
    void *want = malloc(bytes + 8), *got = malloc(bytes + 8);
    cr_assert(want && got);
    sp_csc W, G;
    sp_csc_view(want, A, &W);
    sp_csc_view(got, A, &G);
    sp_transpose_count(A, &W);
    for (int nw = 2; nw <= 32; nw *= 2) {   /* block sizes 64 .. 1024 */
        memset(got, 0xff, bytes);
        model_wintrans(A, chunk, nw, &G);
        cr_assert_eq(memcmp(got, want, bytes), 0, "%s at chunk %lld, %d warps", what,
                     (long long)chunk, nw);
    }
    free(want), free(got);
    return 1;
}

Test(transpose_gpu, wintrans_model_equals_serial_transposition, .timeout = 120)
{
    static const int64_t chunks[] = {256, 1000, 16384};
    int checked = 0;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int k = 0; k < 3; k++)
            checked += check_model(&c.A, chunks[k], c.name);
        spmv_case_free(&c);
    }
    static const char *specs[] = {"laplace2d?n=101", "laplace3d?n=12&points=27",
                                  "banded?n=5001&bw=7"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s", err.msg);
        for (int k = 0; k < 3; k++)
            checked += check_model(&A, chunks[k], specs[s]);
        sp_csr_free(&A);
    }
    cr_assert_geq(checked, 9 + spmv_case_count(), "checked %d", checked);
}

/* ---- the symmetric fast path (transpose_cuda_symperm) ------------------ */

#define SYMPERM "transpose_cuda_symperm"

Test(transpose_gpu, symperm_is_registered_with_its_need)
{
    const sp_kernel *k = sp_kernel_find(SYMPERM);
    cr_assert_not_null(k);
    cr_assert_str_eq(k->operation, "transpose");
    cr_assert_str_eq(k->backend, "cuda");
    cr_assert(k->needs_gpu && k->need);
    cr_assert_eq(k->naxes, 3);
    cr_assert_str_eq(k->axes[0].name, "blocksize");
    cr_assert_str_eq(k->axes[0].defaults, SP_TRANS_BLOCKSIZES);
    cr_assert_str_eq(k->axes[1].name, "lookup");
    cr_assert_str_eq(k->axes[1].defaults, SP_SYMPERM_LOOKUPS);
    cr_assert_str_eq(k->axes[2].name, SP_AXIS_PRECISION);
    /* the declared defaults parse as an axis (values from 1) */
    sp_axis_values ax;
    sp_err aerr;
    for (int a = 0; a < k->naxes; a++)
    {
        cr_assert_eq(sp_axis_parse(k->axes[a].name, k->axes[a].defaults, 16, &ax, &aerr), 0,
                     "%s: %s", k->axes[a].name, aerr.msg);
        sp_axis_values_free(&ax);
    }
    /* the fallback's arrays on every shape, square or not, and the flag */
    static const sp_csr shapes[] = {{.rows = 1000000, .cols = 1000000, .nnz = 10000000},
                                    {.rows = 1000000, .cols = 2000000, .nnz = 10000000},
                                    {.rows = 0, .cols = 0, .nnz = 0}};
    for (int s = 0; s < 3; s++) {
        sp_problem pb = {.A = (sp_csr *)&shapes[s]};
        sp_need need = {0};
        sp_err err;
        uint64_t cub = sp_trans_gpu_bytes_cub(&shapes[s], 8);
        cr_assert_eq(k->need(&pb, NULL, &need, &err), 0, "%s", err.msg);
        cr_assert_eq(need.device_bytes, cub + sp_gpu_array_bytes(1, 4), "shape %d", s);
        cr_assert_eq(sp_trans_gpu_bytes_symperm(&shapes[s], 8), need.device_bytes);
        sp_params p = {.n = 1, .name = {"blocksize"}, .value = {96}};
        cr_assert_eq(k->need(&pb, &p, &need, &err), -1);
        cr_assert_not_null(strstr(err.msg, SYMPERM ": blocksize = 96"), "%s", err.msg);
        sp_params g = {.n = 1, .name = {"lookup"}, .value = {6}};
        cr_assert_eq(k->need(&pb, &g, &need, &err), -1);
        cr_assert_not_null(strstr(err.msg, SYMPERM ": lookup = 6"), "%s", err.msg);
    }
    /* the `lookup` axis: 1 .. 5 taken, the default SP_SYMPERM_LOOKUP_DEFAULT */
    int v = -1;
    sp_err err;
    for (long g = SP_SYMPERM_SEARCH; g <= SP_SYMPERM_PAIR_EF; g++) {
        sp_params p = {.n = 1, .name = {"lookup"}, .value = {g}};
        cr_assert_eq(sp_symperm_lookup_axis(SYMPERM, &p, &v, &err), 0, "%s", err.msg);
        cr_assert_eq(v, g);
    }
    static const long bad[] = {-1, 0, 6, 100};
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 1, .name = {"lookup"}, .value = {bad[i]}};
        cr_assert_eq(sp_symperm_lookup_axis(SYMPERM, &p, &v, &err), -1, "%ld", bad[i]);
        cr_assert_not_null(strstr(err.msg, "lookup"), "%s", err.msg);
    }
    cr_assert_eq(sp_symperm_lookup_axis(SYMPERM, NULL, &v, &err), 0);
    cr_assert_eq(v, SP_SYMPERM_LOOKUP_DEFAULT);
}

/* The per-position steps on a hand-made 6 x 6 pattern with empty rows 1
 * and 4: rows 0: {0, 2, 5}, 1: {}, 2: {0, 3}, 3: {2, 3}, 4: {}, 5: {0}. */
Test(transpose_gpu, symperm_steps_by_hand)
{
    static const int32_t rowptr[] = {0, 3, 3, 5, 7, 7, 8};
    static const int32_t colidx[] = {0, 2, 5, 0, 3, 2, 3, 0};
    int32_t r0, len;
    sp_symperm_tile_rows(rowptr, 6, 0, 8, &r0, &len);
    cr_assert(r0 == 0 && len == 7, "whole: r0 %d len %d", r0, len);
    sp_symperm_tile_rows(rowptr, 6, 3, 5, &r0, &len);   /* row 2 only */
    cr_assert(r0 == 2 && len == 2, "row 2: r0 %d len %d", r0, len);
    sp_symperm_tile_rows(rowptr, 6, 4, 8, &r0, &len);   /* rows 2, 3 (4 empty), 5 */
    cr_assert(r0 == 2 && len == 5, "rows 2..5: r0 %d len %d", r0, len);
    sp_symperm_stage none = {NULL, 0, 0}, st = {rowptr + 2, 2, 5};
    static const int32_t row_of[] = {0, 0, 0, 2, 2, 3, 3, 5};
    for (int32_t k = 0; k < 8; k++) {
        cr_assert_eq(sp_symperm_row_of(rowptr, 6, none, k), row_of[k], "row of %d", k);
        if (k >= 4)
            cr_assert_eq(sp_symperm_row_of(rowptr, 6, st, k), row_of[k], "staged row of %d", k);
    }
    /* row i, column j -> position or -1: present, before the first,
     * between, after the last, in an empty row; through the stage (rows
     * 2..5, row 1 just before them) or rowptr */
    static const int32_t q[][3] = {{0, 0, 0}, {0, 5, 2}, {0, 1, -1}, {0, 3, -1}, {2, 0, 3},
                                   {2, 3, 4}, {2, 1, -1}, {2, 4, -1}, {3, 2, 5}, {3, 0, -1},
                                   {3, 5, -1}, {1, 0, -1}, {4, 2, -1}, {5, 0, 7}, {5, 1, -1}};
    for (size_t t = 0; t < sizeof q / sizeof *q; t++) {
        cr_assert_eq(sp_symperm_find(rowptr, colidx, none, q[t][0], q[t][1]), q[t][2],
                     "(%d, %d)", q[t][0], q[t][1]);
        cr_assert_eq(sp_symperm_find(rowptr, colidx, st, q[t][0], q[t][1]), q[t][2],
                     "staged (%d, %d)", q[t][0], q[t][1]);
    }
    /* row bounds through the stage (rows 2..5) and rowptr */
    for (int32_t i = 0; i < 6; i++) {
        int32_t a = -1, b = -1;
        sp_symperm_bounds(rowptr, 6, i >= 2 ? st : none, i, &a, &b);
        cr_assert(a == rowptr[i] && b == rowptr[i + 1], "bounds of row %d: %d %d", i, a, b);
    }
    /* the guess of every slot (the diagonal itself; row 0's (0, 2) and
     * row 2's (2, 0) count from the far side of a short row and miss),
     * and the mirror with and without it: a hit wherever the guess holds
     * column r */
    static const int32_t row[] = {0, 0, 0, 2, 2, 3, 3, 5};
    static const int64_t guess[] = {0, 4, 7, 2, 5, 4, 6, 2};
    static const int32_t mirror[] = {0, 3, 7, 1, 5, 4, 6, 2};
    for (int32_t k = 0; k < 8; k++) {
        int32_t r = row[k], c = colidx[k];
        int64_t g = sp_symperm_guess(k, r, rowptr[r], rowptr[r + 1], c, rowptr[c], rowptr[c + 1]);
        cr_assert_eq(g, guess[k], "guess of slot %d: %lld", k, (long long)g);
        for (int gs = 0; gs <= 1; gs++)
            for (int staged = 0; staged <= 1; staged++) {
                if (staged && k < 3)
                    continue;   /* the stage holds rows 2..5 */
                int hit = -1;
                int32_t p = sp_symperm_mirror(rowptr, colidx, 6, staged ? st : none, k, c, gs,
                                              &hit);
                cr_assert_eq(p, mirror[k], "mirror of slot %d (guess %d): %d", k, gs, p);
                cr_assert_eq(hit, gs && k != 1 && k != 3, "slot %d, guess %d: hit %d", k, gs,
                             hit);
            }
    }
    /* counts past either end of row c: no guess */
    cr_assert_eq(sp_symperm_guess(10, 0, 0, 20, 5, 100, 102), -1, "upper, row c too short");
    cr_assert_eq(sp_symperm_guess(10, 7, 0, 20, 3, 50, 55), -1, "lower, row c too short");
    cr_assert_eq(sp_symperm_guess(10, 0, 0, 20, 5, 100, 110), 109, "upper, last of row c");
    cr_assert_eq(sp_symperm_guess(10, 7, 0, 20, 3, 44, 55), 44, "lower, first of row c");
}

/* Tiles staged and not, over every model run (the two paths of the row
 * search are both covered). */
static long symperm_staged, symperm_unstaged;

/* A serial model of symperm_gather (transpose_cuda_symperm.cu), step for
 * step with the kernel's own helpers (transpose_symperm.h): the grid, the
 * flag read when a block starts, the rowptr copy by global thread index,
 * the tile's rows staged when they fit tile + 1, each warp's 32-position
 * steps ending at the first step where a lane misses its mirror. Blocks
 * run in index order (one order the device may take); each slot's mirror
 * by sp_symperm_mirror at the run's `guess` (0: search only; the device's
 * 1 and 2 differ only in their stores), checked against the plain search
 * and counted in *st (when not NULL). Returns the route
 * of transpose_cuda_symperm: SP_SYMPERM_MIRROR with C written (the count
 * of writes of each slot in wrote[]), SP_SYMPERM_FALLBACK when the flag
 * was raised, SP_SYMPERM_RECTANGULAR without a pass. */
typedef struct symperm_stats {
    long hits, misses;   /* slots whose guess was taken, slots searched */
} symperm_stats;

static int model_symperm(const sp_csr *A, int bs, int guess, sp_csc *C, int *wrote,
                         symperm_stats *st)
{
    if (A->rows != A->cols)
        return SP_SYMPERM_RECTANGULAR;
    const int64_t tile = (int64_t)bs * SP_SYMPERM_ITEMS, nnz = A->nnz;
    int64_t ga = nnz ? (nnz + tile - 1) / tile : 1, gb = (A->rows + tile) / tile;
    const int64_t grid = ga > gb ? ga : gb;
    int32_t *stage = malloc((size_t)(tile + 1) * 4);
    cr_assert_not_null(stage);
    int flag = 0;
    for (int64_t b = 0; b < grid; b++) {
        if (flag)
            continue;
        for (int t = 0; t < bs; t++)
            for (int64_t r = b * bs + t; r <= A->rows; r += grid * bs)
                C->colptr[r] = A->rowptr[r];
        int64_t k0 = b * tile, k1 = k0 + tile < nnz ? k0 + tile : nnz;
        if (k0 >= k1)
            continue;
        int32_t r0, len;
        sp_symperm_tile_rows(A->rowptr, A->rows, k0, k1, &r0, &len);
        sp_symperm_stage s = {NULL, r0, len};
        if (len <= tile + 1) {
            memcpy(stage, A->rowptr + r0, (size_t)len * 4);
            s.stage = stage;
        }
        s.stage ? symperm_staged++ : symperm_unstaged++;
        for (int w = 0; w < bs / 32; w++)
            for (int step = 0; step < SP_SYMPERM_ITEMS; step++) {
                int64_t first = k0 + (int64_t)w * 32 * SP_SYMPERM_ITEMS + step * 32;
                if (first >= k1)
                    break;
                int missing = 0;
                for (int64_t q = first; q < first + 32 && q < k1; q++) {
                    int32_t c = A->colidx[q], r = sp_symperm_row_of(A->rowptr, A->rows, s, q);
                    cr_assert(A->rowptr[r] <= q && q < A->rowptr[r + 1], "row of %lld",
                              (long long)q);
                    int hit = 0;
                    int32_t p = sp_symperm_mirror(A->rowptr, A->colidx, A->rows, s, q, c, guess,
                                                  &hit);
                    cr_assert_eq(p, sp_symperm_find(A->rowptr, A->colidx, s, c, r),
                                 "slot %lld: the mirror differs from the search's",
                                 (long long)q);
                    cr_assert(guess || !hit);
                    if (st)
                        hit ? st->hits++ : st->misses++;
                    if (p < 0) {
                        missing = 1;
                        continue;
                    }
                    cr_assert(A->colidx[p] == r && A->rowptr[c] <= p && p < A->rowptr[c + 1]);
                    C->rowidx[q] = c;
                    C->val[q] = A->val[p];
                    wrote[q]++;
                }
                if (missing) {
                    flag = 1;
                    break;
                }
            }
    }
    free(stage);
    return flag ? SP_SYMPERM_FALLBACK : SP_SYMPERM_MIRROR;
}

/* The model on A at every block size: the route A's kind calls for and,
 * for a symmetric A, the serial transposition entry for entry with every
 * slot written once, with and without the guess; the first guessing run's
 * hits and misses added to *st (when not NULL). Returns the route. */
static int check_symperm_model(const sp_csr *A, const char *what, symperm_stats *st)
{
    enum symm_kind kind = symm_kind_of(A);
    static const int want[] = {SP_SYMPERM_MIRROR, SP_SYMPERM_FALLBACK, SP_SYMPERM_RECTANGULAR};
    size_t bytes = sp_csc_bytes(A);
    void *ref = malloc(bytes + 8), *got = malloc(bytes + 8);
    int *wrote = malloc(((size_t)A->nnz + 1) * sizeof *wrote);
    cr_assert(ref && got && wrote);
    sp_csc R, G;
    sp_csc_view(ref, A, &R);
    sp_csc_view(got, A, &G);
    sp_transpose_count(A, &R);
    int route = 0;
    for (int bs = 64; bs <= 1024; bs *= 2)
        for (int guess = 0; guess <= 1; guess++) {
            memset(got, 0xff, bytes);
            memset(wrote, 0, ((size_t)A->nnz + 1) * sizeof *wrote);
            route = model_symperm(A, bs, guess, &G, wrote, guess ? st : NULL);
            if (guess)
                st = NULL;   /* the guesses of one run counted */
            cr_assert_eq(route, want[kind], "%s at %d, guess %d: route %d, kind %d", what, bs,
                         guess, route, kind);
            if (route != SP_SYMPERM_MIRROR)
                continue;
            for (int32_t q = 0; q < A->nnz; q++)
                cr_assert_eq(wrote[q], 1, "%s at %d, guess %d: slot %d written %d times", what,
                             bs, guess, q, wrote[q]);
            cr_assert_eq(memcmp(got, ref, bytes), 0, "%s at %d, guess %d: CSC differs", what, bs,
                         guess);
        }
    free(ref), free(got), free(wrote);
    return route;
}

/* The cases of the GPU test at both its sizes (quick and full). */
Test(transpose_gpu, symperm_model_equals_serial_transposition, .timeout = 120)
{
    int routes[4] = {0};
    for (int small = 0; small <= 1; small++)
        for (int i = 0; i < symm_case_count(); i++) {
            symm_case c;
            symm_case_build(i, small, &c);
            int r = check_symperm_model(&c.A, c.name, NULL);
            cr_assert_eq(r, c.kind + 1, "%s", c.name);
            routes[r]++;
            symm_case_free(&c);
        }
    cr_assert(routes[SP_SYMPERM_MIRROR] == 28 && routes[SP_SYMPERM_FALLBACK] == 14 &&
              routes[SP_SYMPERM_RECTANGULAR] == 6, "routes %d %d %d", routes[1], routes[2],
              routes[3]);
    cr_assert_gt(symperm_staged, 0);
    cr_assert_gt(symperm_unstaged, 0, "no tile took the unstaged row search");
}

/* The GPU test's larger matrices, whole and with one mirror dropped near
 * the middle (the fallback's case), at both sizes. */
Test(transpose_gpu, symperm_model_on_larger_matrices, .timeout = 120)
{
    for (int small = 0; small <= 1; small++)
        for (int i = 0; i < 4; i++) {
            const char *spec = small ? symm_larger_small[i] : symm_larger[i];
            sp_csr A;
            sp_err err;
            cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
            symm_distinct_values(&A);
            int want = i < 3 ? SP_SYMPERM_MIRROR : SP_SYMPERM_FALLBACK;
            cr_assert_eq(check_symperm_model(&A, spec, NULL), want, "%s", spec);
            if (i < 3) {
                symm_drop_middle(&A);
                cr_assert_eq(check_symperm_model(&A, spec, NULL), SP_SYMPERM_FALLBACK,
                             "%s less one", spec);
            }
            sp_csr_free(&A);
        }
}

/* Every awkward matrix of tests/spmv_cases.c: the route follows the
 * independent symmetry test, the CSC equals the serial one when taken
 * (their symmetric values make no difference: the pattern decides). */
Test(transpose_gpu, symperm_model_on_awkward_matrices, .timeout = 120)
{
    int mirror = 0;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        mirror += check_symperm_model(&c.A, c.name, NULL) == SP_SYMPERM_MIRROR;
        spmv_case_free(&c);
    }
    cr_assert_geq(mirror, 1, "the square empty ones at least");
}

/* The guess on the bench set's shapes, smaller: taken for nearly every
 * slot of a stencil or band (the binary search only on boundary rows
 * where the count crosses the grid's edge), and missed often on an
 * irregular symmetric pattern, whose mirrors the search still finds
 * (symperm_model_equals_serial_transposition). The fractions are the
 * model's own counts, with a margin. */
Test(transpose_gpu, symperm_guess_hits_stencils_and_misses_irregular, .timeout = 120)
{
    static const struct {
        const char *spec;
        double lo, hi;   /* the fraction of slots the guess took */
    } m[] = {{"laplace2d?n=301", 0.99, 1.0},
             {"laplace3d?n=23&points=27", 0.82, 1.0},
             {"laplace3d?n=40&points=27", 0.88, 1.0},
             {"laplace3d?n=23&points=7", 0.90, 1.0},
             {"banded?n=50001&bw=8", 0.99, 1.0}};
    for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(m[i].spec, &A, &err), 0, "%s: %s", m[i].spec, err.msg);
        symperm_stats st = {0, 0};
        cr_assert_eq(check_symperm_model(&A, m[i].spec, &st), SP_SYMPERM_MIRROR);
        cr_assert_eq(st.hits + st.misses, A.nnz, "%s: every slot counted", m[i].spec);
        double f = (double)st.hits / (double)A.nnz;
        cr_log_info("%s: the guess took %ld of %d slots (%.4f)", m[i].spec, st.hits, A.nnz, f);
        cr_assert(f >= m[i].lo && f <= m[i].hi, "%s: the guess took %.4f of the slots",
                  m[i].spec, f);
        sp_csr_free(&A);
    }
    for (int small = 0; small <= 1; small++)
        for (int i = 0; i < symm_case_count(); i++) {
            symm_case c;
            symm_case_build(i, small, &c);
            symperm_stats st = {0, 0};
            int route = check_symperm_model(&c.A, c.name, &st);
            if (strstr(c.name, "random B + B^T") || strstr(c.name, "arrow")) {
                cr_assert_eq(route, SP_SYMPERM_MIRROR, "%s", c.name);
                cr_assert_gt(st.misses, c.A.nnz / 4, "%s: %ld misses of %d", c.name, st.misses,
                             c.A.nnz);
                cr_log_info("%s: the guess took %ld of %d slots", c.name, st.hits, c.A.nnz);
            }
            symm_case_free(&c);
        }
}
