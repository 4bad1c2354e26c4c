/*
 * kernel.h — the registry: every kernel spsweep measures declares itself
 * once, as an sp_kernel; every operation (spmv, later transpose and sort)
 * as an sp_operation.
 *
 * The split follows nvbench: a kernel is a few functions plus declared axes;
 * the runner (runner/) owns the plan, timing, repetitions, checking and the
 * database. Kernels never touch SQLite or parse configs.
 *
 * A workload is what an operation runs on: a sparse matrix or an array of
 * 32-bit unsigned keys (sp_workload); an operation states the kinds it takes
 * (sp_operation.workloads) and the plan leaves out the pairs it cannot run.
 *
 * Life of one combination (workload x kernel x axis values), driven by the runner.
 * The harness (runner/exec/harness.c) owns every clock: it times each step below
 * and stores the phases; no kernel reads a clock or records an event.
 *   op->setup(pb, w)                     once per workload: inputs (x for spmv)
 *   op->reference(pb, ref)               once per matrix: serial double reference
 *   k->need(pb, params, &need)           memory the combination will allocate,
 *                                        checked against what is free first
 *   k->prepare(pb, params, &state)       host only: axes checked, the kernel's
 *                                        format built in host memory  -> convert_s
 *   k->upload(state, ex)                 GPU: device allocations and host->device
 *                                        copies                       -> h2d_s
 *   k->analyse(state, ex)                GPU, optional: device-side inspection
 *                                        (a library's analysis, a plan built on
 *                                        the device)                  -> convert_s
 *   k->launch(state, ex)  x warmup       untimed
 *   k->launch(state, ex)  x batch        one stored sample per batch (the kernel
 *                         x repetitions  phase); k->reset(state, ex) before each
 *                                        sample when the kernel has one (untimed)
 *   k->result(state, out, ex)            the output into host memory  -> d2h_s
 *                                        (GPU kernels; a CPU copy is no phase)
 *   op->error(pb, out, ref)              relative error; above the run's tolerance
 *                                        (sp_run_tolerance: the sweep's, or the
 *                                        bound of its precision) = failed
 *   k->release(state)                    everything freed             -> free_s
 */
#ifndef SP_KERNEL_H
#define SP_KERNEL_H

#include <time.h>
#include "../core/clock.h"
#include "../core/records.h"
#include "../core/sparse.h"
#include "../core/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_MAX_AXES 4
/* The harness's own settings a config may sweep per kernel like axes
 * (runner/plan/config.c): `cache = warm,cold` (0 warm, 1 cold),
 * `batch = auto,1,...` (0 auto) and `blocking = off,on` (0 off, 1 on: GPU
 * samples queued behind a blocking kernel, runner/exec/harness.h). A
 * combination carries them after the kernel's axes, under these names,
 * only when its section sets them. */
#define SP_AXIS_CACHE "cache"
#define SP_AXIS_BATCH "batch"
#define SP_AXIS_BLOCKING "blocking"
#define SP_MAX_PARAMS (SP_MAX_AXES + 3)

/* The `precision` axis: the floating-point type a kernel stores its values
 * and computes in. Configs, `spsweep plan` and the database name the values
 * (double, single: runner/plan/axis.c); a kernel reads the integer, SP_DOUBLE
 * where it has no such axis. The output stays double (a single-precision
 * kernel widens its result), and the check takes the precision's own
 * tolerance from the operation (sp_operation.tolerance). */
#define SP_AXIS_PRECISION "precision"
/* The `loads` axis of kernels that choose how they read the matrix:
 * ordinary loads that leave it in the cache for the next product,
 * evict-first (streaming) loads that leave the cache to the vector, or
 * auto (the kernel decides from the matrix and the device). */
