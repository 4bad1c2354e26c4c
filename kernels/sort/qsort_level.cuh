/*
 * qsort_level.cuh — what the three designs share on the host side: the
 * workspace carved into arrays (qs_ctx), one wide partition pass over every
 * subproblem of a level with many blocks per subproblem (qs_level), the
 * block-local sorts and copies of a task list (qs_leaves), and the device
 * work queue's push.
 */
#ifndef SP_QSORT_LEVEL_CUH
#define SP_QSORT_LEVEL_CUH

#include "../cuda_check.h"
#include "qsort_dev.cuh"

/* One slot of the device queue: a task and its turn (Vyukov's bounded
 * queue: a producer of ticket t waits for seq == t, publishes t + 1; the
 * consumer of t waits for t + 1 and frees the slot with t + cap). */
struct qs_slot {
    qs_seg task;
    unsigned long long seq, pad;
};
struct qs_queue {
    qs_slot *slot;
    unsigned long long cap;
    qs_ctr *ctr;
};

/* Push a task (one thread). pending counts it before it is visible, so
 * the queue is never seen empty while work remains. */
__device__ inline void qs_push(qs_queue q, qs_seg t)
{
    atomicAdd(&q.ctr->q_pending, 1ull);
    unsigned long long tk = atomicAdd(&q.ctr->q_tail, 1ull);
    qs_slot *s = &q.slot[tk % q.cap];
    while (*(volatile unsigned long long *)&s->seq != tk)
        __nanosleep(64);
    volatile qs_seg *vt = &s->task;
    vt->start = t.start;
    vt->len = t.len;
    vt->info = t.info;
    __threadfence();
    *(volatile unsigned long long *)&s->seq = tk + 1;
}

/* Where the buckets of a wide pass go. */
enum qs_mode { QS_MODE_BLOCK, QS_MODE_THREAD, QS_MODE_QUEUE };

struct qs_ctx {
    sp_qsort_design design;
    sp_qsort_opts o;
    sp_qsort_layout L;
    int64_t n;
    unsigned *buf[2], *vbuf[2]; /* [0]: the caller's arrays, [1]: the workspace's */
    qs_seg *segs[2], *leaf, *tl[2];
    qs_info *info;
    unsigned *spl, *cnt, *part;
    qs_ctr *ctr;
    qs_queue q;
    cudaStream_t st;
    int items; /* keys per thread of the block-local sort */
};

/* Carve the workspace; check the options and n. */
int qs_ctx_init(qs_ctx *c, sp_qsort_design d, uint32_t *keys, uint32_t *vals, int64_t n,
                void *ws, const sp_qsort_opts *o, cudaStream_t st, sp_err *err);

/* One wide pass over the nsegs subproblems in c->segs[cur], all in buffer
 * level & 1: sample, count, scan, scatter to the other buffer, and hand
 * out the buckets by mode (next level, task list, thread list or queue).
 * tiles_max bounds the tiles (n / tile + nsegs). */
int qs_level(qs_ctx *c, int level, int cur, unsigned nsegs, qs_mode mode, sp_err *err);

/* Run the nleaf tasks of c->leaf (block-local sorts and copies). */
int qs_leaves(qs_ctx *c, unsigned nleaf, sp_err *err);

/* Block-local sort of the whole array in place (n <= cutoff). */
int qs_small(qs_ctx *c, sp_err *err);

/* Read the counters (synchronises the stream). A host synchronisation
 * inside the kernel's launch (sort_gpu.h), kept on purpose: the thread and
 * block designs size the next level's launches from counts decided on the
 * device; the queue design reads nothing back. */
int qs_read_ctr(qs_ctx *c, qs_ctr *h, sp_err *err);

/* Put one subproblem [0, n) of buffer 0 in c->segs[0]. */
int qs_first_seg(qs_ctx *c, sp_err *err);

/* Zero all counters / only the per-level ones (nnext, nleaf). */
int qs_reset(qs_ctx *c, sp_err *err);
int qs_reset_level(qs_ctx *c, sp_err *err);

/* Phase timing for bench/qsort_gpu.cu: when qs_profile is set, each
 * phase ends with an event and a synchronisation, and its milliseconds are
 * added to qs_profile->ms[phase]. NULL (off) unless a benchmark sets it:
 * the runner never does, so a kernel's launch records no event and
 * waits for none here (the runner's harness owns the clock). */
enum {
    QS_PH_SAMPLE, QS_PH_COUNT, QS_PH_SCAN, QS_PH_SCATTER, QS_PH_CHILDREN, QS_PH_LEAVES,
    QS_PH_THREAD, QS_PH_QUEUE, QS_PH_N
};
struct qs_prof {
    double ms[QS_PH_N];
    cudaEvent_t last;
    int started;
};
extern qs_prof *qs_profile;
/* End phase `phase` (< 0: just start the clock). */
void qs_phase(cudaStream_t st, int phase);

#endif
