/* test_prim.c — the primitives of study 000 without a GPU (kernels/prim/):
 * their serial versions on awkward sizes (0, 1, 31, 33, lengths that are
 * no multiple of a segment or a block) against brute force; the
 * operations on key workloads (a standalone array of n elements) and the
 * `bins` of keys:; segsort's check at any segment length; the axes the
 * primitive kernels take (any block size 1..1024, the segment, the
 * splitter distance), refused outside their ranges when a config is read,
 * naming the line; and each GPU kernel's prepare on a key workload (host
 * only). The GPU kernels themselves: tests/gpu/test_gpu_prim.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/prim/prim.h"
#include "../runner/runner.h"
#include "spmv_cases.h"
#include "testutil.h"
#include "util_sort.h"

static const int64_t awkward[] = {0, 1, 2, 31, 32, 33, 63, 65, 1000, 1023, 1025, 4097};
#define NAWKWARD (sizeof awkward / sizeof *awkward)

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    cr_assert_not_null(p);
    return p;
}

Test(prim, scan_serial_on_awkward_lengths_and_in_place)
{
    uint64_t s = 1;
    for (size_t l = 0; l < NAWKWARD; l++) {
        int64_t n = awkward[l];
        int32_t *in = xcalloc((size_t)n, 4), *out = xcalloc((size_t)n + 1, 4),
                *inplace = xcalloc((size_t)n + 1, 4);
        for (int64_t i = 0; i < n; i++)
            in[i] = inplace[i] = (int32_t)(rng(&s) % 16);
        sp_scan_serial(in, out, n);
        sp_scan_serial(inplace, inplace, n);
        int32_t sum = 0;
        for (int64_t i = 0; i < n; i++) {
            cr_assert_eq(out[i], sum, "n = %lld, out[%lld]", (long long)n, (long long)i);
            sum += in[i];
        }
        cr_assert_eq(out[n], sum, "the total last, n = %lld", (long long)n);
        cr_assert_eq(memcmp(out, inplace, ((size_t)n + 1) * 4), 0, "in place, n = %lld",
                     (long long)n);
        free(in), free(out), free(inplace);
    }
}

Test(prim, histogram_idx2ptr_ptr2idx_serial_on_awkward_lengths)
{
    static const int32_t bins[] = {1, 2, 7, 33, 1000};
    uint64_t s = 2;
    for (size_t l = 0; l < NAWKWARD; l++)
        for (size_t q = 0; q < sizeof bins / sizeof *bins; q++) {
            int64_t n = awkward[l];
            int32_t m = bins[q];
            int32_t *idx = xcalloc((size_t)n, 4), *cnt = xcalloc((size_t)m, 4),
                    *ptr = xcalloc((size_t)m + 1, 4), *sorted = xcalloc((size_t)n, 4),
                    *back = xcalloc((size_t)n, 4);
            for (int64_t i = 0; i < n; i++)
                idx[i] = (int32_t)(rng(&s) % (uint64_t)m);
            sp_histogram_serial(idx, n, cnt, m);
            for (int32_t b = 0; b < m; b++) {
                int32_t c = 0;
                for (int64_t i = 0; i < n; i++)
                    c += idx[i] == b;
                cr_assert_eq(cnt[b], c, "histogram n = %lld bins = %d", (long long)n, m);
            }
            int64_t k = 0;          /* the sorted indices by brute force */
            for (int32_t b = 0; b < m; b++)
                for (int32_t c = 0; c < cnt[b]; c++)
                    sorted[k++] = b;
            sp_idx2ptr_serial(sorted, n, ptr, m);
            cr_assert_eq(ptr[0], 0);
            cr_assert_eq(ptr[m], n);
            for (int32_t b = 0; b < m; b++)
                cr_assert_eq(ptr[b + 1] - ptr[b], cnt[b], "idx2ptr bin %d", b);
            sp_ptr2idx_serial(ptr, m, back);
            cr_assert_eq(memcmp(back, sorted, (size_t)n * 4), 0, "ptr2idx inverts idx2ptr");
            free(idx), free(cnt), free(ptr), free(sorted), free(back);
        }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every segment of seg keys sorted, a shorter last one included. */
