/*
 * sort_cub.c — descriptor of the vendor baseline, CUB DeviceRadixSort
 * (sort_cub.cu), keys alone (values = 0) or pairs (values = 1), run in the
 * GPU sort harness (sort_gpu.h). In a CPU-only build its entry points are
 * NULL and the runner skips it with the reason.
 */
#include "sort_gpu.h"

/* Alternate buffers: n keys (and n values), 256-byte aligned. */
size_t sp_sort_cub_alt_bytes(int64_t n, int with_vals)
{
    size_t b = ((size_t)(n > 0 ? n : 0) * 4 + 255) / 256 * 256;
    return b * (with_vals ? 2 : 1);
}

/* CUB's temporary storage, from above: onesweep's look-back holds one
 * 32-bit counter per digit (256) per tile of at least 2048 keys, for at
 * most 2^28 keys at a time, i.e. under 1/2 byte per key: counted as 1
 * byte per key up to 2^28, plus 8 MiB for the bins, counters and
 * alignment. The GPU tests compare it with CUB's own query. */
size_t sp_sort_cub_workspace(int64_t n, int with_vals, const sp_qsort_opts *o)
{
    (void)o;
    int64_t portion = n < (1LL << 28) ? n : (1LL << 28);
    return sp_sort_cub_alt_bytes(n, with_vals) + (size_t)(portion > 0 ? portion : 0) +
           (8u << 20);
}

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
