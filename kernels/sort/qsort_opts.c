/*
 * qsort_opts.c — the host side of the GPU quicksorts that needs no CUDA:
 * option checks, shared-memory sizes and the workspace layout (the same
 * arithmetic the .cu files launch with, unit-tested in tests/test_qsort.c),
 * plus sp_qsort_host's refusal in a CPU-only build.
 */
#include <string.h>

#include "qsort_gpu.h"

static const char *const design_names[] = {"thread", "block", "queue"};

const char *sp_qsort_design_name(sp_qsort_design d)
{
    return (unsigned)d < 3 ? design_names[d] : NULL;
}

int sp_qsort_design_find(const char *name, sp_qsort_design *d)
{
    for (int i = 0; i < 3; i++)
        if (name && !strcmp(name, design_names[i])) {
            *d = (sp_qsort_design)i;
            return 0;
        }
    return -1;
}

sp_qsort_opts sp_qsort_defaults(sp_qsort_design d)
{
    if (d == SP_QSORT_THREAD)
        return (sp_qsort_opts){.blocksize = 128, .window = 4096, .cutoff = 4096};
    /* block: 1024 threads, window and cut-over 8192 — on the H100 at 2^28
     * uniform pairs 16.06 ms against 19.54 at 512/4096/4096 (the larger
     * cut-over saves the third partition pass; bench/RESULTS.md) */
    if (d == SP_QSORT_BLOCK)
        return (sp_qsort_opts){.blocksize = 1024, .window = 8192, .cutoff = 8192};
    return (sp_qsort_opts){.blocksize = 512, .window = 4096, .cutoff = 4096};
}

int sp_qsort_leaf_items(int blocksize, int cutoff)
{
    int items = 1;
    while ((int64_t)items * blocksize < cutoff)
        items *= 2;
    return items;
}

/* splitters, bucket offsets (64-bit), the window's global bases (64-bit),
 * counts and starts; then per key: the reordered key, value and bucket,
 * and the staged key, value, bucket and rank (the buckets' array rounded
 * up to 4 bytes). */
size_t sp_qsort_smem_scatter(int window)
{
    return 256 * 4 + 512 * 8 + 512 * 8 + 512 * 4 * 2 + (size_t)window * 22 +
           (size_t)(window & 1) * 2;
}

/* A window held in registers stages nothing: 10 bytes a key. */
size_t sp_qsort_smem_scatter_regs(int window)
{
    return 256 * 4 + 512 * 8 + 512 * 8 + 512 * 4 * 2 + (size_t)window * 10;
}

/* keys and positions of cap = items * blocksize keys, padded by one word
 * per 32 (bank-conflict-free blocked reads), their values, the scan's
 * per-warp totals (33 x 4 words x 8 bytes), the minimum, maximum, a flag
 * and 16 digit starts (32 words), and a counter for each sub-bucket of the
 * counting pass (the largest power of two <= cap of them). */
size_t sp_qsort_smem_leaf(int blocksize, int cutoff)
{
    size_t cap = (size_t)sp_qsort_leaf_items(blocksize, cutoff) * blocksize, nbk = 1;
    while (nbk * 2 <= cap)
        nbk *= 2;
    return cap * 12 + 2 * (cap / 32) * 4 + 33 * 4 * 8 + 128 + nbk * 4;
}

/* The persistent block keeps splitters, bucket offsets (64-bit) and the
 * whole range's histogram, and after them, one at a time, the samples, the
 * window (counts, starts, staged keys) or a block-local sort. */
size_t sp_qsort_smem_queue(int blocksize, int window, int cutoff)
{
    size_t region = SP_QSORT_SAMPLES_MAX * 4, win = 512 * 8 + 512 * 4 * 2 + (size_t)window * 22 + (size_t)(window & 1) * 2;
    size_t leaf = sp_qsort_smem_leaf(blocksize, cutoff);
    region = region > win ? region : win;
    region = region > leaf ? region : leaf;
    return 256 * 4 + 512 * 8 + 512 * 4 + region;
}