#define SP_AXIS_LOADS "loads"
enum { SP_LOADS_CACHED = 1, SP_LOADS_STREAM = 2, SP_LOADS_AUTO = 3 };
/* The `scan_threads` axis of transpose_cuda_scantrans (study 001): how
 * many chunks ScanTrans cuts the nonzeros into (K threads in the study,
 * one warp a chunk here), each with its row of counts: a count N >= 1,
 * or a word: chunks, the kernel's own choice (one per 4096 nonzeros, at
 * most 65536, within its memory budget; the value a section that leaves
 * the axis out gets, not carried in the axes, so older runs keep theirs),
 * or auto, the study's:
 * the occupancy API's block size (cudaOccupancyMaxPotentialBlockSize)
 * times the blocks that cover max(rows, cols). */
#define SP_AXIS_SCAN_THREADS "scan_threads"
enum { SP_SCAN_THREADS_CHUNKS = 0, SP_SCAN_THREADS_AUTO = -1 };
#define SP_SCAN_THREADS_MAX (1L << 24)
/* The `memory` axis of the GPU kernels that allocate through the shared
 * SpMV upload (kernels/spmv/spmv_gpu.cuh): device memory (cudaMalloc and
 * copies, the default), or unified memory (cudaMallocManaged, x advised
 * read-mostly as study 002 advised it: kernels/spmv/spmv_gpu.cu). A
 * section that leaves it out runs on device memory and its combinations
 * do not carry it (runner/plan/plan.c), as for `precision`. */
#define SP_AXIS_MEMORY "memory"
enum { SP_MEMORY_DEVICE = 1, SP_MEMORY_MANAGED = 2 };
typedef enum sp_precision {
    SP_DOUBLE = 0,
    SP_SINGLE = 1,
} sp_precision;

/* The unit roundoff u of a precision: the largest relative error of one
 * rounding to nearest (2^-53 in double, 2^-24 in single). */
static inline double sp_unit_roundoff(sp_precision p)
{
    return p == SP_SINGLE ? 0x1p-24 : 0x1p-53;
}

/* A declared axis: its name, its default values in config syntax
 * ("1..nproc", "32,64,128,256"; see runner/plan/axis.c) and the values the
 * kernel takes at all, in the same syntax ("1..1024", "32..1024:+32" for
 * whole warps, "64..1024:*2" for powers of two; NULL: any the axis's
 * general bounds allow). The config reader checks every value against
 * `valid`, so `spsweep plan` refuses one the kernel would refuse, with its
 * config line, instead of the sweep storing an error per combination.
 * Values are integers (word axes map their words to integers). */
typedef struct sp_axis {
    const char *name;
    const char *defaults;
    const char *valid;
} sp_axis;


/* The axis values of one combination: the kernel's axes, then the
 * harness axes its config section sets. */
typedef struct sp_params {
    int n;
    const char *name[SP_MAX_PARAMS];
    long value[SP_MAX_PARAMS];
} sp_params;

/* The value of axis `name`, or dflt when the combination has no such axis. */
long sp_param(const sp_params *p, const char *name, long dflt);

/* sp_phases: core/records.h. */

/* sp_workload_kind: core/workload.h. */

/* What one operation runs on: A for a matrix, keys for a key array (the
 * other NULL). */
typedef struct sp_workload {
    sp_workload_kind kind;
    const sp_csr *A;
    const sp_keys *keys;
} sp_workload;

/* A matrix as a workload, for call sites holding an sp_csr:
 * op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err). */
#define SP_MATRIX_WORKLOAD(A) (&(const sp_workload){SP_WL_MATRIX, (A), NULL})
/* A key array as a workload. */
#define SP_KEYS_WORKLOAD(K) (&(const sp_workload){SP_WL_KEYS, NULL, (K)})

/* The inputs of one operation on one workload, built once by op->setup. */
typedef struct sp_problem {
    const sp_csr *A;    /* the matrix; NULL for a key workload */
    double *x;          /* spmv: A->cols entries, deterministic, never all zero */
    const sp_keys *key_workload;    /* the key array; NULL for a matrix */
    /* sort: the keys to sort, nkeys of them: a key workload's keys, or a
     * matrix's column indices (aliasing A->colidx) */
    const uint32_t *keys;
    int64_t nkeys;
} sp_problem;