Test(prim, segsort_serial_at_segments_that_do_not_divide_the_length)
{
    static const int64_t segs[] = {1, 2, 3, 31, 32, 33, 1000, 1024, 2048};
    uint64_t s = 3;
    for (size_t l = 0; l < NAWKWARD; l++)
        for (size_t g = 0; g < sizeof segs / sizeof *segs; g++) {
            int64_t n = awkward[l], seg = segs[g];
            uint64_t *k = xcalloc((size_t)n, 8), *want = xcalloc((size_t)n, 8);
            for (int64_t i = 0; i < n; i++)
                k[i] = want[i] = (rng(&s) % 50) << 32 | (uint64_t)i;
            for (int64_t b = 0; b < n; b += seg)
                qsort(want + b, (size_t)(n - b < seg ? n - b : seg), 8, cmp_u64);
            sp_segsort_serial(k, n, seg);
            cr_assert_eq(memcmp(k, want, (size_t)n * 8), 0, "n = %lld seg = %lld",
                         (long long)n, (long long)seg);
            free(k), free(want);
        }
}

/* The study's index-to-pointers: the partial histograms' vertical scan
 * (every segment's offset per bin) and the pointers, against brute force. */
Test(prim, hist_idx2ptr_serial_offsets_and_pointers)
{
    static const int64_t segs[] = {1, 3, 32, 33, 1000, 5000};
    static const int32_t bins[] = {1, 7, 100};
    uint64_t s = 4;
    for (size_t l = 0; l < NAWKWARD; l++)
        for (size_t g = 0; g < sizeof segs / sizeof *segs; g++)
            for (size_t q = 0; q < sizeof bins / sizeof *bins; q++) {
                int64_t n = awkward[l], seg = segs[g], parts = sp_prim_nparts(n, seg);
                int32_t m = bins[q];
                cr_assert_eq(parts, n ? (n + seg - 1) / seg : 1, "one part at least");
                int32_t *idx = xcalloc((size_t)n, 4), *ptr = xcalloc((size_t)m + 1, 4),
                        *off = xcalloc((size_t)(parts * m), 4), *want = xcalloc((size_t)m + 1, 4);
                for (int64_t i = 0; i < n; i++)
                    idx[i] = (int32_t)(rng(&s) % (uint64_t)m);
                cr_assert_eq(sp_hist_idx2ptr_serial(idx, n, m, seg, ptr, off), 0);
                for (int64_t p = 0; p < parts; p++)
                    for (int32_t b = 0; b < m; b++) {
                        int32_t c = 0;
                        for (int64_t i = 0; i < p * seg && i < n; i++)
                            c += idx[i] == b;
                        cr_assert_eq(off[p * m + b], c, "n %lld seg %lld part %lld bin %d",
                                     (long long)n, (long long)seg, (long long)p, b);
                    }
                sp_histogram_serial(idx, n, want, m);
                sp_scan_serial(want, want, m);
                cr_assert_eq(memcmp(ptr, want, ((size_t)m + 1) * 4), 0);
                cr_assert_eq(sp_hist_idx2ptr_serial(idx, n, m, seg, ptr, NULL), 0, "no offsets");
                cr_assert_eq(memcmp(ptr, want, ((size_t)m + 1) * 4), 0);
                free(idx), free(ptr), free(off), free(want);
            }
}

/* ---- the operations on a key workload ------------------------------------ */

static const char *const OPS[] = {"scan",    "histogram", "idx2ptr",     "ptr2idx",
                                  "segsort", "merge",     "hist_idx2ptr"};
#define NOPS 7

/* op's reference on K, checked by its own error (0 against itself). */
static void *op_reference(const char *name, const sp_keys *K, sp_problem *pb, size_t *bytes)
{
    const sp_operation *op = sp_operation_find(name);
    cr_assert_not_null(op, "%s", name);
    cr_assert(sp_operation_accepts(op, SP_WL_KEYS), "%s takes key workloads", name);
    cr_assert(sp_operation_accepts(op, SP_WL_MATRIX), "%s takes matrices", name);
    sp_err err;
    cr_assert_eq(op->setup(pb, SP_KEYS_WORKLOAD(K), &err), 0, "%s", err.msg);
    *bytes = op->output_bytes(pb);
    void *ref = xcalloc(*bytes, 1);
    cr_assert_eq(op->reference(pb, ref, &err), 0, "%s: %s", name, err.msg);
    cr_assert_eq(op->error(pb, ref, ref), 0.0, "%s", name);
    return ref;
}

