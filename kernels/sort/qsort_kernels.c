/*
 * qsort_kernels.c — the registry descriptors of the three GPU quicksorts
 * (qsort_gpu.h), run in the GPU sort harness (sort_gpu.h): axes values,
 * blocksize, window and cutoff, each combination checked by the design
 * before anything runs. None claims stability. In a CPU-only build their
 * sort entry points are NULL and the runner skips them with the reason;
 * need and the checks stay.
 */
#include "qsort_gpu.h"
#include "sort_gpu.h"

static int check_thread(const sp_qsort_opts *o, sp_err *err)
{
    return sp_qsort_check_opts(SP_QSORT_THREAD, o, err);
}

static int check_block(const sp_qsort_opts *o, sp_err *err)
{
    return sp_qsort_check_opts(SP_QSORT_BLOCK, o, err);
}

static int check_queue(const sp_qsort_opts *o, sp_err *err)
{
    return sp_qsort_check_opts(SP_QSORT_QUEUE, o, err);
}

SP_SORT_GPU_DESIGN_CHECKED(qsort_thread, "sort_qsort_cuda_thread", 0, sp_qsort_thread,
                           sp_qsort_thread_workspace, check_thread)
SP_SORT_GPU_DESIGN_CHECKED(qsort_block, "sort_qsort_cuda_block", 0, sp_qsort_block,
                           sp_qsort_block_workspace, check_block)
SP_SORT_GPU_DESIGN_CHECKED(qsort_queue, "sort_qsort_cuda_queue", 0, sp_qsort_queue,
                           sp_qsort_queue_workspace, check_queue)

const sp_kernel sp_sort_qsort_cuda_thread = {
    .name = "sort_qsort_cuda_thread",
    .operation = "sort",
    .format = "keys",
    .backend = "cuda",
    .summary = "GPU quicksort, one thread per subproblem (three-way, median of three), levels "
               "from the host; above cutoff keys split by sampled 511-bucket passes; unstable",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"values", SP_SORT_VALUES},
             {"blocksize", "128", "32..1024:+32"},
             {"window", "4096"},
             {"cutoff", "4096"}},
    SP_SORT_GPU_FNS(qsort_thread),
};

const sp_kernel sp_sort_qsort_cuda_block = {
    .name = "sort_qsort_cuda_block",
    .operation = "sort",
    .format = "keys",
    .backend = "cuda",
    .summary = "GPU quicksort, a block per tile sliding a window: sampled 511-bucket passes "
               "(equal buckets done), levels from the host, buckets <= cutoff radix-sorted "
               "in shared memory; unstable",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"values", SP_SORT_VALUES},
             {"blocksize", "1024", "32..1024:+32"},
             {"window", "8192"},
             {"cutoff", "8192"}},
    SP_SORT_GPU_FNS(qsort_block),
};

const sp_kernel sp_sort_qsort_cuda_queue = {
    .name = "sort_qsort_cuda_queue",
    .operation = "sort",
    .format = "keys",
    .backend = "cuda",
    .summary = "GPU quicksort without host round trips: first pass as the block design, then "
               "a device work queue served by a persistent grid; unstable",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"values", SP_SORT_VALUES},
             {"blocksize", "512", "32..1024:+32"},
             {"window", "4096"},
             {"cutoff", "4096"}},
    SP_SORT_GPU_FNS(qsort_queue),
};
