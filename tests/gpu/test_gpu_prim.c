/* test_gpu_prim.c — the GPU primitives called directly, against their
 * serial versions, at lengths from 1 to 2 * 10^7 (powers of two, one
 * either side, and odd ones) and several block sizes; every primitive at
 * block sizes all over 1..1024 (odd ones: 1, 3, 33, 1000, ...), segsort at
 * many segment lengths, merge at many splitter distances and first runs,
 * hist_idx2ptr's two vertical steps with every segment's offsets; and each
 * primitive operation's kernel through the runner's life cycle on a few
 * matrices and key arrays, with the phases the harness records and its
 * release from every partial state (tests/util_phases.h).
 * With SPSWEEP_GPU_TEST_QUICK set (the sanitizer passes) lengths stop at
 * 2^17 + 1, the block-size sweeps take 5 block sizes and short arrays, and
 * the operations run at one block size on fewer matrices. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../kernels/prim/prim.h"
#include "../../runner/runner.h"
#include "../spmv_cases.h"
#include "../testutil.h"
#include "../util_phases.h"
#include "../util_sort.h"

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

/* Every primitive kernel. */
static const char *const KERNELS[] = {"scan_cuda",    "histogram_cuda", "idx2ptr_cuda",
                                      "ptr2idx_cuda", "segsort_cuda",   "merge_cuda",
                                      "hist_idx2ptr_cuda_loop", "hist_idx2ptr_cuda_transpose",
                                      "hist_idx2ptr_cuda_owners"};
#define NKERNELS (sizeof KERNELS / sizeof *KERNELS)

/* Each primitive operation's kernel through the life cycle (exact check
 * against the operation's serial reference) on matrices of several shapes. */
