/* test_qsort.c — the host side of the GPU quicksorts that needs no GPU:
 * option checks (each refusal names its parameter), shared-memory sizes
 * and the workspace layout (hand-computed capacities, arrays aligned and
 * disjoint, growing with n), design names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/kernel.h"
#include "../kernels/sort/qsort_gpu.h"

static const sp_qsort_design designs[] = {SP_QSORT_THREAD, SP_QSORT_BLOCK, SP_QSORT_QUEUE};

/* o is refused for design d with a message that contains `word`. */
static void refused(sp_qsort_design d, sp_qsort_opts o, const char *word)
{
    sp_err err;
    err.msg[0] = 0;
    cr_assert_eq(sp_qsort_check_opts(d, &o, &err), -1, "%s: bs %d window %d cutoff %d accepted",
                 sp_qsort_design_name(d), o.blocksize, o.window, o.cutoff);
    cr_assert_not_null(strstr(err.msg, word), "message lacks '%s': %s", word, err.msg);
    cr_assert_not_null(strstr(err.msg, sp_qsort_design_name(d)), "message: %s", err.msg);
    cr_assert_eq(sp_qsort_plan(d, 1000, 1, &o, &(sp_qsort_layout){0}, NULL), -1);
    cr_assert_eq(d == SP_QSORT_THREAD  ? sp_qsort_thread_workspace(1000, 1, &o)
                 : d == SP_QSORT_BLOCK ? sp_qsort_block_workspace(1000, 1, &o)
                                       : sp_qsort_queue_workspace(1000, 1, &o),
                 0, "workspace of refused options is 0");
}

static void accepted(sp_qsort_design d, sp_qsort_opts o)
{
    sp_err err;
    cr_assert_eq(sp_qsort_check_opts(d, &o, &err), 0, "%s: bs %d window %d cutoff %d: %s",
                 sp_qsort_design_name(d), o.blocksize, o.window, o.cutoff, err.msg);
}

Test(qsort_opts, defaults_are_accepted)
{
    for (int i = 0; i < 3; i++)
        accepted(designs[i], sp_qsort_defaults(designs[i]));
}

Test(qsort_opts, blocksize_must_be_a_warp_multiple_up_to_1024)
{
    int bad[] = {0, -32, 1, 31, 33, 100, 1056, 2048};
    for (int i = 0; i < 3; i++)
        for (size_t j = 0; j < sizeof bad / sizeof *bad; j++) {
            sp_qsort_opts o = sp_qsort_defaults(designs[i]);
            o.blocksize = bad[j];
            refused(designs[i], o, "blocksize");
        }
    accepted(SP_QSORT_BLOCK, (sp_qsort_opts){32, 32, 16});
    accepted(SP_QSORT_BLOCK, (sp_qsort_opts){1024, 1024, 8192});
    accepted(SP_QSORT_QUEUE, (sp_qsort_opts){96, 100, 100});
}

Test(qsort_opts, window_between_blocksize_and_the_shared_memory)
{
    for (int i = 0; i < 3; i++) {
        sp_qsort_opts o = sp_qsort_defaults(designs[i]);
        o.window = o.blocksize - 1;
        refused(designs[i], o, "window");
        o.window = SP_QSORT_WINDOW_MAX + 1;
        refused(designs[i], o, "window");
        o.window = SP_QSORT_WINDOW_MAX;
        accepted(designs[i], o);
        o.window = o.blocksize;
        accepted(designs[i], o);
    }
    /* not a multiple of the block size: fine */
    accepted(SP_QSORT_BLOCK, (sp_qsort_opts){96, 1000, 1000});
}

Test(qsort_opts, cutoff_fits_the_block_local_sort)
{
    for (int i = 1; i < 3; i++) {
        sp_qsort_design d = designs[i];
        refused(d, (sp_qsort_opts){512, 4096, 15}, "cutoff");
        refused(d, (sp_qsort_opts){512, 4096, 0}, "cutoff");
        refused(d, (sp_qsort_opts){512, 4096, 8193}, "cutoff");
        refused(d, (sp_qsort_opts){1024, 4096, 16384}, "cutoff");
        /* 8192 keys need 32 per thread at 256 threads: over 16 */
        refused(d, (sp_qsort_opts){256, 4096, 8192}, "cutoff");
        refused(d, (sp_qsort_opts){32, 32, 513}, "cutoff");
        accepted(d, (sp_qsort_opts){32, 32, 512});
        accepted(d, (sp_qsort_opts){256, 4096, 4096});
        accepted(d, (sp_qsort_opts){96, 96, 1000});
    }
    refused(SP_QSORT_THREAD, (sp_qsort_opts){128, 4096, 0}, "cutoff");
    refused(SP_QSORT_THREAD, (sp_qsort_opts){128, 4096, 15}, "cutoff");
    refused(SP_QSORT_THREAD, (sp_qsort_opts){128, 4096, SP_QSORT_THREAD_CUTOFF_MAX + 1},
            "cutoff");
    accepted(SP_QSORT_THREAD, (sp_qsort_opts){32, 32, 16});
    /* the GPU sort harness's own defaults (sort_gpu.h) suit every design */
    for (int i = 0; i < 3; i++)
        accepted(designs[i], (sp_qsort_opts){256, 256, 2048});
    accepted(SP_QSORT_THREAD, (sp_qsort_opts){128, 4096, SP_QSORT_THREAD_CUTOFF_MAX});
}

