/*
 * sort_cub.c — descriptor of the vendor baseline, CUB DeviceRadixSort
 * (sort_cub.cu), keys alone (values = 0) or pairs (values = 1), run in the
 * GPU sort harness (sort_gpu.h). In a CPU-only build its entry points are
 * NULL and the runner skips it with the reason.
 */
#include "sort_gpu.h"

SP_SORT_GPU_DESIGN(cub_radix, "sort_cub_radix", 1, sp_sort_cub, sp_sort_cub_workspace)

const sp_kernel sp_sort_cub_radix = {
    .name = "sort_cub_radix",
    .operation = "sort",
    .format = "keys",
    .backend = "cub",
    .summary = "CUB DeviceRadixSort SortKeys / SortPairs (values), 32 bits, DoubleBuffer; stable",
    .needs_gpu = 1,
    .naxes = 1,
    .axes = {{"values", SP_SORT_VALUES}},
    SP_SORT_GPU_FNS(cub_radix),
};