/* Key k's bin among m: its place in the 32-bit range. */
static int32_t bin(uint32_t k, int32_t m)
{
    return (int32_t)((uint64_t)k * (uint64_t)m >> 32);
}

Test(prim, operations_on_key_arrays_of_awkward_lengths)
{
    static const char *const dists[] = {"uniform", "sorted", "equal", "zipf"};
    for (size_t l = 0; l < NAWKWARD; l++)
        for (size_t d = 0; d < 4; d++) {
            char src[128];
            snprintf(src, sizeof src, "keys:%s?n=%lld&seed=5%s", dists[d],
                     (long long)awkward[l], d == 1 ? "&bins=7" : "");
            sp_keys K;
            us_keys(src, &K);
            int64_t n = K.n;
            int32_t m = d == 1 ? 7 : (n / 20 > 0 ? (int32_t)(n / 20) : 1);
            cr_assert_eq(sp_prim_keys_bins(&K), m, "%s: bins", src);
            sp_problem pb;
            size_t b;
            int32_t *cnt = op_reference("histogram", &K, &pb, &b);
            cr_assert_eq(b, (size_t)m * 4, "%s", src);
            int32_t *brute = xcalloc((size_t)m, 4);
            for (int64_t i = 0; i < n; i++)
                brute[bin(K.key[i], m)]++;
            cr_assert_eq(memcmp(cnt, brute, b), 0, "%s: histogram of the keys' bins", src);
            int32_t *ptr = op_reference("idx2ptr", &K, &pb, &b);
            cr_assert_eq(b, ((size_t)m + 1) * 4);
            int32_t *hptr = op_reference("hist_idx2ptr", &K, &pb, &b);
            cr_assert_eq(memcmp(ptr, hptr, b), 0, "%s: the same pointers", src);
            for (int32_t j = 0; j < m; j++)
                cr_assert_eq(ptr[j + 1] - ptr[j], brute[j]);
            int32_t *pos = op_reference("ptr2idx", &K, &pb, &b);
            cr_assert_eq(b, (size_t)n * 4, "%s: ptr2idx fills the n positions", src);
            for (int64_t i = 1; i < n; i++)
                cr_assert_leq(pos[i - 1], pos[i], "%s: ascending", src);
            int32_t *sc = op_reference("scan", &K, &pb, &b);
            cr_assert_eq(b, ((size_t)n + 1) * 4);
            int32_t sum = 0;
            for (int64_t i = 0; i < n; i++) {
                cr_assert_eq(sc[i], sum, "%s: scan of the top 4 bits", src);
                sum += (int32_t)(K.key[i] >> 28);
            }
            cr_assert_eq(sc[n], sum);
            uint64_t *merged = op_reference("merge", &K, &pb, &b);
            cr_assert_eq(b, (size_t)n * 8);
            for (int64_t i = 0; i < n; i++) {
                uint32_t p = (uint32_t)merged[i];
                cr_assert_eq(merged[i] >> 32, K.key[p], "%s: the key at its position", src);
                if (i)
                    cr_assert_lt(merged[i - 1], merged[i], "%s: sorted, stably", src);
            }
            uint64_t *seg = op_reference("segsort", &K, &pb, &b);
            cr_assert_eq(b, (size_t)n * 8 + 8, "%s: the keys and their segment length", src);
            cr_assert_eq(seg[n], SP_PRIM_SEG);
            free(cnt), free(brute), free(ptr), free(hptr), free(pos), free(sc), free(merged),
                free(seg);
            sp_keys_free(&K);
        }
}

/* segsort's output names its segment length: checked at that length,
 * exactly, and refused when a key is wrong, out of its segment, or the
 * length is none segsort takes. */
