/*
 * sort_gpu.h — the harness every GPU sort kernel runs in (sort_gpu.cu):
 * a design is one function that sorts n keys (and values) in place on a
 * stream with a workspace it sized itself; the harness does the rest.
 * The clock is the runner's (runner/exec/harness.c): reset and launch enqueue
 * on its stream (sp_exec.stream).
 *
 *   need     the axes checked (the harness's ranges, then design->check:
 *            a combination refused here is stored as skipped, with the reason);
 *            device: the input copy, the keys, the values, the workspace
 *            (design->workspace, pure arithmetic: need runs in the parent,
 *            which never touches CUDA), each rounded to 2 MiB pages
 *   prepare  host only: axes (values, blocksize, window, cutoff) and the
 *            state (the harness times it as the conversion phase)
 *   upload   the device arrays, the workspace and the input keys copied up
 *            (the h2d phase)
 *   reset    untimed, before every warm-up launch and sample: the input keys
 *            copied back device to device and the values set to the
 *            positions 0..n-1
 *   launch   design->sort on the runner's stream; a failed call or a
 *            launch error becomes the launch's error
 *   result   keys (and values) device -> host (the d2h phase), with the header
 *            saying values and the design's stability claim (sort.h)
 *   release  everything, in any state prepare left
 *
 * A kernel descriptor is a few lines (kernels/sort/sort_cub.c):
 *
 *   SP_SORT_GPU_DESIGN(qsort_block, "sort_qsort_block", 0, sp_qsort_block,
 *                      sp_qsort_block_workspace)
 *   const sp_kernel sp_sort_qsort_block = {
 *       .name = "sort_qsort_block", .operation = "sort", .format = "keys",
 *       .backend = "cuda", .summary = "...", .needs_gpu = 1, .naxes = 4,
 *       .axes = {{"values", SP_SORT_VALUES}, {"blocksize", "..."},
 *                {"window", "..."}, {"cutoff", "..."}},
 *       SP_SORT_GPU_FNS(qsort_block),
 *   };
 *
 * In a CPU-only build the entry points but need are NULL: the runner
 * skips the kernel with the reason.
 */
#ifndef SP_SORT_GPU_H
#define SP_SORT_GPU_H

#include "sort.h"

/* The quicksort designs' header (kernels/sort/qsort_gpu.h) declares
 * sp_qsort_opts too: included first when it is there, so the two headers
 * can be included in either order. */
#if defined(__has_include)
#if __has_include("qsort_gpu.h")
#include "qsort_gpu.h"
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The same declaration as CUDA's driver_types.h (a repeated identical
 * typedef is valid C11 and C++), so this header builds without CUDA. */
typedef struct CUstream_st *cudaStream_t;

/* The tuning axes of a design (as qsort_gpu.h declares them). */
#ifndef SP_QSORT_GPU_H
typedef struct sp_qsort_opts {
    int blocksize, window, cutoff;
} sp_qsort_opts;
#endif

/* Defaults of the tuning axes when a kernel does not declare them. */
#define SP_SORT_GPU_BLOCKSIZE 256
#define SP_SORT_GPU_WINDOW 256
#define SP_SORT_GPU_CUTOFF 2048

/* Device bytes of workspace a design needs for n keys (with_vals: pairs).
 * Pure arithmetic, no CUDA call. */
typedef size_t (*sp_sort_gpu_workspace_fn)(int64_t n, int with_vals, const sp_qsort_opts *o);
/* Sort keys[0..n) (and vals[0..n), unless NULL) ascending, in place, on
 * stream, with `workspace` of workspace_fn's size: enqueued, not waited for
 * (a design that must read a device-decided size back synchronizes the
 * stream for it and says so). 0, or -1 with err. */
typedef int (*sp_sort_gpu_fn)(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                              const sp_qsort_opts *o, cudaStream_t stream, sp_err *err);

/* 0 when the design can run with o; else -1 with the reason naming the
 * axis. Plain C: need calls it in the parent, so a combination the design
 * cannot take is recorded as skipped with the reason, never run. */
typedef int (*sp_sort_gpu_check_fn)(const sp_qsort_opts *o, sp_err *err);

typedef struct sp_sort_gpu_design {
    const char *name;                   /* the kernel's name, for messages */
    int stable;                         /* claims equal keys keep their order */
    sp_sort_gpu_fn sort;
    sp_sort_gpu_workspace_fn workspace;
    sp_sort_gpu_check_fn check;         /* optional */
} sp_sort_gpu_design;