typedef struct sp_operation {
    const char *name;                   /* "spmv" */
    const char *rate_unit;              /* "GFLOPS" */
    unsigned workloads;                 /* SP_WL_* it takes; 0 means SP_WL_MATRIX */
    int (*setup)(sp_problem *pb, const sp_workload *w, sp_err *err);
    void (*teardown)(sp_problem *pb);
    /* What setup allocates beside the workload (spmv: x), from the shape
     * alone, for the runner's memory guard before the matrix is loaded;
     * NULL: nothing. */
    size_t (*setup_bytes)(const sp_problem *pb);
    size_t (*output_bytes)(const sp_problem *pb);
    /* The reference into out (output_bytes bytes): spmv's serial double
     * y, transpose's serial CSC, sort's key count and multiset hashes. */
    int (*reference)(const sp_problem *pb, void *out, sp_err *err);
    /* Norm-wise relative error of out against ref (NaN/Inf in out gives
     * +Inf); 0 or +Inf for the exact operations (transpose, sort). */
    double (*error)(const sp_problem *pb, const void *out, const void *ref);
    /* Optional: the largest error a run computing in precision prec may
     * have and pass, given the sweep's `tolerance` (meant for double) and
     * the reference; where the operation defines it, the bound that
     * precision allows, with its reason. NULL: the sweep's tolerance in
     * every precision. Called through sp_run_tolerance. */
    double (*tolerance)(const sp_problem *pb, const void *ref, sp_precision prec,
                        double configured);
    double (*flops)(const sp_workload *w);  /* useful work of one run */
    /* The fewest bytes one run must move, its values in precision prec
     * (8 bytes a value in double, 4 in single; an operation without
     * values ignores it). */
    double (*bytes)(const sp_workload *w, sp_precision prec);
} sp_operation;

/* The `precision` axis of p (SP_DOUBLE when absent) into *prec; -1 with
 * the reason, naming `who`, for a value that is no precision
 * (kernels/precision.c). */
int sp_precision_param(const sp_params *p, const char *who, sp_precision *prec, sp_err *err);
/* "double", "single": the precision's word in configs and the database. */
const char *sp_precision_name(sp_precision p);
/* n values rounded to float into a new array (at least one element, so
 * n = 0 still gives a pointer; OpenMP over large n): what a prepare in
 * single precision makes of A's values or x. NULL when out of memory;
 * free() it. */
float *sp_float_copy(const double *d, size_t n);
/* The tolerance a run of op with axes p is checked against: op->tolerance
 * at the run's precision, else the sweep's `configured` one. */
double sp_run_tolerance(const sp_operation *op, const sp_problem *pb, const void *ref,
                        const sp_params *p, double configured);

/* 1 when op takes workloads of this kind. */
int sp_operation_accepts(const sp_operation *op, sp_workload_kind kind);

/* sp_need: core/records.h. */

/* Device bytes of an array of n elements of elem bytes as cudaMalloc takes
 * them on current GPUs: whole 2 MiB pages, never less than one element.
 * Every GPU family's need() counts its arrays with it. */
static inline uint64_t sp_gpu_array_bytes(uint64_t n, uint64_t elem)
{
    const uint64_t page = 2u << 20;
    uint64_t bytes = (n ? n : 1) * elem;
    return (bytes + page - 1) / page * page;
}

/* What the harness hands a kernel's launch (runner/exec/harness.c). */
typedef struct sp_exec {
    /* cudaStream_t of the harness, for GPU kernels: every kernel launch,
     * copy, memset and library call of one execution goes on it (cuSPARSE
     * through cusparseSetStream, CUB through its stream argument), and the
     * launch returns without waiting. NULL for CPU kernels. */
    void *stream;
    /* Set by the harness only when the sweep times steps (`steps = 1`):
     * a launch calls sp_exec_mark(ex, "histogram") as it enqueues each of
     * its steps, and the harness reads its clock there (a CUDA event on
     * the stream for a GPU kernel), so a sample splits into named steps.
     * NULL otherwise: a mark costs nothing. */
    void (*mark)(void *ctx, const char *step);
    void *mark_ctx;
} sp_exec;

