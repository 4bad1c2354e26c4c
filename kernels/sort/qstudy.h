/*
 * qstudy.h — the 14 GPU quicksort variants of study 004
 * (shared/seeds/004-gpu-quicksort.txt, R. Scalia), as the seed describes
 * them, for the study config configs/studies/004-quicksort.ini (issue 20,
 * item 4). They are meant to be faithful, not fast: every one partitions
 * around the LAST key of a subproblem (keys <= pivot left, > pivot right,
 * the pivot between), walks the call tree one level at a time from the
 * host, and after each level copies the new subproblems back to the host,
 * which drops the finished ones (the seed's clean_vector) and launches the
 * next level.
 *
 * Naming: one registry kernel per variant, `sort_qsort_studyN` for the
 * seed's implementation N and `sort_qsort_studyN_rK` for its refinement K,
 * so `grep sort_qsort_study` lists all 14 and each name reads as the
 * seed's section title. (One kernel with a `refinement` axis would put
 * three different algorithms behind one name in the results.)
 *
 *   1      a thread per subproblem, serial Lomuto partition in place
 *   2      a thread per key through the Map: each key into Smaller or
 *          Greater (holes between); then a thread per subproblem compacts
 *          them back serially (2 kernels a level)
 *   3      2, but once every subproblem fits one block (`blocksize` keys),
 *          a block per subproblem does both steps in one kernel, no Map
 *   3 R1   3 with 4 keys a thread in that phase
 *   3 R2   3 with Smaller/Greater in shared memory in that phase
 *   4      3 without the Map: the wide phase launches a thread per key of
 *          the whole array, each finding its subproblem (binary search of
 *          the sorted list of subproblems); 4 R1, 4 R2 likewise from 3's
 *   5      (Tsigas et al.) a thread per key through the Map counts the
 *          keys that go before it (<= pivot: the smaller ones on its left;
 *          > pivot: the greater ones on its right) and writes out of place;
 *          the host copies the result back; a thread per subproblem writes
 *          the children from the pivots' positions; one block-per-
 *          subproblem kernel once every subproblem fits a block
 *   5 R1   5 with that block phase counting in shared memory
 *   6      5 without the Map (as 4 is 3 without it)
 *   7      6 with one kernel a level: the children are made on the host
 *          from the pivots' positions
 *   8      a block of `window` threads per subproblem sliding over it:
 *          flags in shared memory (Cache), each thread's own serial scan of
 *          them (Scan_Cache), then thread 0 makes the swaps in order (the
 *          seed's serial writes: a Lomuto partition, window by window)
 *   9      2 with the compaction in parallel: a block of `window` threads
 *          per subproblem slides over Smaller, then Greater, writing the
 *          keys that are not holes at scanned offsets
 *
 * What differs from the seed (OpenCL 1.2 on a GTX 780): CUDA; keys span
 * all 32 bits, so a hole in Smaller/Greater is a flag byte beside the key,
 * not the value -1; values (the `values` axis) travel with their keys.
 *
 * Bounds. With the last key as pivot, sorted, reverse and equal keys make
 * the tree n levels deep and the serial parts quadratic. Before anything
 * runs, need and prepare plan the sort on the host (sp_qstudy_plan: the
 * variant's own partition, level by level, on a copy of the keys) and
 * refuse, naming the limit, an input whose tree is deeper than
 * SP_QSTUDY_LEVELS_MAX, whose serial work (the longest subproblem of each
 * level, summed) passes SP_QSTUDY_SERIAL_MAX, whose counting work (5, 6,
 * 7: len^2 per subproblem) passes SP_QSTUDY_PAIRS_MAX, or whose planning
 * itself would pass SP_QSTUDY_VISITS_MAX. The host loop stops with an
 * error at SP_QSTUDY_LEVELS_MAX levels too.
 *
 * Plain C (qstudy_plan.c): the variant table, option checks, the plan,
 * the workspace layout and the host's per-level list updates; CUDA:
 * qstudy_dev.cuh (device helpers), qstudy_kernels.cu (the kernels),
 * qstudy_driver.cu (the one host driver of all 14), qstudy_registry.c.
 */
