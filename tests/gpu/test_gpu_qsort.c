/* test_gpu_qsort.c — the three GPU quicksorts (kernels/sort/qsort_gpu.h)
 * against a CPU sort: every design at several option sets on uniform,
 * sorted, reverse, all-equal, 16-distinct and Zipf-like keys at sizes 0, 1,
 * 2, 31, 33, 1000003, 2^20 + 7 and 2^24 + 3, keys only and with values.
 * Checked: keys equal to the CPU-sorted input (sorted, same multiset);
 * with values = input positions, the values a permutation and each value
 * pointing at an input key equal to its output key. None of the designs
 * claims stability, so equal keys' values may come in any order. With
 * SPSWEEP_GPU_TEST_QUICK (the sanitizer passes of tests/gpu/run.sh) the
 * sizes stop at 20011, with uniform, equal and Zipf-like keys, and each
 * design runs two option sets. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/sort/qsort_gpu.h"

enum { UNIFORM, SORTED, REVERSE, EQUAL, DISTINCT16, ZIPF, NDIST };
static const char *dist_names[] = {"uniform", "sorted", "reverse", "equal", "16 distinct",
                                   "zipf"};

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n keys of distribution d; sorted and reverse over the full 32-bit range. */
static uint32_t *make_keys(int d, int64_t n, uint64_t seed)
{
    uint32_t *k = malloc((size_t)(n ? n : 1) * 4);
    cr_assert_not_null(k);
    uint64_t s = seed * 2654435761u + 88172645463325252ull;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rng_next(&s);
        switch (d) {
        case UNIFORM: k[i] = (uint32_t)(r >> 32); break;
        case SORTED: k[i] = (uint32_t)(i * 4294967291ull / (uint64_t)(n ? n : 1)); break;
        case REVERSE: k[i] = 0xffffffffu - (uint32_t)(i * 4294967291ull / (uint64_t)n); break;
        case EQUAL: k[i] = 0x5a5a5a5au; break;
        case DISTINCT16: k[i] = (uint32_t)(r >> 60) * 0x11111111u; break;
        /* P(key) ~ 1/key over 1..2^24 (log-uniform): a few keys repeat a lot */
        default: k[i] = (uint32_t)exp((double)(r >> 11) / 9007199254740992.0 * log(16777216.0));
        }
    }
    return k;
}