Test(prim, segsort_check_at_any_segment_length)
{
    sp_keys K;
    us_keys("keys:few?n=1025&seed=3", &K);
    sp_problem pb;
    size_t b;
    uint64_t *ref = op_reference("segsort", &K, &pb, &b);
    const sp_operation *op = sp_operation_find("segsort");
    uint64_t *out = xcalloc(b, 1);
    static const int64_t segs[] = {1, 3, 33, 1000, 2048};
    for (size_t g = 0; g < 5; g++) {
        int64_t seg = segs[g];
        for (int64_t i = 0; i < K.n; i++)
            out[i] = (uint64_t)K.key[i] << 32 | (uint64_t)i;
        sp_segsort_serial(out, K.n, seg);
        out[K.n] = (uint64_t)seg;
        cr_assert_eq(op->error(&pb, out, ref), 0.0, "segment %lld", (long long)seg);
        if (seg > 1 && K.n > 2) {      /* two keys of one segment swapped */
            uint64_t t = out[0];
            out[0] = out[1], out[1] = t;
            cr_assert(isinf(op->error(&pb, out, ref)), "unsorted, segment %lld", (long long)seg);
            out[1] = out[0], out[0] = t;
        }
        out[K.n] = (uint64_t)(seg == 1 ? 2 : 1);    /* sorted at another length */
        cr_assert(isinf(op->error(&pb, out, ref)), "the wrong segment, %lld", (long long)seg);
    }
    for (int64_t i = 0; i < K.n; i++)       /* unsorted: segments of 1 */
        out[i] = (uint64_t)K.key[i] << 32 | (uint64_t)i;
    out[K.n] = 1;
    cr_assert_eq(op->error(&pb, out, ref), 0.0);
    out[5] ^= 1ull << 40;                   /* a key that is not the input's */
    cr_assert(isinf(op->error(&pb, out, ref)));
    out[5] ^= 1ull << 40;
    out[K.n] = 0;
    cr_assert(isinf(op->error(&pb, out, ref)), "segment 0");
    out[K.n] = SP_PRIM_SEG_MAX + 1;
    cr_assert(isinf(op->error(&pb, out, ref)), "past the largest segment");
    free(ref), free(out);
    sp_keys_free(&K);
}

/* scan reads each key's top 4 bits: past 143 million keys their sum could
 * overflow, so it is refused with the reason before anything is read. */
Test(prim, scan_refuses_key_arrays_whose_sum_could_overflow)
{
    sp_keys K = {.n = INT32_MAX, .key = NULL};
    sp_problem pb = {.key_workload = &K};
    void *in = NULL;
    int64_t n;
    sp_err err;
    cr_assert_eq(sp_prim_input("scan", &pb, 0, &in, &n, &err), -1);
    cr_assert_not_null(strstr(err.msg, "2^31-1"), "%s", err.msg);
    cr_assert_null(in);
}

Test(prim, keys_bins_parameter)
{
    sp_keys_spec ks;
    sp_err err;
    cr_assert_eq(sp_keys_spec_parse("uniform?n=1000&bins=2^10+3", &ks, &err), 0, "%s", err.msg);
    cr_assert_eq(ks.bins, 1027);
    char text[256], name[256];
    sp_keys_spec_text(&ks, text, sizeof text);
    cr_assert_str_eq(text, "keys:uniform?n=1000&seed=1&bins=1027");
    sp_keys_spec_name(&ks, name, sizeof name);
    cr_assert_str_eq(name, "keys_uniform_n1000_bins1027");
    cr_assert_eq(sp_keys_spec_parse("uniform?n=1000", &ks, &err), 0);
    sp_keys_spec_text(&ks, text, sizeof text);
    cr_assert_str_eq(text, "keys:uniform?n=1000&seed=1", "no bins: the text as before");
    const char *bad[] = {"uniform?n=10&bins=0", "uniform?n=10&bins=2^31",
                         "uniform?n=10&bins=x", "uniform?n=10&bins=3&bins=4"};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(sp_keys_spec_parse(bad[i], &ks, &err), -1, "%s", bad[i]);
        cr_assert_not_null(strstr(err.msg, "bins"), "%s: %s", bad[i], err.msg);
    }
    sp_keys K;
    us_keys("keys:sorted?n=100&bins=9", &K);
    cr_assert_eq(K.bins, 9);
    cr_assert_eq(sp_prim_keys_bins(&K), 9);
    sp_keys plain;
    us_keys("keys:sorted?n=100", &plain);
    cr_assert_eq(memcmp(K.key, plain.key, 400), 0, "bins does not change the keys");
    cr_assert_eq(sp_prim_keys_bins(&plain), 5, "n / 20");
    sp_keys_free(&K);
    sp_keys_free(&plain);
}

/* ---- the axes ------------------------------------------------------------- */

/* The primitives declare what each axis takes (sp_axis.valid; every
 * kernel's defaults inside it: config/every_kernels_defaults_are_valid),
 * and each list ends exactly at the bound the kernel's code keeps. */