#ifndef SP_QSTUDY_H
#define SP_QSTUDY_H

#include <stddef.h>
#include <stdint.h>

#include "sort_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_qstudy_variant {
    SP_QSTUDY_1,
    SP_QSTUDY_2,
    SP_QSTUDY_3,
    SP_QSTUDY_3_R1,
    SP_QSTUDY_3_R2,
    SP_QSTUDY_4,
    SP_QSTUDY_4_R1,
    SP_QSTUDY_4_R2,
    SP_QSTUDY_5,
    SP_QSTUDY_5_R1,
    SP_QSTUDY_6,
    SP_QSTUDY_7,
    SP_QSTUDY_8,
    SP_QSTUDY_9,
    SP_QSTUDY_NVARIANTS
} sp_qstudy_variant;

/* How a variant works, as flags the one driver reads. */
typedef struct sp_qstudy_info {
    const char *kernel;     /* registry name, "sort_qsort_study3_r1" */
    const char *seed;       /* the seed's name, "3 R1" */
    int lomuto;             /* 1: in-place Lomuto partition (1, 8); 0: stable split */
    int map;                /* the wide phase goes through the Map (2, 3, 5, 9) */
    int counting;           /* positions by counting, out of place (5, 6, 7) */
    int block_phase;        /* a block per subproblem once all fit `blocksize` keys */
    int items;              /* keys per thread in that phase (3 R1, 4 R1: 4) */
    int shared;             /* that phase in shared memory (3 R2, 4 R2, 5 R1) */
    int host_update;        /* the children made on the host from the pivots (7) */
    int windowed;           /* a block of `window` threads per subproblem (8, 9) */
    int serial;             /* one thread walks a whole subproblem (all but 9) */
} sp_qstudy_info;

const sp_qstudy_info *sp_qstudy_info_of(sp_qstudy_variant v);

/* ---- bounds (see above) ----------------------------------------------- */
#define SP_QSTUDY_LEVELS_MAX 8192
#define SP_QSTUDY_SERIAL_MAX (1LL << 26)
#define SP_QSTUDY_PAIRS_MAX (1LL << 42)
#define SP_QSTUDY_VISITS_MAX (1LL << 30)
#define SP_QSTUDY_N_MAX (1LL << 30)     /* 32-bit subproblem bounds */
#define SP_QSTUDY_ITEMS_R1 4            /* keys per thread of 3 R1, 4 R1 */

/* The defaults of the tuning axes: blocksize 1024 (the study's "largest
 * work-group of the device", the block phase's threshold) for 3-7, 256
 * threads a block for 1, 2, 9's flat launches; window 256 (the study's
 * best) for 8 and 9. */
sp_qsort_opts sp_qstudy_defaults(sp_qstudy_variant v);

/* blocksize a multiple of 32 in 32..1024; window 1..1024 (8, 9: it is the
 * block size). -1 with the axis named. */
int sp_qstudy_check_opts(sp_qstudy_variant v, const sp_qsort_opts *o, sp_err *err);

/* One subproblem, first and last key inclusive; {-1, -1} is a hole (CUDA
 * int2's layout). */
typedef struct sp_qstudy_range {
    int32_t s, e;
} sp_qstudy_range;

/* What a sort of these keys will do, level by level. */
typedef struct sp_qstudy_plan {
    int64_t levels;         /* partition launches (the tree's depth) */
    int64_t serial_steps;   /* sum over levels of the longest subproblem */
    int64_t pair_steps;     /* sum over subproblems of len^2 / 2 (counting) */
    int64_t visits;         /* sum over levels of the keys in subproblems */
    int64_t max_subproblems;
} sp_qstudy_plan;

/* Plan variant v on keys[0..n) (not modified): run its partition on a
 * host copy; 0, or -1 with the bound passed (named, with the numbers). */