/* The axes of a combination: values (default 1) and the tuning options
 * (defaults above), each checked: values 0/1, blocksize 1..1024, window
 * and cutoff >= 1. */
int sp_sort_gpu_axes(const char *kernel, const sp_params *p, int *values, sp_qsort_opts *o,
                     sp_err *err);
/* The same, then the design's own check (when it has one). */
int sp_sort_gpu_design_axes(const sp_sort_gpu_design *d, const sp_params *p, int *values,
                            sp_qsort_opts *o, sp_err *err);

/* sp_kernel.need: device arrays and workspace, as above. Plain C. */
int sp_sort_gpu_need(const sp_sort_gpu_design *d, const sp_problem *pb, const sp_params *p,
                     sp_need *need, sp_err *err);

/* ---- CUDA entry points (sort_gpu.cu) -------------------------------------- */
int sp_sort_gpu_prepare(const sp_sort_gpu_design *d, const sp_problem *pb, const sp_params *p,
                        void **state, sp_err *err);
int sp_sort_gpu_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_sort_gpu_reset(void *state, const sp_exec *ex, sp_err *err);
int sp_sort_gpu_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_sort_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_sort_gpu_release(void *state);

/* Define design `id` and its prepare/need wrappers (static), for a kernel
 * descriptor's SP_SORT_GPU_FNS(id); _CHECKED adds the design's axis check.
 * The workspace and check functions are plain C and stay in a CPU-only
 * build (need states the memory there too); the sort function and prepare
 * exist only with CUDA. */
#define SP_SORT_GPU_DESIGN(id, kname, is_stable, sort_fn, workspace_fn)                     \
    SP_SORT_GPU_DESIGN_CHECKED(id, kname, is_stable, sort_fn, workspace_fn, NULL)
#define SP_SORT_GPU_DESIGN_CHECKED(id, kname, is_stable, sort_fn, workspace_fn, check_fn)   \
    static const sp_sort_gpu_design id##_design = {kname, is_stable, SP_GPU_FN(sort_fn),    \
                                                   workspace_fn, check_fn};                 \
    SP_SORT_GPU_PREPARE(id)                                                                 \
    static int id##_need(const sp_problem *pb, const sp_params *p, sp_need *need,           \
                         sp_err *err)                                                       \
    {                                                                                       \
        return sp_sort_gpu_need(&id##_design, pb, p, need, err);                            \
    }
#ifdef SP_HAVE_CUDA
#define SP_SORT_GPU_PREPARE(id)                                                             \
    static int id##_prepare(const sp_problem *pb, const sp_params *p, void **state,         \
                            sp_err *err)                                                    \
    {                                                                                       \
        return sp_sort_gpu_prepare(&id##_design, pb, p, state, err);                        \
    }
#else
#define SP_SORT_GPU_PREPARE(id)
#endif

/* The entry points of design `id` in an sp_kernel initialiser. */
#define SP_SORT_GPU_FNS(id)                                                                 \
    .prepare = SP_GPU_FN(id##_prepare), .upload = SP_GPU_FN(sp_sort_gpu_upload),          \
    .launch = SP_GPU_FN(sp_sort_gpu_launch),                                                \
    .reset = SP_GPU_FN(sp_sort_gpu_reset), .result = SP_GPU_FN(sp_sort_gpu_result),       \
    .release = SP_GPU_FN(sp_sort_gpu_release), .need = id##_need

/* ---- CUB DeviceRadixSort (sort_cub.cu): the vendor baseline, as a design.
 * Keys alone (vals NULL) or pairs, all 32 bits, through cub::DoubleBuffer
 * (the workspace holds the alternate buffers and CUB's temporary storage);
 * when CUB leaves the result in the alternate buffer it is copied back
 * inside the timed part. Stable (LSD radix sort). */
int sp_sort_cub(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                const sp_qsort_opts *o, cudaStream_t stream, sp_err *err);
/* Alternate buffers plus CUB's temporary storage, estimated from above
 * without CUDA (sp_sort_cub checks the estimate against CUB's own query
 * and fails, naming both, if it ever falls short). Plain C (sort_cub.c). */
size_t sp_sort_cub_workspace(int64_t n, int with_vals, const sp_qsort_opts *o);
/* The alternate buffers at the start of that workspace: n keys (and n
 * values), each 256-byte aligned. */
size_t sp_sort_cub_alt_bytes(int64_t n, int with_vals);
/* CUB's own temporary-storage query (needs a device), for the tests. */
int sp_sort_cub_temp_bytes(int64_t n, int with_vals, size_t *bytes, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