/* CPU reference: LSD radix sort of a copy, 8 bits a pass. */
static uint32_t *cpu_sorted(const uint32_t *in, int64_t n)
{
    uint32_t *a = malloc((size_t)(n ? n : 1) * 4), *b = malloc((size_t)(n ? n : 1) * 4);
    cr_assert(a && b);
    memcpy(a, in, (size_t)n * 4);
    for (int shift = 0; shift < 32; shift += 8) {
        size_t cnt[257] = {0};
        for (int64_t i = 0; i < n; i++)
            cnt[((a[i] >> shift) & 255) + 1]++;
        for (int j = 0; j < 256; j++)
            cnt[j + 1] += cnt[j];
        for (int64_t i = 0; i < n; i++)
            b[cnt[(a[i] >> shift) & 255]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

static int quick(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
}

/* Sort keys (and positions as values) of distribution dist with design d
 * at options o, and check everything against ref (the sorted keys). */
static void check_one(sp_qsort_design d, sp_qsort_opts o, const uint32_t *in,
                      const uint32_t *ref, int64_t n, int with_vals, const char *what)
{
    size_t bytes = (size_t)(n ? n : 1) * 4;
    uint32_t *k = malloc(bytes), *v = with_vals ? malloc(bytes) : NULL;
    cr_assert_not_null(k);
    memcpy(k, in, (size_t)n * 4);
    for (int64_t i = 0; with_vals && i < n; i++)
        v[i] = (uint32_t)i;
    sp_err err;
    err.msg[0] = 0;
    const char *dn = sp_qsort_design_name(d);
    cr_assert_eq(sp_qsort_host(d, k, v, n, &o, &err), 0, "%s %s n=%lld %s: %s", dn, what,
                 (long long)n, with_vals ? "pairs" : "keys", err.msg);
    for (int64_t i = 0; i < n; i++)
        if (k[i] != ref[i])
            cr_assert_fail("%s (bs %d, window %d, cutoff %d) %s n=%lld %s: key %lld is %u, "
                           "expected %u",
                           dn, o.blocksize, o.window, o.cutoff, what, (long long)n,
                           with_vals ? "pairs" : "keys", (long long)i, k[i], ref[i]);
    if (with_vals) {
        unsigned char *seen = calloc((size_t)(n ? n : 1), 1);
        cr_assert_not_null(seen);
        for (int64_t i = 0; i < n; i++) {
            uint32_t p = v[i];
            if (p >= (uint64_t)n || seen[p] || in[p] != k[i])
                cr_assert_fail("%s (bs %d, window %d, cutoff %d) %s n=%lld: value %lld = %u "
                               "%s",
                               dn, o.blocksize, o.window, o.cutoff, what, (long long)n,
                               (long long)i, p,
                               p >= (uint64_t)n ? "out of range"
                               : seen[p]        ? "repeated"
                                                : "does not follow its key");
            seen[p] = 1;
        }
        free(seen);
    }
    free(k);
    free(v);
}

/* Every distribution and size for design d at each option set (only the
 * first at 2^24 + 3). */
static void check_design(sp_qsort_design d, const sp_qsort_opts *opts, int nopts)
{
    static const int64_t full[] = {0, 1, 2, 31, 33, 1000003, (1 << 20) + 7, (1 << 24) + 3};
    static const int64_t fast[] = {0, 1, 2, 33, 4099, 20011};
    const int64_t *sizes = quick() ? fast : full;
    int nsizes = quick() ? 6 : 8;
    if (quick() && nopts > 2)
        nopts = 2;
    for (int s = 0; s < nsizes; s++)
        for (int dist = 0; dist < NDIST; dist++) {
            if (quick() && dist != UNIFORM && dist != EQUAL && dist != ZIPF)
                continue;
            int64_t n = sizes[s];
            uint32_t *in = make_keys(dist, n, (uint64_t)(s * 7 + dist + 1));
            uint32_t *ref = cpu_sorted(in, n);
            for (int i = 0; i < (n > (1 << 22) ? 1 : nopts); i++) {
                check_one(d, opts[i], in, ref, n, 1, dist_names[dist]);
                check_one(d, opts[i], in, ref, n, 0, dist_names[dist]);
            }
            free(in);
            free(ref);
        }
}

Test(gpu_qsort, block_design, .timeout = 900)
{
    sp_qsort_opts o[] = {sp_qsort_defaults(SP_QSORT_BLOCK),
                         {96, 100, 100},     /* nothing a multiple of 32 but blocksize */
                         {1024, 8192, 8192}, /* largest window and cutoff */
                         {32, 32, 16}};      /* many narrow levels */
    check_design(SP_QSORT_BLOCK, o, 4);
}

Test(gpu_qsort, queue_design, .timeout = 900)
{
    sp_qsort_opts o[] = {sp_qsort_defaults(SP_QSORT_QUEUE),
                         {128, 300, 200},
                         {1024, 8192, 8192},
                         {32, 32, 16}};
    check_design(SP_QSORT_QUEUE, o, 4);
}

Test(gpu_qsort, thread_design, .timeout = 900)
{
    sp_qsort_opts o[] = {sp_qsort_defaults(SP_QSORT_THREAD),
                         {32, 64, 16},
                         {256, 2048, 256}};
    check_design(SP_QSORT_THREAD, o, 3);
}

/* Bad options are refused before any device pointer is touched, with the
 * parameter named; n = 0 and 1 with NULL arrays are nothing to do. */
Test(gpu_qsort, refusals_and_empty_inputs)
{
    typedef int (*fn)(uint32_t *, uint32_t *, int64_t, void *, const sp_qsort_opts *,
                      cudaStream_t, sp_err *);
    fn fns[] = {sp_qsort_thread, sp_qsort_block, sp_qsort_queue};
    struct {
        sp_qsort_opts o;
        const char *word;
    } bad[] = {{{100, 4096, 16}, "blocksize"},
               {{2048, 4096, 16}, "blocksize"},
               {{512, 256, 16}, "window"},
               {{512, 16384, 16}, "window"},
               {{512, 4096, 0}, "cutoff"}};
    for (int d = 0; d < 3; d++) {
        sp_err err;
        for (int i = 0; i < 5; i++) {
            err.msg[0] = 0;
            cr_assert_eq(fns[d](NULL, NULL, 1000, NULL, &bad[i].o, 0, &err), -1);
            cr_assert_not_null(strstr(err.msg, bad[i].word), "%s", err.msg);
        }
        sp_qsort_opts o = sp_qsort_defaults((sp_qsort_design)d);
        cr_assert_eq(fns[d](NULL, NULL, 0, NULL, &o, 0, &err), 0, "%s", err.msg);
        cr_assert_eq(fns[d](NULL, NULL, 1, NULL, &o, 0, &err), 0, "%s", err.msg);
        cr_assert_eq(fns[d](NULL, NULL, 5, NULL, &o, 0, &err), -1, "NULL keys refused");
        cr_assert_not_null(strstr(err.msg, "NULL"), "%s", err.msg);
        cr_assert_eq(fns[d](NULL, NULL, -3, NULL, &o, 0, &err), -1);
        cr_assert_not_null(strstr(err.msg, "n = -3"), "%s", err.msg);
    }
}

/* Keys that all share their top 31 bits, the full 32-bit range's two ends,
 * and sorted runs glued together: the block-local sort's digit window and
 * the splitters' equal buckets at their edges. */
Test(gpu_qsort, edge_keys)
{
    int64_t n = quick() ? 20011 : 300007;
    uint32_t *in = malloc((size_t)n * 4);
    cr_assert_not_null(in);
    uint64_t s = 99;
    for (int pattern = 0; pattern < 3; pattern++) {
        for (int64_t i = 0; i < n; i++) {
            uint64_t r = rng_next(&s);
            in[i] = pattern == 0   ? 0xfffffffeu + (uint32_t)(r & 1)
                    : pattern == 1 ? ((r & 1) ? 0xffffffffu : 0u)
                                   : (uint32_t)(i % 1000) * 77777u;
        }
        uint32_t *ref = cpu_sorted(in, n);
        for (int d = 0; d < 3; d++) {
            sp_qsort_opts o = sp_qsort_defaults((sp_qsort_design)d);
            check_one((sp_qsort_design)d, o, in, ref, n, 1, "edge keys");
        }
        free(ref);
    }
    free(in);
}

/* The bucket lookup at its edges: keys equal to the splitters and one off
 * them on both sides (0 and UINT32_MAX among the centres, so one off wraps),
 * 1, 2, 255, 256, 257 and 300 distinct centres (all splitters kept and
 * the list padded, or not), sizes one off the cutoff, twice the cutoff
 * and one off the tile of the default options, and a window of 64 keys
 * per thread (blocksize 64, window 4096). Every design, keys and pairs. */
Test(gpu_qsort, splitter_edges, .timeout = 900)
{
    sp_qsort_opts blk = sp_qsort_defaults(SP_QSORT_BLOCK);
    const int64_t tile = (int64_t)blk.window * SP_QSORT_TILE_WINDOWS;
    const int64_t sizes[] = {blk.cutoff - 1, blk.cutoff, blk.cutoff + 1, 2 * blk.cutoff + 1,
                             tile - 1, tile + 1, quick() ? 20011 : 1000003};
    const unsigned distinct[] = {1, 2, 255, 256, 257, 300};
    uint64_t s = 4242;
    for (int si = 0; si < 7; si++)
        for (int di = 0; di < 6; di++) {
            int64_t n = sizes[si];
            if (quick() && di % 2)
                continue;
            uint32_t *in = malloc((size_t)n * 4);
            cr_assert_not_null(in);
            for (int64_t i = 0; i < n; i++) {
                uint64_t r = rng_next(&s);
                /* centres spread over the range (0 and UINT32_MAX among
                 * them); half the keys exactly on one, the rest one below
                 * or one above it (wrapping at the ends) */
                uint32_t c = (uint32_t)(((uint64_t)(r % distinct[di]) * 0xffffffffull) /
                                        (distinct[di] > 1 ? distinct[di] - 1 : 1));
                uint32_t off = (uint32_t)((r >> 32) & 3);
                in[i] = off < 2 ? c : off == 2 ? c - 1 : c + 1;
                if (di == 0)
                    in[i] = c; /* one distinct value */
            }
            uint32_t *ref = cpu_sorted(in, n);
            for (int d = 0; d < 3; d++) {
                sp_qsort_opts o = sp_qsort_defaults((sp_qsort_design)d);
                check_one((sp_qsort_design)d, o, in, ref, n, 1, "splitter edges");
                check_one((sp_qsort_design)d, o, in, ref, n, 0, "splitter edges");
            }
            sp_qsort_opts staged = {64, 4096, 1024};
            check_one(SP_QSORT_BLOCK, staged, in, ref, n, 1, "splitter edges, bs 64 window 4096");
            check_one(SP_QSORT_QUEUE, staged, in, ref, n, 1, "splitter edges, bs 64 window 4096");
            free(ref);
            free(in);
        }
}

/* The block-local sort's counting pass (qsort_dev.cuh, QS_LEAFB): one
 * block's worth of keys (n <= cutoff, so the whole sort is one block-local
 * sort) and, through the partition passes, 2^20 + 3 of them, where keys
 * spread evenly (about one a sub-bucket: the counting pass), where one
 * sub-bucket gets 15, 16 and 17 keys of different values (the last sends
 * the sort to the digit passes), where a sub-bucket holds many copies of
 * one value with 12 bits or fewer of span (no insertion work: the counting
 * pass stays), with clusters of nearly equal keys, and with sizes one off
 * a multiple of 32. Keys and pairs, block and queue designs, at cutoffs
 * 4096 (512 threads x 8), 8192 (1024 x 8) and 1000 (96 x 16: 1536 keys, a
 * counting pass of 1024 sub-buckets). Quick mode (the sanitizer passes):
 * the first two option sets, two sizes, the block design. */
Test(gpu_qsort, leaf_counting_pass, .timeout = 900)
{
    const sp_qsort_opts opts[] = {{512, 4096, 4096}, {1024, 8192, 8192}, {96, 100, 1000}};
    uint64_t s = 777;
    for (int oi = 0; oi < (quick() ? 2 : 3); oi++) {
        const sp_qsort_opts o = opts[oi];
        const int64_t c = o.cutoff;
        const int64_t sizes[] = {c, c - 31, c - 1, c / 2 + 1, 33, (1 << 20) + 3};
        for (int si = 0; si < (quick() ? 2 : 6); si++) {
            int64_t n = sizes[si];
            uint32_t *in = malloc((size_t)n * 4);
            cr_assert_not_null(in);
            for (int pattern = 0; pattern < 6; pattern++) {
                for (int64_t i = 0; i < n; i++) {
                    uint64_t r = rng_next(&s);
                    switch (pattern) {
                    case 0: in[i] = (uint32_t)(r >> 32); break; /* spread */
                    /* spread over 2^20 values, with the first 15 / 16 / 17
                     * keys in one narrow range (a single sub-bucket) */
                    case 1:
                    case 2:
                    case 3:
                        in[i] = i < 14 + pattern ? 500000u + (uint32_t)(i * 7 % 16)
                                                 : (uint32_t)(r >> 44);
                        break;
                    /* 12 bits of span, many copies of each value */
                    case 4: in[i] = 0x12345000u + (uint32_t)((r >> 40) % 4096); break;
                    /* clusters: runs of nearly equal keys over a wide span */
                    default:
                        in[i] = (uint32_t)((r >> 32) & 0xfff00000u) + (uint32_t)((r >> 8) & 7);
                    }
                }
                uint32_t *ref = cpu_sorted(in, n);
                for (int d = 1; d < (quick() ? 2 : 3); d++) {
                    check_one((sp_qsort_design)d, o, in, ref, n, 1, "counting pass");
                    check_one((sp_qsort_design)d, o, in, ref, n, 0, "counting pass");
                }
                free(ref);
            }
            free(in);
        }
    }
}

/* The partition pass's scatter windows (qsort_dev.cuh, qs_scatter_range):
 * held in registers (window = 8 x blocksize at 128, 256 and 512 threads)
 * and staged in shared memory (window 2048 at 512 threads, 8192 at 1024,
 * 4096 at 64, and 100 at 96); all keys in one bucket, one range bucket
 * spanning many tiles (90 % of the keys in a narrow range between two
 * splitters), and sizes one off a multiple of the window and of the tile.
 * Block and queue designs, keys and pairs. Quick mode: three option sets
 * (registers, staged, 96 threads), two sizes, the block design. */
Test(gpu_qsort, scatter_windows, .timeout = 900)
{
    const sp_qsort_opts opts[] = {{128, 1024, 1024}, {256, 2048, 2048}, {512, 4096, 4096},
                                  {512, 2048, 4096}, {1024, 8192, 8192}, {64, 4096, 1024},
                                  {96, 100, 100}};
    uint64_t s = 31337;
    for (int oi = 0; oi < 7; oi++) {
        const sp_qsort_opts o = opts[oi];
        if (quick() && oi != 0 && oi != 3 && oi != 6)
            continue;
        const int64_t W = o.window, tile = W * SP_QSORT_TILE_WINDOWS;
        const int64_t sizes[] = {5 * W + 1, 3 * tile + 5, 5 * W - 1, 700001};
        for (int si = 0; si < (quick() ? 2 : 4); si++) {
            int64_t n = sizes[si];
            uint32_t *in = malloc((size_t)n * 4);
            cr_assert_not_null(in);
            for (int pattern = 0; pattern < 3; pattern++) {
                for (int64_t i = 0; i < n; i++) {
                    uint64_t r = rng_next(&s);
                    in[i] = pattern == 0   ? 0xabcdef01u
                            : pattern == 1 ? ((r & 15) < 14 ? 1000000u + (uint32_t)((r >> 20) % 5000)
                                                            : (uint32_t)(r >> 32))
                                           : (uint32_t)(r >> 32);
                }
                uint32_t *ref = cpu_sorted(in, n);
                for (int d = 1; d < (quick() ? 2 : 3); d++) {
                    check_one((sp_qsort_design)d, o, in, ref, n, 1, "scatter windows");
                    check_one((sp_qsort_design)d, o, in, ref, n, 0, "scatter windows");
                }
                free(ref);
            }
            free(in);
        }
    }
}