int sp_qstudy_plan_keys(sp_qstudy_variant v, const uint32_t *keys, int64_t n,
                        sp_qstudy_plan *pl, sp_err *err);
/* The same on a[0..n) itself, which it sorts as the variant would (up to
 * the level where a bound stops it): the host model of the variant's
 * partitions and list updates, checked by the unit tests. */
int sp_qstudy_plan_sort(sp_qstudy_variant v, uint32_t *a, int64_t n, sp_qstudy_plan *pl,
                        sp_err *err);

/* The children of subproblem [s, e] whose pivot landed at p: out[0] the
 * left [s, p-1], out[1] the right [p+1, e], each {-1, -1} when it holds
 * fewer than 2 keys (solved). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline void sp_qstudy_children(int32_t s, int32_t e, int32_t p, sp_qstudy_range out[2])
{
    out[0].s = p - 1 > s ? s : -1;
    out[0].e = p - 1 > s ? p - 1 : -1;
    out[1].s = e > p + 1 ? p + 1 : -1;
    out[1].e = e > p + 1 ? e : -1;
}

/* clean_vector: the subproblems of app[0..2 nsub) that are not holes,
 * in order, into delims; returns how many. */
int64_t sp_qstudy_clean(const sp_qstudy_range *app, int64_t nsub, sp_qstudy_range *delims);
/* find_next_gws: a work-item per key of every subproblem, map_idx its key
 * and map_sub its subproblem; returns the work-items. */
int64_t sp_qstudy_map(const sp_qstudy_range *delims, int64_t nsub, int32_t *map_idx,
                      int32_t *map_sub);
/* 7's host update: the children of every subproblem from its pivot's
 * position, holes dropped, into next; returns how many. */
int64_t sp_qstudy_next_from_pivots(const sp_qstudy_range *delims, int64_t nsub,
                                   const int32_t *pivots, sp_qstudy_range *next);
/* The longest subproblem of a list. */
int64_t sp_qstudy_longest(const sp_qstudy_range *delims, int64_t nsub);

/* Where each array lies in the workspace (byte offsets, 256-aligned) and
 * the subproblems a level may hold (every one has 2 keys or more). */
typedef struct sp_qstudy_layout {
    int64_t sub_cap;
    size_t delims, app, pivots, map_idx, map_sub, sm_key, sm_val, sm_flag, gr_key, gr_val,
        gr_flag, tmp_key, tmp_val, total;
} sp_qstudy_layout;

int sp_qstudy_layout_of(sp_qstudy_variant v, int64_t n, int with_vals, sp_qstudy_layout *L,
                        sp_err *err);
size_t sp_qstudy_workspace(sp_qstudy_variant v, int64_t n, int with_vals);

/* Host scratch of the driver: the level's list, the new list, the Map
 * (variants with one) and the pivots (7). */
size_t sp_qstudy_host_bytes(sp_qstudy_variant v, int64_t n);

/* need and prepare of variant v's kernel: the harness's (axes, memory),
 * then the plan of these keys; a refused plan is the combination's
 * refusal, with the reason. */
int sp_qstudy_need(sp_qstudy_variant v, const sp_problem *pb, const sp_params *p,
                   sp_need *need, sp_err *err);
int sp_qstudy_prepare(sp_qstudy_variant v, const sp_problem *pb, const sp_params *p,
                      void **state, sp_err *err);

/* The sort (CUDA, qstudy_driver.cu): keys[0..n) (and vals unless NULL)
 * in place on `stream`; synchronizes it once a level to read the new
 * subproblems back. -1 with err on bad options, a level count past
 * SP_QSTUDY_LEVELS_MAX or a CUDA failure. */
int sp_qstudy_sort(sp_qstudy_variant v, uint32_t *keys, uint32_t *vals, int64_t n,
                   void *workspace, const sp_qsort_opts *o, cudaStream_t stream, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