Test(qsort_opts, unknown_design_and_no_options)
{
    sp_err err;
    sp_qsort_opts o = sp_qsort_defaults(SP_QSORT_BLOCK);
    cr_assert_eq(sp_qsort_check_opts((sp_qsort_design)7, &o, &err), -1);
    cr_assert_not_null(strstr(err.msg, "design"), "%s", err.msg);
    cr_assert_eq(sp_qsort_check_opts(SP_QSORT_BLOCK, NULL, &err), -1);
    cr_assert_not_null(strstr(err.msg, "options"), "%s", err.msg);
}

Test(qsort_opts, design_names_round_trip)
{
    for (int i = 0; i < 3; i++) {
        sp_qsort_design d;
        cr_assert_eq(sp_qsort_design_find(sp_qsort_design_name(designs[i]), &d), 0);
        cr_assert_eq(d, designs[i]);
    }
    sp_qsort_design d;
    cr_assert_eq(sp_qsort_design_find("bitonic", &d), -1);
    cr_assert_eq(sp_qsort_design_find(NULL, &d), -1);
    cr_assert_null(sp_qsort_design_name((sp_qsort_design)3));
}

Test(qsort_layout, leaf_items_and_shared_memory)
{
    cr_assert_eq(sp_qsort_leaf_items(512, 8192), 16);
    cr_assert_eq(sp_qsort_leaf_items(1024, 8192), 8);
    cr_assert_eq(sp_qsort_leaf_items(32, 16), 1);
    cr_assert_eq(sp_qsort_leaf_items(96, 100), 2);
    cr_assert_eq(sp_qsort_leaf_items(96, 1000), 16);
    /* splitters, offsets, the window's bases, counts and starts, 22 bytes a key */
    cr_assert_eq(sp_qsort_smem_scatter(4096), 1024 + 4096 + 4096 + 4096 + 22 * 4096);
    /* an odd window: the buckets' array rounded up to 4 bytes */
    cr_assert_eq(sp_qsort_smem_scatter(4095), 1024 + 4096 + 4096 + 4096 + 22 * 4095 + 2);
    /* a window held in registers: reordered keys, values and buckets only */
    cr_assert_eq(sp_qsort_smem_scatter_regs(4096), 1024 + 4096 + 4096 + 4096 + 10 * 4096);
    /* 8192 keys, positions (both padded by 1/32) and values, plus the
     * scan's 33 x 4 words, then min, max, a flag and 16 digit starts (32
     * words), then 8192 counters of the counting pass */
    cr_assert_eq(sp_qsort_smem_leaf(512, 8192), 8192 * 12 + 2 * 256 * 4 + 1056 + 128 + 32768);
    /* 96 x 16 = 1536 keys: 1024 counters (a power of two) */
    cr_assert_eq(sp_qsort_smem_leaf(96, 1000), 1536 * 12 + 2 * 48 * 4 + 1056 + 128 + 4096);
    /* the queue's block: 7168 bytes kept, then the largest of samples,
     * window and block-local sort */
    cr_assert_eq(sp_qsort_smem_queue(512, 2048, 8192), 7168 + 8192 * 12 + 2048 + 1184 + 32768);
    cr_assert_eq(sp_qsort_smem_queue(512, 8192, 8192), 7168 + 4096 + 4096 + 22 * 8192);
    cr_assert_eq(sp_qsort_smem_queue(32, 32, 16), 7168 + 16384);
    for (int w = 32; w <= SP_QSORT_WINDOW_MAX; w *= 2)
        cr_assert_leq(sp_qsort_smem_queue(512, w, 8192), SP_QSORT_SMEM_MAX);
}

/* Hand-computed capacities for n = 1000003 at the block defaults
 * (cutoff 8192, window 4096: tiles of 32768). */