static void takes_up_to(const char *kernel, int a, long max)
{
    const sp_kernel *k = sp_kernel_find(kernel);
    cr_assert_not_null(k, "%s", kernel);
    cr_assert_not_null(k->axes[a].valid, "%s declares %s's values", kernel, k->axes[a].name);
    long v[3] = {1, max, max + 1};
    for (int i = 0; i < 3; i++) {
        sp_axis_values one = {1, &v[i]};
        sp_err err;
        cr_assert_eq(sp_axis_check_valid(k, a, &one, 4, &err), i < 2 ? 0 : -1, "%s %s = %ld",
                     kernel, k->axes[a].name, v[i]);
    }
}

Test(prim, every_declared_axis_range_ends_at_the_kernels_bound)
{
    takes_up_to("scan_cuda", 0, SP_PRIM_BS_MAX);
    takes_up_to("segsort_cuda", 0, SP_PRIM_BS_MAX);
    takes_up_to("segsort_cuda", 1, SP_PRIM_SEG_MAX);
    takes_up_to("segsort_serial", 0, SP_PRIM_SEG_MAX);
    takes_up_to("merge_cuda", 1, SP_PRIM_RUN_MAX);
    takes_up_to("merge_serial", 0, SP_PRIM_RUN_MAX);
    takes_up_to("merge_cuda", 2, SP_PRIM_SP_DIST_MAX);
    takes_up_to("hist_idx2ptr_cuda_loop", 1, SP_PRIM_HIST_SEG_MAX);
    takes_up_to("hist_idx2ptr_cuda_transpose", 1, SP_PRIM_HIST_SEG_MAX);
    takes_up_to("hist_idx2ptr_serial", 0, SP_PRIM_HIST_SEG_MAX);
}

/* A config value outside a kernel's range: refused when read, naming the
 * file, the line, the axis, the kernel and the range; odd block sizes
 * from 1 to 1024 are taken. */
Test(prim, configs_are_refused_outside_an_axis_range_naming_the_line)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "p.ini");
    static const struct {
        const char *section, *line, *want;
    } bad[] = {
        {"segsort_cuda", "segment = 128,4096", "kernel 'segsort_cuda': segment = 4096 is not "
                                               "among the values it takes, 1..2048"},
        {"merge_cuda", "sp_dist = 8192", "kernel 'merge_cuda': sp_dist = 8192 is not among "
                                         "the values it takes, 1..4096"},
        {"merge_cuda", "segment = 0", "axis 'segment': value 0 outside"},
        {"hist_idx2ptr_cuda_loop", "segment = 20000000", "kernel 'hist_idx2ptr_cuda_loop': "
                                                         "segment = 20000000 is not among the "
                                                         "values it takes, 1..16777216"},
        {"scan_cuda", "blocksize = 1025", "blocksize"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[sweep]\nrepetitions = 1\n\n[matrices]\nsource = keys:uniform?n=100\n\n"
                 "[kernel %s]\n%s\n",
                 bad[i].section, bad[i].line);
        tu_write_file(path, text);
        sp_config cfg;
        sp_err err;
        cr_assert_eq(sp_config_load(path, NULL, &cfg, &err), -1, "%s", bad[i].line);
        char where[320];
        snprintf(where, sizeof where, "%s:8:", path);
        cr_assert_not_null(strstr(err.msg, where), "the line: %s", err.msg);
        cr_assert_not_null(strstr(err.msg, bad[i].want), "%s", err.msg);
    }
    tu_write_file(path, "[sweep]\nrepetitions = 1\n\n[matrices]\nsource = keys:uniform?n=100\n\n"
                        "[kernel segsort_cuda]\nblocksize = 1,3,33,1000,1024\nsegment = 1,3,"
                        "1000,2048\n\n[kernel merge_cuda]\nsp_dist = 1,7,4096\nsegment = 1,"
                        "3,5000\n");
    sp_config cfg;
    sp_err err;
    cr_assert_eq(sp_config_load(path, NULL, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_config_override_axis(&cfg, "sp_dist", "5000", &err), -1);
    cr_assert_not_null(strstr(err.msg, "--axis sp_dist=5000") &&
                           strstr(err.msg, "values it takes, 1..4096"),
                       "%s", err.msg);
    cr_assert_eq(sp_config_override_axis(&cfg, "sp_dist", "64,128", &err), 0, "%s", err.msg);
    sp_config_free(&cfg);
}