Test(gpu_prim, operations_on_matrices, .timeout = 600)
{
    static const char *specs[] = {"rmat?scale=14&ef=8", "laplace2d?n=203",
                                  "uniform?rows=3001&cols=200003&per_row=7&seed=3"};
    /* segments long enough that hist_idx2ptr's partial counts stay small
     * on 200003 columns; the short ones in the direct tests above */
    static const long bs[] = {1, 33, 256, 1024}, one[] = {33}, seg[] = {1000, 2047},
                      dist[] = {7, 1024};
    int quick = getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
    spmv_axis_override o[] = {{"blocksize", quick ? one : bs, quick ? 1 : 4},
                              {"segment", seg, quick ? 1 : 2},
                              {"sp_dist", dist, quick ? 1 : 2}};
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
        for (size_t i = 0; i < NKERNELS; i++) {
            const sp_kernel *k = sp_kernel_find(KERNELS[i]);
            cr_assert(k && k->prepare, "%s", KERNELS[i]);
            cr_assert_eq(spmv_check_kernel_with(k, o, 3, &A, what), 0);
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
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("laplace2d?n=203", &A, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < NKERNELS; i++) {
        const char *name = KERNELS[i];
        const sp_kernel *k = sp_kernel_find(name);
        cr_assert(k && k->prepare, "%s", name);
        cr_assert_null(k->analyse, "%s: nothing to set up beyond the upload", name);
        phases_check(k, NULL, &A);
        phases_check_partial(k, NULL, &A);
    }
    sp_csr_free(&A);
}

/* ---- any block size, the segment, the splitter distance ------------------ */

/* Block sizes all over 1..1024: the odd ones beside the powers of two and
 * either side of them (quick: 1, 3, 33, 1000, 1024). */
static const int ANY_BS[] = {1,   2,   3,   5,   7,   16,  31,  32,  33,  63,  64,
                             65,  96,  100, 127, 128, 129, 192, 255, 256, 257, 384,
                             500, 511, 512, 513, 640, 767, 768, 1000, 1023, 1024};
static const int QUICK_BS[] = {1, 3, 33, 1000, 1024};

static int quick(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
}

static int nbs(void)
{
    return quick() ? 5 : (int)(sizeof ANY_BS / sizeof *ANY_BS);
}

static int bs_at(int i)
{
    return quick() ? QUICK_BS[i] : ANY_BS[i];
}

/* Lengths for the block-size sweeps: around a block and a tile, and one
 * of several tiles at every block size (quick: up to 5001). */
static const int64_t SWEEP_N[] = {1, 2, 31, 33, 1000, 5001, 65537, 300001};

static int nsweep(void)
{
    return quick() ? 6 : (int)(sizeof SWEEP_N / sizeof *SWEEP_N);
}

Test(gpu_prim, scan_histogram_idx2ptr_ptr2idx_at_any_block_size, .timeout = 300)
{
    uint64_t s = 11;
    for (int l = 0; l < nsweep(); l++) {
        int64_t n = SWEEP_N[l];
        int32_t bins = (int32_t)(n / 7 + 1);
        int32_t *in = xmalloc((size_t)n * 4), *ref = xmalloc((size_t)(n + 1) * 4),
                *out = xmalloc((size_t)(n + 1) * 4), *idx = xmalloc((size_t)n * 4),
                *cnt = xmalloc((size_t)bins * 4), *ptr = xmalloc(((size_t)bins + 1) * 4),
                *sorted = xmalloc((size_t)n * 4), *got = xmalloc(((size_t)bins + 1) * 4);
        for (int64_t i = 0; i < n; i++) {
            in[i] = (int32_t)(rng(&s) % 8);
            idx[i] = (int32_t)(rng(&s) % (uint64_t)bins);
        }
        sp_scan_serial(in, ref, n);
        sp_histogram_serial(idx, n, cnt, bins);
        memcpy(ptr, cnt, (size_t)bins * 4);
        sp_scan_serial(ptr, ptr, bins);
        sp_ptr2idx_serial(ptr, bins, sorted);
        for (int b = 0; b < nbs(); b++) {
            int bs = bs_at(b);
            sp_err err;
            memset(out, 0xff, (size_t)(n + 1) * 4);
            cr_assert_eq(sp_gpu_scan_host(in, out, n, bs, &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(out, ref, (size_t)(n + 1) * 4), 0, "scan n = %lld bs = %d",
                         (long long)n, bs);
            cr_assert_eq(sp_gpu_histogram_host(idx, n, got, bins, bs, &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(got, cnt, (size_t)bins * 4), 0, "histogram n = %lld bs = %d",
                         (long long)n, bs);
            cr_assert_eq(sp_gpu_idx2ptr_host(sorted, n, got, bins, bs, &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(got, ptr, ((size_t)bins + 1) * 4), 0,
                         "idx2ptr n = %lld bs = %d", (long long)n, bs);
            cr_assert_eq(sp_gpu_ptr2idx_host(ptr, bins, out, bs, &err), 0, "%s", err.msg);
            cr_assert_eq(memcmp(out, sorted, (size_t)n * 4), 0, "ptr2idx n = %lld bs = %d",
                         (long long)n, bs);
        }
        free(in), free(ref), free(out), free(idx), free(cnt), free(ptr), free(sorted),
            free(got);
    }
}

/* segsort at every block size against segment lengths 1..2048 that divide
 * nothing, and the transposition's fixed segment at odd block sizes. */
Test(gpu_prim, segsort_at_any_block_size_and_segment, .timeout = 300)
{
    static const int64_t segs[] = {1,    2,    3,    31,   32,   33,  100,
                                   128,  1000, 1024, 1500, 2047, 2048};
    static const int64_t lens[] = {1, 33, 1000, 5001, 70001};
    int nseg = quick() ? 6 : (int)(sizeof segs / sizeof *segs);
    uint64_t s = 12;
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
        int64_t n = lens[l];
        if (quick() && n > 5001)
            continue;
        uint64_t *in = xmalloc((size_t)n * 8), *want = xmalloc((size_t)n * 8),
                 *out = xmalloc((size_t)n * 8);
        for (int64_t i = 0; i < n; i++)     /* few distinct high words: ties broken by i */
            in[i] = (rng(&s) % 100) << 32 | (uint64_t)i;
        for (int g = 0; g < nseg; g++) {
            int64_t seg = quick() ? segs[g * 2] : segs[g];
            memcpy(want, in, (size_t)n * 8);
            sp_segsort_serial(want, n, seg);
            for (int b = 0; b < nbs(); b++) {
                int bs = bs_at(b);
                sp_err err;
                cr_assert_eq(sp_gpu_segsort_seg_host(in, out, n, seg, bs, &err), 0, "%s",
                             err.msg);
                cr_assert_eq(memcmp(out, want, (size_t)n * 8), 0,
                             "segsort n = %lld segment = %lld bs = %d", (long long)n,
                             (long long)seg, bs);
            }
        }
        free(in), free(want), free(out);
    }
}

/* merge at every block size and splitter distance 1..4096, from first runs
 * of 1 to 1024 keys (one run a distance, turn about), on lengths that are
 * no multiple of anything. */
Test(gpu_prim, merge_at_any_block_size_splitter_distance_and_run, .timeout = 300)
{
    static const int64_t dists[] = {1, 2, 3, 7, 32, 100, 128, 1000, 1024, 4096};
    static const int64_t runs[] = {1, 3, 128, 1000, 1024};
    static const int64_t lens[] = {2, 33, 5001, 70001};
    int nl = quick() ? 3 : 4, nd = (int)(sizeof dists / sizeof *dists);
    uint64_t s = 13;
    for (int l = 0; l < nl; l++) {
        int64_t n = lens[l];
        uint64_t *in = xmalloc((size_t)n * 8), *runs_in = xmalloc((size_t)n * 8),
                 *full = xmalloc((size_t)n * 8), *out = xmalloc((size_t)n * 8);
        for (int64_t i = 0; i < n; i++)
            in[i] = (rng(&s) % 1000) << 32 | (uint64_t)i;
        memcpy(full, in, (size_t)n * 8);
        qsort(full, (size_t)n, 8, cmp_u64);
        for (int b = 0; b < nbs(); b++)
            for (int d = 0; d < nd; d++) {
                if (quick() && d % 3)
                    continue;
                int bs = bs_at(b);
                int64_t dist = dists[d], run = runs[(b + d) % 5];
                memcpy(runs_in, in, (size_t)n * 8);
                sp_segsort_serial(runs_in, n, run);
                sp_err err;
                cr_assert_eq(sp_gpu_merge_dist_host(runs_in, out, n, run, dist, bs, &err), 0,
                             "%s", err.msg);
                cr_assert_eq(memcmp(out, full, (size_t)n * 8), 0,
                             "merge n = %lld run = %lld sp_dist = %lld bs = %d", (long long)n,
                             (long long)run, (long long)dist, bs);
            }
        free(in), free(runs_in), free(full), free(out);
    }
}

/* hist_idx2ptr, both vertical steps and the owners' count, at every block
 * size: the pointers and every segment's offset per bin against the serial
 * version, with bins on both sides of the shared-memory limit (12288) and
 * of one owners' pass (block size x 8), and segments 1..4096 (the owners'
 * chunk is 4096). */
Test(gpu_prim, hist_idx2ptr_both_vertical_steps_at_any_block_size, .timeout = 300)
{
    static const int64_t segs[] = {1, 3, 32, 33, 1000, 4096};
    static const int32_t bins_of[] = {1, 7, 1000, 12288, 12289, 100003};
    static const int64_t lens[] = {0, 1, 33, 1000, 70001};
    uint64_t s = 14;
    for (int b = 0; b < nbs(); b++)
        for (int v = 0; v < 3; v++)
            for (int g = 0; g < 6; g++) {
                int bs = bs_at(b);
                int64_t seg = segs[g], n = lens[(b + g + v) % 5];
                int32_t bins = bins_of[(b + 2 * g + v) % 6];
                if (quick() && n > 1000)
                    n = 1000;
                /* at most 2^22 partial counts: fewer indices when there
                 * would be more */
                while (n > 1 && sp_prim_nparts(n, seg) * bins > (1 << 22))
                    n /= 2;
                int64_t parts = sp_prim_nparts(n, seg);
                int32_t *idx = xmalloc((size_t)n * 4), *ptr = xmalloc(((size_t)bins + 1) * 4),
                        *got = xmalloc(((size_t)bins + 1) * 4),
                        *off = xmalloc((size_t)(parts * bins) * 4),
                        *got_off = xmalloc((size_t)(parts * bins) * 4);
                for (int64_t i = 0; i < n; i++)  /* skewed: half in bin 0 */
                    idx[i] = rng(&s) % 2 ? 0 : (int32_t)(rng(&s) % (uint64_t)bins);
                cr_assert_eq(sp_hist_idx2ptr_serial(idx, n, bins, seg, ptr, off), 0);
                sp_err err;
                memset(got_off, 0xff, (size_t)(parts * bins) * 4);
                cr_assert_eq(sp_gpu_hist_idx2ptr_host(idx, n, bins, seg, v, bs, got, got_off,
                                                      &err),
                             0, "%s", err.msg);
                const char *how = v == SP_VERTICAL_LOOP        ? "loop"
                                  : v == SP_VERTICAL_TRANSPOSE ? "transpose"
                                                               : "owners";
                cr_assert_eq(memcmp(got, ptr, ((size_t)bins + 1) * 4), 0,
                             "%s: pointers n = %lld bins = %d segment = %lld bs = %d", how,
                             (long long)n, bins, (long long)seg, bs);
                cr_assert_eq(memcmp(got_off, off, (size_t)(parts * bins) * 4), 0,
                             "%s: offsets n = %lld bins = %d segment = %lld bs = %d", how,
                             (long long)n, bins, (long long)seg, bs);
                free(idx), free(ptr), free(got), free(off), free(got_off);
            }
}

/* Each primitive kernel through the life cycle on key arrays (the
 * standalone arrays of study 000): every distribution's shape (sorted,
 * equal, skewed), at odd axis values, checked by the operation's own
 * reference, segsort at a segment other than the reference's. */
Test(gpu_prim, operations_on_key_arrays, .timeout = 300)
{
    static const char *const srcs[] = {"keys:uniform?n=100003&seed=3&bins=1000",
                                       "keys:sorted?n=70001&bins=333",
                                       "keys:equal?n=5001&bins=12289",
                                       "keys:zipf?n=33&seed=2", "keys:few?n=1&bins=5",
                                       "keys:uniform?n=0"};
    static const long bs[] = {1, 33, 1000, 1024}, seg[] = {33, 2048}, dist[] = {5, 1024};
    spmv_axis_override o[] = {{"blocksize", bs, quick() ? 2 : 4},
                              {"segment", seg, quick() ? 1 : 2},
                              {"sp_dist", dist, quick() ? 1 : 2}};
    for (size_t w = quick() ? 2 : 0; w < sizeof srcs / sizeof *srcs; w++) {
        sp_keys K;      /* quick: from 5001 keys down (the sanitizer passes) */
        us_keys(srcs[w], &K);
        for (size_t i = 0; i < NKERNELS; i++) {
            const sp_kernel *k = sp_kernel_find(KERNELS[i]);
            cr_assert(k && k->prepare, "%s", KERNELS[i]);
            const sp_operation *op = sp_operation_find(k->operation);
            sp_problem pb;
            sp_err err;
            cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0, "%s", err.msg);
            size_t bytes = op->output_bytes(&pb);
            void *ref = xmalloc(bytes), *out = xmalloc(bytes);
            cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
            sp_params *p;
            int np = spmv_kernel_params_with(k, o, 3, &p);
            for (int c = 0; c < np; c++) {
                tu_run r;
                double t;
                memset(out, 0xa5, bytes);
                int rc = tu_run_prepare(&r, k, &pb, &p[c], &err) ||
                         tu_run_launch(&r, &t, &err) || tu_run_launch(&r, &t, &err) ||
                         tu_run_result(&r, out, &err);
                tu_run_end(&r);
                cr_assert_eq(rc, 0, "%s on %s: %s", k->name, srcs[w], err.msg);
                char axes[128];
                sp_params_text(&p[c], axes, sizeof axes);
                cr_assert_eq(op->error(&pb, out, ref), 0.0, "%s %s on %s", k->name, axes,
                             srcs[w]);
            }
            free(p), free(ref), free(out);
            if (op->teardown)
                op->teardown(&pb);
        }
        sp_keys_free(&K);
    }
}