int sp_qsort_check_opts(sp_qsort_design d, const sp_qsort_opts *o, sp_err *err)
{
    const char *name = sp_qsort_design_name(d);
    if (!name)
        return sp_fail(err, "qsort: unknown design %d", (int)d);
    if (!o)
        return sp_fail(err, "qsort_%s: no options", name);
    int bs = o->blocksize;
    if (bs < 32 || bs > 1024 || bs % 32)
        return sp_fail(err, "qsort_%s: blocksize = %d: must be a multiple of 32 in 32..1024",
                       name, bs);
    if (o->window < bs)
        return sp_fail(err, "qsort_%s: window = %d is below blocksize = %d", name, o->window,
                       bs);
    if (o->window > SP_QSORT_WINDOW_MAX)
        return sp_fail(err,
                       "qsort_%s: window = %d: too big for shared memory (at most %d keys, "
                       "22 bytes each)",
                       name, o->window, SP_QSORT_WINDOW_MAX);
    if (d == SP_QSORT_THREAD) {
        if (o->cutoff < 16 || o->cutoff > SP_QSORT_THREAD_CUTOFF_MAX)
            return sp_fail(err, "qsort_thread: cutoff = %d outside 16..%d", o->cutoff,
                           SP_QSORT_THREAD_CUTOFF_MAX);
        return 0;
    }
    if (o->cutoff < 16)
        return sp_fail(err, "qsort_%s: cutoff = %d is below 16", name, o->cutoff);
    int items = sp_qsort_leaf_items(bs, o->cutoff);
    if (items > SP_QSORT_LEAF_ITEMS_MAX || (int64_t)items * bs > SP_QSORT_LEAF_CAP)
        return sp_fail(err,
                       "qsort_%s: cutoff = %d: the block-local sort holds at most %d keys, "
                       "%d per thread, and would need %d per thread at blocksize = %d",
                       name, o->cutoff, SP_QSORT_LEAF_CAP, SP_QSORT_LEAF_ITEMS_MAX, items, bs);
    size_t smem = d == SP_QSORT_QUEUE ? sp_qsort_smem_queue(bs, o->window, o->cutoff)
                                      : sp_qsort_smem_leaf(bs, o->cutoff);
    if (smem > SP_QSORT_SMEM_MAX)
        return sp_fail(err,
                       "qsort_%s: cutoff = %d: too big for shared memory (%zu bytes at "
                       "blocksize = %d, window = %d; at most %d)",
                       name, o->cutoff, smem, bs, o->window, SP_QSORT_SMEM_MAX);
    return 0;
}