/* prepare of every primitive GPU kernel on a key workload (host only, so
 * it runs here in a CUDA build): odd block sizes and segments taken, and
 * out-of-range values refused naming the axis. */
Test(prim, gpu_kernels_prepare_on_key_arrays_at_odd_axis_values)
{
    sp_keys K;
    us_keys("keys:zipf?n=3001&seed=2&bins=17", &K);
    int built = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        int prim = 0;
        for (int o = 0; o < NOPS; o++)
            prim |= !strcmp(k->operation, OPS[o]);
        if (!prim || !k->needs_gpu)
            continue;
        sp_problem pb;
        sp_err err;
        const sp_operation *op = sp_operation_find(k->operation);
        cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0, "%s", err.msg);
        sp_need need = {0};
        static const long bs[] = {1, 3, 33, 1000, 1024};
        for (int b = 0; b < 5; b++) {
            sp_params p = {.n = 3, .name = {"blocksize", "segment", "sp_dist"},
                           .value = {bs[b], b == 4 ? 2048 : 3 + b, 1 + 7 * b}};
            cr_assert_eq(k->need(&pb, &p, &need, &err), 0, "%s: %s", k->name, err.msg);
            cr_assert_gt(need.device_bytes, 0);
            if (!k->prepare)
                continue;       /* a CPU-only build: not built */
            void *state = NULL;
            cr_assert_eq(k->prepare(&pb, &p, &state, &err), 0, "%s bs %ld: %s", k->name, bs[b],
                         err.msg);
            k->release(state);
            built++;
        }
        sp_params p0 = {.n = 1, .name = {"blocksize"}, .value = {0}};
        cr_assert_eq(k->need(&pb, &p0, &need, &err), -1, "%s", k->name);
        cr_assert_not_null(strstr(err.msg, "blocksize = 0 is outside 1..1024"), "%s", err.msg);
        if (k->naxes > 1) {
            sp_params big = {.n = 2, .name = {"blocksize", k->axes[1].name},
                             .value = {32, 1L << 25}};
            cr_assert_eq(k->need(&pb, &big, &need, &err), -1, "%s", k->name);
            cr_assert_not_null(strstr(err.msg, k->axes[1].name), "%s", err.msg);
        }
        if (op->teardown)
            op->teardown(&pb);
    }
#ifdef SP_HAVE_CUDA
    cr_assert_eq(built, 9 * 5, "9 primitive kernels, 5 block sizes each");
#endif
    sp_keys_free(&K);
}

/* Section VIII's count (hist_idx2ptr_cuda_owners) reads each index once
 * per pass over the bins, by every thread of the block: n x ceil(bins /
 * (bs x 8)) x bs reads. Its need takes study 000's histogram array (10^6
 * keys in 5 x 10^4 bins: 6.3e9-7.2e9 reads) at every block size and
 * refuses 4 x 10^6 keys in 10^6 bins (about n bins / 8 = 5e11 reads at any
 * block size), saying why and what to change. */
Test(prim, owners_count_refuses_what_would_read_for_minutes)
{
    cr_assert_float_eq(sp_hist_owner_reads(1000, 17, 1), 1000.0 * 3, 1e-9, "3 passes of 8");
    cr_assert_float_eq(sp_hist_owner_reads(1000, 8192, 1024), 1000.0 * 1024, 1e-9, "one pass");
    cr_assert_float_eq(sp_hist_owner_reads(1000, 8193, 1024), 2000.0 * 1024, 1e-9);
    const sp_kernel *k = sp_kernel_find("hist_idx2ptr_cuda_owners");
    cr_assert(k && k->need, "registered, with a need");
    const sp_operation *op = sp_operation_find(k->operation);
    static const char *const src[] = {"keys:uniform?n=1000000&seed=1&bins=50000",
                                      "keys:uniform?n=4000000&seed=1&bins=1000000"};
    for (int w = 0; w < 2; w++) {
        sp_keys K;
        us_keys(src[w], &K);
        sp_problem pb;
        sp_err err = {{0}};
        cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0, "%s", err.msg);
        static const long bs[] = {1, 32, 256, 1024};
        for (int b = 0; b < 4; b++) {
            sp_params p = {.n = 2, .name = {"blocksize", "segment"}, .value = {bs[b], 65536}};
            sp_need need = {0};
            int rc = k->need(&pb, &p, &need, &err);
            if (w == 0) {
                cr_assert_eq(rc, 0, "bs %ld: %s", bs[b], err.msg);
                continue;
            }
            cr_assert_eq(rc, -1, "bs %ld", bs[b]);
            cr_assert(strstr(err.msg, "hist_idx2ptr_cuda_owners:") &&
                      strstr(err.msg, "4000000 indices in 1000000 bins") &&
                      strstr(err.msg, "a larger blocksize or fewer bins"), "%s", err.msg);
        }
        if (op->teardown)
            op->teardown(&pb);
        sp_keys_free(&K);
    }
}