Test(qsort_layout, capacities_by_hand)
{
    sp_qsort_layout L;
    sp_err err;
    sp_qsort_opts o = {512, 4096, 8192};
    cr_assert_eq(sp_qsort_plan(SP_QSORT_BLOCK, 1000003, 1, &o, &L, &err), 0, "%s", err.msg);
    cr_assert_eq(L.target, 8192);
    cr_assert_eq(L.tile, 32768);
    cr_assert_eq(L.seg_cap, 1000003 / 8193 + 2);         /* 124 */
    cr_assert_eq(L.tile_cap, 1000003 / 32768 + 124 + 1); /* 155 */
    cr_assert_eq(L.cnt_cap, 511 * (30 + 1) + 5 * 1000003 / 8192 + 124); /* 16575 */
    cr_assert_eq(L.leaf_cap, 5 * 1000003 / 8192 + 1000003 / 65536 + 16); /* 641 */
    cr_assert_eq(L.tl_cap, 0);
    cr_assert_eq(L.queue_cap, 0);
    /* thread: wide passes down to cutoff, then threads down to 16 keys */
    o = (sp_qsort_opts){128, 4096, 4096};
    cr_assert_eq(sp_qsort_plan(SP_QSORT_THREAD, 1000003, 0, &o, &L, &err), 0, "%s", err.msg);
    cr_assert_eq(L.target, 4096);
    cr_assert_eq(L.seg_cap, 1000003 / 4097 + 2);
    cr_assert_eq(L.tl_cap, 1000003 / 17 + SP_QSORT_MAX_LEVELS * (5 * 1000003 / 4096 + 1) + 16);
    cr_assert_eq(L.tmp_vals, L.tmp_keys + 4000256, "no values: an empty array");
    o = (sp_qsort_opts){512, 2048, 8192};
    cr_assert_eq(sp_qsort_plan(SP_QSORT_QUEUE, 1000003, 1, &o, &L, &err), 0, "%s", err.msg);
    cr_assert_eq(L.queue_cap, 1000003 / 8193 + 1000003 / 65536 + 2 * 511 + 4096);
}

/* Every array 256-aligned, in order, disjoint, inside the total; the
 * temporary keys (and values) hold n each. */
static void check_layout(sp_qsort_design d, int64_t n, int vals, sp_qsort_opts o)
{
    sp_qsort_layout L;
    sp_err err;
    cr_assert_eq(sp_qsort_plan(d, n, vals, &o, &L, &err), 0, "%s", err.msg);
    size_t at[] = {L.tmp_keys, L.tmp_vals, L.segs[0], L.segs[1], L.info, L.splitters, L.cnt,
                   L.part, L.leaf, L.ctr, L.tl[0], L.tl[1], L.queue, L.total};
    size_t need[] = {(size_t)n * 4, vals ? (size_t)n * 4 : 0, L.seg_cap * 16, L.seg_cap * 16,
                     L.seg_cap * 24, L.seg_cap * 1024, L.cnt_cap * 4, L.part_cap * 4,
                     L.leaf_cap * 16, 256, L.tl_cap * 16, L.tl_cap * 16, L.queue_cap * 32};
    for (int i = 0; i < 13; i++) {
        cr_assert_eq(at[i] % 256, 0, "array %d at %zu", i, at[i]);
        cr_assert_geq(at[i + 1] - at[i], need[i], "array %d: %zu bytes for %zu", i,
                      at[i + 1] - at[i], need[i]);
        cr_assert_lt(at[i + 1] - at[i], need[i] + 256, "array %d padded by less than 256", i);
    }
    cr_assert_geq(L.part_cap * 4096, L.cnt_cap, "a chunk sum per 4096 counters");
    size_t ws = d == SP_QSORT_THREAD  ? sp_qsort_thread_workspace(n, vals, &o)
                : d == SP_QSORT_BLOCK ? sp_qsort_block_workspace(n, vals, &o)
                                      : sp_qsort_queue_workspace(n, vals, &o);
    cr_assert_eq(ws, L.total);
}

