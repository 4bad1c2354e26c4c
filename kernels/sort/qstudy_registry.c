/*
 * qstudy_registry.c — the registry descriptors of study 004's 14 quicksort
 * variants (qstudy.h), `sort_qsort_study1` .. `sort_qsort_study9`, the
 * refinements as `_r1`/`_r2`, run in the GPU sort harness (sort_gpu.h).
 * need and prepare are the harness's plus the plan of the very keys to be
 * sorted: a variant that cannot finish them in reasonable time (a tree
 * deeper than SP_QSTUDY_LEVELS_MAX, serial or counting work past its
 * bound) is refused there with the reason, and the runner records the
 * combination as skipped. None claims stability. In a CPU-only build the
 * CUDA entry points are NULL and the runner skips them with the reason.
 */
#include "qstudy.h"

/* Per variant: the sort, workspace and axis check the harness's design
 * takes (it has no variant argument), and the design itself. */
#define QST_PER_VARIANT(X)                                                                  \
    X(study1, SP_QSTUDY_1) X(study2, SP_QSTUDY_2) X(study3, SP_QSTUDY_3)                    \
    X(study3_r1, SP_QSTUDY_3_R1) X(study3_r2, SP_QSTUDY_3_R2) X(study4, SP_QSTUDY_4)        \
    X(study4_r1, SP_QSTUDY_4_R1) X(study4_r2, SP_QSTUDY_4_R2) X(study5, SP_QSTUDY_5)        \
    X(study5_r1, SP_QSTUDY_5_R1) X(study6, SP_QSTUDY_6) X(study7, SP_QSTUDY_7)              \
    X(study8, SP_QSTUDY_8) X(study9, SP_QSTUDY_9)

#define QST_FUNCTIONS(id, V)                                                                \
    int sp_qstudy_sort_##id(uint32_t *keys, uint32_t *vals, int64_t n, void *ws,            \
                            const sp_qsort_opts *o, cudaStream_t stream, sp_err *err);      \
    static size_t qst_workspace_##id(int64_t n, int with_vals, const sp_qsort_opts *o)      \
    {                                                                                       \
        (void)o;                                                                            \
        return sp_qstudy_workspace(V, n, with_vals);                                        \
    }                                                                                       \
    static int qst_check_##id(const sp_qsort_opts *o, sp_err *err)                          \
    {                                                                                       \
        return sp_qstudy_check_opts(V, o, err);                                             \
    }
QST_PER_VARIANT(QST_FUNCTIONS)

#define QST_DESIGN(id, V)                                                                   \
    [V] = {"sort_qsort_" #id, 0, SP_GPU_FN(sp_qstudy_sort_##id), qst_workspace_##id,       \
           qst_check_##id},
static const sp_sort_gpu_design designs[SP_QSTUDY_NVARIANTS] = {QST_PER_VARIANT(QST_DESIGN)};

int sp_qstudy_need(sp_qstudy_variant v, const sp_problem *pb, const sp_params *p,
                   sp_need *need, sp_err *err)
{
    if ((unsigned)v >= SP_QSTUDY_NVARIANTS)
        return sp_fail(err, "qstudy: unknown variant %d", (int)v);
    if (sp_sort_gpu_need(&designs[v], pb, p, need, err))
        return -1;
    sp_qstudy_plan pl;
    if (sp_qstudy_plan_keys(v, pb->keys, pb->nkeys, &pl, err))
        return -1;
    /* the driver's lists and Map, and the plan's copy of the keys */
    need->host_bytes += sp_qstudy_host_bytes(v, pb->nkeys) + (uint64_t)pb->nkeys * 8 +
                        (uint64_t)(pb->nkeys / 2 + 1) * 16;
    return 0;
}

#ifdef SP_HAVE_CUDA
int sp_qstudy_prepare(sp_qstudy_variant v, const sp_problem *pb, const sp_params *p,
                      void **state, sp_err *err)
{
    *state = NULL;
    if ((unsigned)v >= SP_QSTUDY_NVARIANTS)
        return sp_fail(err, "qstudy: unknown variant %d", (int)v);
    if (!pb || pb->nkeys < 0 || (!pb->keys && pb->nkeys > 0))
        return sp_fail(err, "%s: problem without keys", designs[v].name);
    sp_qstudy_plan pl;
    if (sp_qstudy_plan_keys(v, pb->keys, pb->nkeys, &pl, err))
        return -1;
    return sp_sort_gpu_prepare(&designs[v], pb, p, state, err);
}
#define QST_PREPARE(id, V)                                                                  \
    static int qst_prepare_##id(const sp_problem *pb, const sp_params *p, void **state,    \
                                sp_err *err)                                                \
    {                                                                                       \
        return sp_qstudy_prepare(V, pb, p, state, err);                                     \
    }