/* Mark the start of a named step of the launch in progress (a string
 * literal: the harness keeps the pointer until the sample ends). A step
 * lasts until the next mark or the end of the launch; the first step of
 * a launch starts with the sample. */
static inline void sp_exec_mark(const sp_exec *ex, const char *step)
{
    if (ex && ex->mark)
        ex->mark(ex->mark_ctx, step);
}

typedef struct sp_kernel {
    const char *name;       /* "spmv_csr_omp" */
    const char *operation;  /* "spmv" */
    const char *format;     /* "csr" */
    const char *backend;    /* "serial" | "openmp" | "cuda" | "cusparse" */
    const char *summary;    /* one line for `spsweep list` */
    int needs_gpu;
    /* CPU kernels in one instruction set's intrinsics: the set they need
     * ("avx512f", kernels/cpu_isa.h), asked of the CPU at run time; `list`
     * says "no ISA" where it is missing, and the kernel refuses there.
     * NULL: any CPU. */
    const char *isa;
    int naxes;
    sp_axis axes[SP_MAX_AXES];
    /* NULL function pointers mean "not built" (e.g. a CUDA kernel in a
     * CPU-only build); the runner skips such a kernel with the reason. */
    /* Host only, no CUDA call: check the axes, build the kernel's format in
     * host memory, allocate the state. On failure *state may be left set
     * (release frees what was made). Timed by the harness as convert_s. */
    int (*prepare)(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
    /* GPU kernels (required there, NULL for CPU kernels): device
     * allocations (formats, vectors, workspaces) and the host->device
     * copies of what prepare built, on ex->stream. Timed by the harness as
     * h2d_s, from a synchronized device to a synchronized device. */
    int (*upload)(void *state, const sp_exec *ex, sp_err *err);
    /* Optional, GPU: device-side inspection after the upload (cuSPARSE's
     * buffer sizing and preprocess, a plan computed on the device), on
     * ex->stream; timed as part of convert_s. NULL: none. */
    int (*analyse)(void *state, const sp_exec *ex, sp_err *err);
    /* One execution, and no clock: a CPU kernel runs it to completion, a
     * GPU kernel enqueues it on ex->stream and returns. The harness times
     * back-to-back launches (a batch) as one sample, between CUDA events on
     * its stream or with CLOCK_MONOTONIC, so a launch must leave the state
     * ready for the next one (y = A·x again; a transposition written again). */
    int (*launch)(void *state, const sp_exec *ex, sp_err *err);
    /* Optional: restore what a launch consumed (an in-place sort's input),
     * untimed, before every warm-up launch and every sample; a kernel with a
     * reset is timed one launch per sample. NULL: launches repeat as they are. */
    int (*reset)(void *state, const sp_exec *ex, sp_err *err);
    /* Optional: facts about what prepare, upload and analyse built that
     * belong with the run, as one JSON object in json (at most len bytes,
     * NUL-terminated): librsb's matrix flags and its tuner's verdict, a
     * library's version. Called once after analyse, untimed; stored in
     * runs.kernel_info. NULL: none. */
    int (*info)(void *state, char *json, size_t len);
    /* Result into host memory out (op->output_bytes bytes), after the last
     * launch (the harness has waited for it). For a GPU kernel it is the
     * device->host copy, timed by the harness as d2h_s. */
    int (*result)(void *state, void *out, const sp_exec *ex, sp_err *err);
    /* Free everything, from any state prepare, upload or analyse left
     * (NULL included); timed by the harness as free_s. */
    void (*release)(void *state);
    /* Fill *need for this problem and these axis values without allocating.
     * Returns -1 with the reason when the combination cannot be built at all
     * (e.g. an ELLPACK whose padding overflows). NULL: nothing beyond the
     * output vector. */
    int (*need)(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
} sp_kernel;


/* The outside libraries the CPU kernels run on, with versions: "librsb
 * 1.3.0.2; MKL 2026.2-Product Build 20260915, threading gnu" (MKL when
 * built in; kernels/libraries.c). For the sweep's provenance. */
void sp_kernel_libraries(char *buf, size_t len);

/* NULL-terminated list of every registered kernel (kernels/registry.c). */
extern const sp_kernel *const sp_kernels[];
/* "gpu" for a kernel that runs on the device (needs_gpu), else "cpu": the
 * device column of the database, `spsweep list` and the charts. */
const char *sp_kernel_device(const sp_kernel *k);
/* The kernel as the results store records it (core/records.h): its name,
 * operation, format, backend, device and its operation's rate unit. */
sp_kernel_ident sp_kernel_identity(const sp_kernel *k);
const sp_kernel *sp_kernel_find(const char *name);
const sp_operation *sp_operation_find(const char *name);

/* GPU presence (kernels/gpu_info.cu, or kernels/gpu_none.c in CPU-only
 * builds). Returns 1 and fills info when a CUDA device is usable; 0, a
 * one-line reason in plain words and CUDA's raw message in info->detail
 * otherwise. Safe to call before fork: the probe runs in a
 * child process so the caller's process holds no CUDA context. */
typedef struct sp_gpu_info {
    int count;
    char name[256];
    int cc_major, cc_minor;
    int driver_version, runtime_version;
    double mem_total_gib;
    int sm_count;
    int clock_mhz, mem_clock_mhz;   /* current (NVML) when clocks_current, else peak */
    int clocks_current;
    double copy_gbs;                /* device-to-device copy, GB/s (sp_gpu_probe only) */
    /* The L2 roof (sp_gpu_probe only): reads of a buffer of half the L2
     * (l2_bytes, the device's L2 size) that stay in L2, GB/s */
    double l2_gbs;
    int64_t l2_bytes;
    /* Without a usable device: the CUDA call and its own message
     * ("cudaGetDeviceCount: CUDA driver version is insufficient for CUDA
     * runtime version"), kept for the database while the reason says what
     * it means ("no NVIDIA GPU or driver found"). */
    char detail[256];
} sp_gpu_info;
int sp_gpu_probe(sp_gpu_info *info, char *reason, size_t reason_len);
/* Same, in the calling process (initialises CUDA here). */
int sp_gpu_probe_here(sp_gpu_info *info, char *reason, size_t reason_len);
/* Free and total memory of device 0 in bytes, asked in the calling process
 * (creates its CUDA context: the runner asks in a combination's child,
 * before prepare). -1 and a one-line reason without a device. */
int sp_gpu_mem_here(uint64_t *free_bytes, uint64_t *total_bytes, char *reason,
                    size_t reason_len);
/* Is the calling process's CUDA context still usable after a combination
 * (no pending or sticky error: synchronize, then ask for the last error)?
 * 0 yes; -1 and the error as one line. A runner worker that runs several
 * combinations asks this after each GPU one (runner/isolate/worker.c). */
int sp_gpu_healthy_here(char *reason, size_t reason_len);

/* Device copy bandwidth in GB/s (bytes read + written), the median of 20
 * device-to-device copies of `bytes` each, in the calling process; -1 with
 * the reason in err without a device (kernels/gpu_info.cu, gpu_none.c). */
int sp_gpu_copy_bandwidth(size_t bytes, double *gbps, sp_err *err);

/* In builds without Intel MKL (the Makefile's MKL=0: no `make deps-mkl`)
 * the MKL kernels' entry points are NULL: "not built", as a GPU kernel in a
 * CPU-only build. */
#ifdef SP_HAVE_MKL
#define SP_MKL_FN(f) f
#else
#define SP_MKL_FN(f) NULL
#endif

/* In CPU-only builds the CUDA entry points of a kernel descriptor are NULL. */
#ifdef SP_HAVE_CUDA
#define SP_GPU_FN(f) f
#else
#define SP_GPU_FN(f) NULL
#endif

#ifdef __cplusplus
}
#endif
#endif
