/*
 * qsort_block.cu — GPU quicksort, one block per tile of a subproblem, levels
 * launched from the host: every level is one wide pass (qsort_level.cu)
 * over all subproblems still longer than `cutoff`, then one block per
 * shorter bucket sorts it in shared memory (qs_leaf_sort) straight into the
 * caller's arrays. The host reads two counters per level.
 */
#include "qsort_level.cuh"

extern "C" int sp_qsort_block(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                              const sp_qsort_opts *o, cudaStream_t stream, sp_err *err)
{
    qs_ctx c;
    if (qs_ctx_init(&c, SP_QSORT_BLOCK, keys, vals, n, workspace, o, stream, err))
        return -1;
    if (n < 2)
        return 0;
    if (n <= o->cutoff)
        return qs_small(&c, err);
    if (qs_first_seg(&c, err))
        return -1;
    if (qs_reset(&c, err))
        return -1;
    unsigned nsegs = 1;
    for (int level = 0, cur = 0; nsegs > 0; level++, cur ^= 1) {
        if (level >= SP_QSORT_MAX_LEVELS)
            return sp_fail(err, "qsort_block: %u subproblems left after %d levels", nsegs,
                           level);
        if (qs_reset_level(&c, err) || qs_level(&c, level, cur, nsegs, QS_MODE_BLOCK, err))
            return -1;
        qs_ctr h;
        if (qs_read_ctr(&c, &h, err) || qs_leaves(&c, h.nleaf, err))
            return -1;
        nsegs = h.nnext;
    }
    return 0;
}