QST_PER_VARIANT(QST_PREPARE)
#endif

#define QST_NEED(id, V)                                                                     \
    static int qst_need_##id(const sp_problem *pb, const sp_params *p, sp_need *need,       \
                             sp_err *err)                                                   \
    {                                                                                       \
        return sp_qstudy_need(V, pb, p, need, err);                                         \
    }
QST_PER_VARIANT(QST_NEED)

#define QST_FNS(id)                                                                         \
    .prepare = SP_GPU_FN(qst_prepare_##id), .upload = SP_GPU_FN(sp_sort_gpu_upload),      \
    .launch = SP_GPU_FN(sp_sort_gpu_launch), .reset = SP_GPU_FN(sp_sort_gpu_reset),       \
    .result = SP_GPU_FN(sp_sort_gpu_result), .release = SP_GPU_FN(sp_sort_gpu_release),   \
    .need = qst_need_##id

/* The axes: blocksize is the threads of a block for the flat launches
 * (1, 2, 9) and, for 3-7, also the study's "largest work-group" below
 * which a block per subproblem takes over; window (8, 9) is the sliding
 * window, the threads of the block per subproblem. */
#define QST_KERNEL(id, text, ...)                                                           \
    const sp_kernel sp_sort_qsort_##id = {                                                  \
        .name = "sort_qsort_" #id,                                                          \
        .operation = "sort",                                                                \
        .format = "keys",                                                                   \
        .backend = "cuda",                                                                  \
        .summary = "study 004 " text " (last-key pivot, levels from the host); unstable",   \
        .needs_gpu = 1,                                                                     \
        .naxes = sizeof((sp_axis[]){__VA_ARGS__}) / sizeof(sp_axis),                        \
        .axes = {__VA_ARGS__},                                                              \
        QST_FNS(id),                                                                        \
    };

/* the values each takes at all (sp_qstudy_check_opts checks them again
 * for callers outside a config) */
#define QST_VALUES {"values", SP_SORT_VALUES, NULL}
#define QST_FLAT {"blocksize", "256", "32..1024:+32"}
#define QST_WG {"blocksize", "1024", "32..1024:+32"}
#define QST_WINDOW {"window", "256", "1..1024"}

QST_KERNEL(study1, "1: a thread per subproblem, serial Lomuto in place", QST_VALUES, QST_FLAT)
QST_KERNEL(study2, "2: a thread per key via the Map into Smaller/Greater, serial compaction",
           QST_VALUES, QST_FLAT)
QST_KERNEL(study3, "3: 2, then a block per subproblem once all fit blocksize keys",
           QST_VALUES, QST_WG)
QST_KERNEL(study3_r1, "3 R1: 3 with 4 keys a thread in the block phase", QST_VALUES, QST_WG)
QST_KERNEL(study3_r2, "3 R2: 3 with Smaller/Greater in shared memory in the block phase",
           QST_VALUES, QST_WG)
QST_KERNEL(study4, "4: 3 without the Map (a thread per key of the array)", QST_VALUES, QST_WG)
QST_KERNEL(study4_r1, "4 R1: 3 R1 without the Map", QST_VALUES, QST_WG)
QST_KERNEL(study4_r2, "4 R2: 3 R2 without the Map", QST_VALUES, QST_WG)
QST_KERNEL(study5, "5: each key counts its place via the Map, out of place (Tsigas)",
           QST_VALUES, QST_WG)
QST_KERNEL(study5_r1, "5 R1: 5 counting in shared memory in the block phase", QST_VALUES,
           QST_WG)
QST_KERNEL(study6, "6: 5 without the Map", QST_VALUES, QST_WG)
QST_KERNEL(study7, "7: 6 with one kernel a level, children made on the host", QST_VALUES,
           QST_WG)
QST_KERNEL(study8, "8: a block per subproblem sliding a window, own scans, serial swaps",
           QST_VALUES, QST_WINDOW)
QST_KERNEL(study9, "9: 2 with a parallel sliding-window compaction", QST_VALUES, QST_FLAT,
           QST_WINDOW)
