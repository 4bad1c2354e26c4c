/* test_gpu_prim.c — the GPU primitives called directly, against their
 * serial versions, at lengths from 1 to 2 * 10^7 (powers of two, one
 * either side, and odd ones) and several block sizes; and each primitive
 * operation's kernel through the runner's life cycle on a few matrices,
 * with the phases the harness records and its release from every partial
 * state (tests/util_phases.h).
 * With SPSWEEP_GPU_TEST_QUICK set (the sanitizer passes) lengths stop at
 * 2^17 + 1 and the operations run at one block size on fewer matrices. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../kernels/prim/prim.h"
#include "../spmv_cases.h"
#include "../util_phases.h"

static const int64_t lengths[] = {1,    2,     31,     32,     33,      1000,     1023,
                                  1024, 1025,  8191,   8192,   8193,    65537,    131073,
                                  1048575, 1048577, 3333333, 20000000};
static const int block_sizes[] = {32, 128, 1024};

static int64_t max_length(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") ? 131073 : 20000000;
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    return p;
}

Test(gpu_prim, scan_at_many_lengths, .timeout = 600)
{
    uint64_t s = 1;
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths && lengths[l] <= max_length(); l++) {
        int64_t n = lengths[l];
        int32_t *in = xmalloc((size_t)n * 4), *ref = xmalloc((size_t)(n + 1) * 4),
                *out = xmalloc((size_t)(n + 1) * 4);
        for (int64_t i = 0; i < n; i++)
            in[i] = (int32_t)(rng(&s) % 8);
        sp_scan_serial(in, ref, n);
        for (size_t b = 0; b < 3; b++) {
            sp_err err;
            memset(out, 0xff, (size_t)(n + 1) * 4);
            cr_assert_eq(sp_gpu_scan_host(in, out, n, block_sizes[b], &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(out, ref, (size_t)(n + 1) * 4), 0, "scan n = %lld bs = %d",
                         (long long)n, block_sizes[b]);
        }
        free(in), free(ref), free(out);
    }
}

Test(gpu_prim, histogram_at_many_lengths_and_bins, .timeout = 600)
{
    static const int32_t bins[] = {1, 1000, 12288, 12289, 1000003};
    uint64_t s = 2;
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths && lengths[l] <= max_length(); l++)
        for (size_t q = 0; q < sizeof bins / sizeof *bins; q++) {
            int64_t n = lengths[l];
            int32_t nb = bins[q];
            int32_t *idx = xmalloc((size_t)n * 4), *ref = xmalloc((size_t)nb * 4),
                    *out = xmalloc((size_t)nb * 4);
            for (int64_t i = 0; i < n; i++)    /* skewed: half the indices in bin 0 */
                idx[i] = rng(&s) % 2 ? 0 : (int32_t)(rng(&s) % (uint64_t)nb);
            sp_histogram_serial(idx, n, ref, nb);
            sp_err err;
            int bs = block_sizes[(l + q) % 3];
            cr_assert_eq(sp_gpu_histogram_host(idx, n, out, nb, bs, &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(out, ref, (size_t)nb * 4), 0, "histogram n = %lld bins = %d",
                         (long long)n, nb);
            free(idx), free(ref), free(out);
        }
}