/* The serial kernels through the runner's life cycle on every awkward
 * matrix (empty rows, one column, nnz = 0, ...) and on key arrays, at odd
 * segments, checked by their operations like any kernel. */
Test(prim, serial_kernels_on_awkward_matrices_and_key_arrays, .timeout = 120)
{
    static const char *const serial[] = {"scan_serial",    "histogram_serial",
                                         "idx2ptr_serial", "ptr2idx_serial",
                                         "segsort_serial", "merge_serial",
                                         "hist_idx2ptr_serial"};
    static const long seg[] = {1, 3, 1000}, long_seg[] = {1000, 4096};
    spmv_axis_override o = {"segment", seg, 3};
    /* hist_idx2ptr's partial counts are nnz / segment x cols: long segments
     * on matrices (the short ones on the key arrays below) */
    spmv_axis_override o_hist = {"segment", long_seg, 2};
    for (int m = 0; m < spmv_case_count(); m++) {
        spmv_case c;
        spmv_case_build(m, &c);
        for (int i = 0; i < 7; i++) {
            const sp_kernel *k = sp_kernel_find(serial[i]);
            cr_assert(k && k->prepare && !k->needs_gpu, "%s", serial[i]);
            cr_assert_str_eq(k->backend, "serial");
            cr_assert_eq(spmv_check_kernel_with(k, i == 6 ? &o_hist : &o, 1, &c.A, c.name), 0,
                         "%s on %s: refused", k->name, c.name);
        }
        /* what tests/gpu/test_gpu_prim.c runs the GPU twins at fits the
         * tests' memory, so none of them is refused there */
        sp_problem pb = {.A = &c.A};
        static const long gpu_seg[] = {1000, 2047};
        for (int g = 0; g < 2; g++) {
            sp_params p = {.n = 2, .name = {"blocksize", "segment"}, .value = {1, gpu_seg[g]}};
            sp_need need = {0};
            sp_err err;
            cr_assert_eq(sp_kernel_find("hist_idx2ptr_cuda_transpose")->need(&pb, &p, &need, &err),
                         0, "%s", err.msg);
            cr_assert_leq(need.device_bytes, SPMV_TEST_FREE_BYTES, "%s", c.name);
            cr_assert_leq(need.host_bytes, SPMV_TEST_FREE_BYTES, "%s", c.name);
        }
        spmv_case_free(&c);
    }
    for (size_t l = 0; l < NAWKWARD; l++) {
        char src[96];
        snprintf(src, sizeof src, "keys:zipf?n=%lld&bins=13", (long long)awkward[l]);
        sp_keys K;
        us_keys(src, &K);
        for (int i = 0; i < 7; i++) {
            const sp_kernel *k = sp_kernel_find(serial[i]);
            const sp_operation *op = sp_operation_find(k->operation);
            sp_problem pb;
            sp_err err;
            cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0, "%s", err.msg);
            size_t bytes = op->output_bytes(&pb);
            void *ref = xcalloc(bytes, 1), *out = xcalloc(bytes, 1);
            cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
            for (int g = 0; g < 3; g++) {
                sp_params p = {.n = 1, .name = {"segment"}, .value = {seg[g]}};
                void *state = NULL;
                cr_assert_eq(k->prepare(&pb, &p, &state, &err), 0, "%s: %s", k->name, err.msg);
                cr_assert_eq(k->launch(state, NULL, &err), 0);
                cr_assert_eq(k->launch(state, NULL, &err), 0, "launches repeat");
                cr_assert_eq(k->result(state, out, NULL, &err), 0);
                k->release(state);
                cr_assert_eq(op->error(&pb, out, ref), 0.0, "%s segment %ld on %s", k->name,
                             seg[g], src);
            }
            free(ref), free(out);
        }
        sp_keys_free(&K);
    }
}