Test(qsort_layout, arrays_aligned_disjoint_and_growing)
{
    int64_t sizes[] = {0, 1, 2, 31, 33, 1000003, (1 << 20) + 7, 1 << 24, 1LL << 28};
    for (int i = 0; i < 3; i++) {
        sp_qsort_opts o = sp_qsort_defaults(designs[i]);
        size_t prev = 0;
        for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++) {
            check_layout(designs[i], sizes[j], 0, o);
            check_layout(designs[i], sizes[j], 1, o);
            sp_qsort_layout K, V;
            cr_assert_eq(sp_qsort_plan(designs[i], sizes[j], 0, &o, &K, NULL), 0);
            cr_assert_eq(sp_qsort_plan(designs[i], sizes[j], 1, &o, &V, NULL), 0);
            cr_assert_geq(V.total, K.total + 4 * (size_t)sizes[j], "values need n more words");
            cr_assert_geq(K.total, prev, "%s: workspace shrinks at n = %lld",
                          sp_qsort_design_name(designs[i]), (long long)sizes[j]);
            prev = K.total;
        }
    }
    /* the smallest options give the largest lists, still laid out */
    check_layout(SP_QSORT_BLOCK, 1000003, 1, (sp_qsort_opts){32, 32, 16});
    check_layout(SP_QSORT_QUEUE, 1000003, 1, (sp_qsort_opts){32, 32, 16});
    check_layout(SP_QSORT_THREAD, 1000003, 1, (sp_qsort_opts){32, 32, 16});
}

Test(qsort_layout, workspace_at_2_28_pairs_stays_modest)
{
    /* the default block design at 2^28 pairs: 2 GiB of temporary keys and
     * values plus well under 10% more */
    sp_qsort_opts o = sp_qsort_defaults(SP_QSORT_BLOCK);
    size_t ws = sp_qsort_block_workspace(1LL << 28, 1, &o);
    cr_assert_geq(ws, (size_t)2 << 30);
    cr_assert_lt(ws, (size_t)2 << 30 | (size_t)200 << 20, "%zu bytes", ws);
}

Test(qsort_layout, bad_n_is_refused)
{
    sp_qsort_opts o = sp_qsort_defaults(SP_QSORT_BLOCK);
    sp_qsort_layout L;
    sp_err err;
    cr_assert_eq(sp_qsort_plan(SP_QSORT_BLOCK, -1, 0, &o, &L, &err), -1);
    cr_assert_not_null(strstr(err.msg, "n = -1"), "%s", err.msg);
    cr_assert_eq(sp_qsort_plan(SP_QSORT_BLOCK, SP_QSORT_N_MAX + 1, 0, &o, &L, &err), -1);
    cr_assert_eq(sp_qsort_block_workspace(-5, 0, &o), 0);
    cr_assert_eq(sp_qsort_block_workspace(3, 0, NULL), 0);
}

/* The three designs are registered for `sort` with the axes values,
 * blocksize, window, cutoff, and their default axis values pass the
 * design's own check and equal sp_qsort_defaults. */
Test(qsort_opts, registered_with_checked_defaults)
{
    const char *names[] = {"sort_qsort_cuda_thread", "sort_qsort_cuda_block",
                           "sort_qsort_cuda_queue"};
    const char *axes[] = {"values", "blocksize", "window", "cutoff"};
    for (int i = 0; i < 3; i++) {
        const sp_kernel *k = sp_kernel_find(names[i]);
        cr_assert_not_null(k, "%s not registered", names[i]);
        cr_assert_str_eq(k->operation, "sort");
        cr_assert(k->needs_gpu);
        cr_assert_eq(k->naxes, 4);
        for (int a = 0; a < 4; a++)
            cr_assert_str_eq(k->axes[a].name, axes[a]);
        sp_qsort_opts o = {atoi(k->axes[1].defaults), atoi(k->axes[2].defaults),
                           atoi(k->axes[3].defaults)};
        sp_qsort_opts d = sp_qsort_defaults(designs[i]);
        cr_assert(o.blocksize == d.blocksize && o.window == d.window && o.cutoff == d.cutoff,
                  "%s: axis defaults differ from sp_qsort_defaults", names[i]);
        accepted(designs[i], o);
    }
}

#ifndef SP_HAVE_CUDA
Test(qsort_opts, sorts_refuse_without_cuda)
{
    uint32_t k[3] = {3, 1, 2};
    sp_qsort_opts o = sp_qsort_defaults(SP_QSORT_BLOCK);
    sp_err err;
    cr_assert_eq(sp_qsort_host(SP_QSORT_BLOCK, k, NULL, 3, &o, &err), -1);
    cr_assert_not_null(strstr(err.msg, "without CUDA"), "%s", err.msg);
    cr_assert_eq(sp_qsort_block(k, NULL, 3, NULL, &o, 0, &err), -1);
    cr_assert_not_null(strstr(err.msg, "without CUDA"), "%s", err.msg);
    cr_assert_eq(sp_qsort_queue(k, NULL, 1, NULL, &o, 0, &err), 0, "n = 1: nothing to do");
    o.blocksize = 33;
    cr_assert_eq(sp_qsort_thread(k, NULL, 3, NULL, &o, 0, &err), -1);
    cr_assert_not_null(strstr(err.msg, "blocksize"), "%s", err.msg);
}
#endif