Test(gpu_prim, idx2ptr_and_ptr2idx_at_many_lengths, .timeout = 600)
{
    uint64_t s = 3;
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths && lengths[l] <= max_length(); l++) {
        int64_t n = lengths[l];
        /* segments: mostly short, some empty, every 1000th long */
        int32_t cap = (int32_t)(2 * n + 1000), nseg = 0;
        int32_t *ptr = xmalloc(((size_t)cap + 1) * 4);
        ptr[0] = 0;
        for (int64_t k = 0; k < n;) {
            uint64_t r = rng(&s) % 1000;
            int64_t len = r == 0 ? 5000 : r < 300 ? 0 : (int64_t)(r % 9);
            if (k + len > n)
                len = n - k;
            k += len;
            if (nseg + 1 >= cap)
                cr_assert_fail("too many segments");
            ptr[++nseg] = (int32_t)k;
        }
        ptr[++nseg] = (int32_t)n;   /* and an empty last one */
        int32_t *idx = xmalloc((size_t)n * 4), *out = xmalloc((size_t)n * 4),
                *back = xmalloc(((size_t)nseg + 1) * 4);
        sp_ptr2idx_serial(ptr, nseg, idx);
        for (size_t b = 0; b < 3; b++) {
            sp_err err;
            cr_assert_eq(sp_gpu_ptr2idx_host(ptr, nseg, out, block_sizes[b], &err), 0, "%s",
                         err.msg);
            cr_assert_eq(memcmp(out, idx, (size_t)n * 4), 0, "ptr2idx n = %lld bs = %d",
                         (long long)n, block_sizes[b]);
            cr_assert_eq(sp_gpu_idx2ptr_host(idx, n, back, nseg, block_sizes[b], &err), 0, "%s",
                         err.msg);
            cr_assert_eq(memcmp(back, ptr, ((size_t)nseg + 1) * 4), 0, "idx2ptr n = %lld",
                         (long long)n);
        }
        free(ptr), free(idx), free(out), free(back);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

Test(gpu_prim, segsort_and_merge_at_many_lengths, .timeout = 600)
{
    static const int sort_bs[] = {32, 64, 256, 1024};
    uint64_t s = 4;
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths && lengths[l] <= max_length(); l++) {
        int64_t n = lengths[l];
        uint64_t *in = xmalloc((size_t)n * 8), *seg = xmalloc((size_t)n * 8),
                 *full = xmalloc((size_t)n * 8), *out = xmalloc((size_t)n * 8);
        for (int64_t i = 0; i < n; i++)     /* few distinct high words: ties broken by i */
            in[i] = (rng(&s) % 1000) << 32 | (uint64_t)i;
        memcpy(seg, in, (size_t)n * 8);
        sp_segsort_serial(seg, n, SP_PRIM_SEG);
        memcpy(full, in, (size_t)n * 8);
        qsort(full, (size_t)n, 8, cmp_u64);
        for (size_t b = 0; b < 4; b++) {
            sp_err err;
            int bs = sort_bs[b];
            cr_assert_eq(sp_gpu_segsort_host(in, out, n, bs, &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(out, seg, (size_t)n * 8), 0, "segsort n = %lld bs = %d",
                         (long long)n, bs);
            cr_assert_eq(sp_gpu_merge_host(seg, out, n, SP_PRIM_SEG, bs, &err), 0, "%s",
                         err.msg);
            cr_assert_eq(memcmp(out, full, (size_t)n * 8), 0, "merge n = %lld bs = %d",
                         (long long)n, bs);
        }
        if (n <= 65537) {   /* a merge sort from runs of one key */
            sp_err err;
            cr_assert_eq(sp_gpu_merge_host(in, out, n, 1, 128, &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(out, full, (size_t)n * 8), 0, "merge from 1, n = %lld",
                         (long long)n);
        }
        free(in), free(seg), free(full), free(out);
    }
}

/* Each primitive operation's kernel through the life cycle (exact check
 * against the operation's serial reference) on matrices of several shapes. */
Test(gpu_prim, operations_on_matrices, .timeout = 600)
{
    static const char *const ops[] = {"scan", "histogram", "idx2ptr",
                                      "ptr2idx", "segsort", "merge"};
    static const char *specs[] = {"rmat?scale=14&ef=8", "laplace2d?n=203",
                                  "uniform?rows=3001&cols=200003&per_row=7&seed=3"};
    static const long bs[] = {32, 256, 1024}, one[] = {256};
    int quick = getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
    spmv_axis_override o = {"blocksize", quick ? one : bs, quick ? 1 : 3};
    /* quick: every third awkward case, at one block size */
    for (size_t m = 0; m < 3 + (size_t)spmv_case_count(); m += quick && m >= 3 ? 3 : 1) {
        sp_csr A;
        spmv_case c;
        const char *what;
        if (m < 3) {
            sp_err err;
            cr_assert_eq(sp_generate(specs[m], &A, &err), 0, "%s", err.msg);
            what = specs[m];
        } else {
            spmv_case_build((int)m - 3, &c);
            A = c.A;
            what = c.name;
        }
        for (size_t i = 0; i < 6; i++) {
            char name[32];
            snprintf(name, sizeof name, "%s_cuda", ops[i]);
            const sp_kernel *k = sp_kernel_find(name);
            cr_assert(k && k->prepare, "%s", name);
            cr_assert_eq(spmv_check_kernel_with(k, &o, 1, &A, what), 0);
        }
        if (m < 3)
            sp_csr_free(&A);
        else
            spmv_case_free(&c);
    }
}

/* The harness's phases for each primitive operation's kernel (h2d_s > 0,
 * d2h_s > 0, free_s >= 0), and its release from each partial state: a
 * lone prepare, a state never launched, an upload failing before or after
 * its work. */
Test(gpu_prim, phases_and_partial_states, .timeout = 300)
{
    static const char *const ops[] = {"scan", "histogram", "idx2ptr",
                                      "ptr2idx", "segsort", "merge"};
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("laplace2d?n=203", &A, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s_cuda", ops[i]);
        const sp_kernel *k = sp_kernel_find(name);
        cr_assert(k && k->prepare, "%s", name);
        cr_assert_null(k->analyse, "%s: nothing to set up beyond the upload", name);
        phases_check(k, NULL, &A);
        phases_check_partial(k, NULL, &A);
    }
    sp_csr_free(&A);
}