/* Round up to 256 bytes, the alignment of every array. */
static size_t up256(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

/* Place `bytes` at *at and advance it. */
static size_t place(size_t *at, size_t bytes)
{
    size_t here = *at;
    *at += up256(bytes);
    return here;
}

/* The capacities follow from two facts: the subproblems of one level are
 * disjoint and each is longer than the target, and a pass makes at most
 * nb = 2m+1 <= min(511, 4 len/target + 1) buckets of a subproblem of len
 * keys (m + 1 = ceil(2 len / target) range buckets, at most 256). A
 * bound found short is reported (ctr.overflow), never written past. */
int sp_qsort_plan(sp_qsort_design d, int64_t n, int with_vals, const sp_qsort_opts *o,
                  sp_qsort_layout *L, sp_err *err)
{
    memset(L, 0, sizeof *L);
    if (sp_qsort_check_opts(d, o, err))
        return -1;
    if (n < 0 || n > SP_QSORT_N_MAX)
        return sp_fail(err, "qsort_%s: n = %lld outside 0..%lld", sp_qsort_design_name(d),
                       (long long)n, SP_QSORT_N_MAX);
    int64_t target = o->cutoff;
    L->target = target;
    L->tile = (int64_t)o->window * SP_QSORT_TILE_WINDOWS;
    L->seg_cap = n / (target + 1) + 2;
    L->tile_cap = n / L->tile + L->seg_cap + 1;
    /* counters: sum of nb * nt over subproblems, nt <= len / tile + 1 */
    L->cnt_cap = SP_QSORT_BUCKETS * (n / L->tile + 1) + 5 * n / target + L->seg_cap;
    L->part_cap = L->cnt_cap / 4096 + 2;
    L->leaf_cap = 5 * n / target + n / SP_QSORT_COPY_CHUNK + 16;
    if (d == SP_QSORT_THREAD)
        L->tl_cap = n / (SP_QSORT_THREAD_INSERTION + 1) +
                    SP_QSORT_MAX_LEVELS * (5 * n / o->cutoff + 1) + 16;
    if (d == SP_QSORT_QUEUE)
        L->queue_cap = n / (o->cutoff + 1) + n / SP_QSORT_COPY_CHUNK + 2 * SP_QSORT_BUCKETS +
                       4096;
    size_t at = 0;
    L->tmp_keys = place(&at, (size_t)n * 4);
    L->tmp_vals = place(&at, with_vals ? (size_t)n * 4 : 0);
    L->segs[0] = place(&at, (size_t)L->seg_cap * 16);
    L->segs[1] = place(&at, (size_t)L->seg_cap * 16);
    L->info = place(&at, (size_t)L->seg_cap * 24);
    L->splitters = place(&at, (size_t)L->seg_cap * 256 * 4);
    L->cnt = place(&at, (size_t)L->cnt_cap * 4);
    L->part = place(&at, (size_t)L->part_cap * 4);
    L->leaf = place(&at, (size_t)L->leaf_cap * 16);
    L->ctr = place(&at, 256);
    L->tl[0] = place(&at, (size_t)L->tl_cap * 16);
    L->tl[1] = place(&at, (size_t)L->tl_cap * 16);
    L->queue = place(&at, (size_t)L->queue_cap * 32);
    L->total = at;
    return 0;
}

static size_t workspace(sp_qsort_design d, int64_t n, int with_vals, const sp_qsort_opts *o)
{
    sp_qsort_layout L;
    return sp_qsort_plan(d, n, with_vals, o, &L, NULL) ? 0 : L.total;
}

size_t sp_qsort_thread_workspace(int64_t n, int with_vals, const sp_qsort_opts *o)
{
    return workspace(SP_QSORT_THREAD, n, with_vals, o);
}

size_t sp_qsort_block_workspace(int64_t n, int with_vals, const sp_qsort_opts *o)
{
    return workspace(SP_QSORT_BLOCK, n, with_vals, o);
}

size_t sp_qsort_queue_workspace(int64_t n, int with_vals, const sp_qsort_opts *o)
{
    return workspace(SP_QSORT_QUEUE, n, with_vals, o);
}

#ifndef SP_HAVE_CUDA
/* A CPU-only build: the same checks, nothing to do for n < 2, and a
 * refusal for anything else. */
static int no_cuda(sp_qsort_design d, uint32_t *vals, int64_t n, const sp_qsort_opts *o,
                   sp_err *err)
{
    sp_qsort_layout L;
    if (sp_qsort_plan(d, n, vals != NULL, o, &L, err))
        return -1;
    if (n < 2)
        return 0;
    return sp_fail(err, "qsort_%s: spsweep was built without CUDA", sp_qsort_design_name(d));
}

int sp_qsort_thread(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                    const sp_qsort_opts *o, cudaStream_t stream, sp_err *err)
{
    (void)keys, (void)workspace, (void)stream;
    return no_cuda(SP_QSORT_THREAD, vals, n, o, err);
}

int sp_qsort_block(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                   const sp_qsort_opts *o, cudaStream_t stream, sp_err *err)
{
    (void)keys, (void)workspace, (void)stream;
    return no_cuda(SP_QSORT_BLOCK, vals, n, o, err);
}

int sp_qsort_queue(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                   const sp_qsort_opts *o, cudaStream_t stream, sp_err *err)
{
    (void)keys, (void)workspace, (void)stream;
    return no_cuda(SP_QSORT_QUEUE, vals, n, o, err);
}

int sp_qsort_host(sp_qsort_design d, uint32_t *keys, uint32_t *vals, int64_t n,
                  const sp_qsort_opts *o, sp_err *err)
{
    (void)keys;
    if (!sp_qsort_design_name(d))
        return sp_fail(err, "qsort: unknown design %d", (int)d);
    return no_cuda(d, vals, n, o, err);
}
#endif
