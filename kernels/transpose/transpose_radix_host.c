/*
 * transpose_radix_host.c — the radix route's plan (how the column bits
 * split into passes), its `digit_bits` axis, memory statement and
 * descriptor; transpose_cuda_radix.cu does the work.
 */
#include "../prim/prim.h"
#include "../kernel.h"
#include "transpose_gpu.h"

#define KERNEL "transpose_cuda_radix"

void sp_radix_plan_of(int32_t cols, int32_t nnz, int digit_max, sp_radix_plan *pl)
{
    int bits = 1;
    while (bits < 31 && ((uint32_t)(cols > 0 ? cols - 1 : 0) >> bits))
        bits++;
    pl->bits = bits;
    pl->passes = (bits + digit_max - 1) / digit_max;
    pl->digit = (bits + pl->passes - 1) / pl->passes;
    int64_t t = ((int64_t)nnz + SP_RADIX_TILE - 1) / SP_RADIX_TILE;
    pl->tiles = (int32_t)(t > 0 ? t : 1);
}

int sp_radix_digit(const char *kernel, const sp_params *p, int *digit, sp_err *err)
{
    long v = sp_param(p, "digit_bits", SP_RADIX_DIGIT_DEFAULT);
    if (v < SP_RADIX_DIGIT_MIN || v > SP_RADIX_DIGIT_MAX)
        return sp_fail(err, "%s: digit_bits = %ld is outside %d..%d", kernel, v,
                       SP_RADIX_DIGIT_MIN, SP_RADIX_DIGIT_MAX);
    *digit = (int)v;
    return 0;
}

int sp_radix_small_nnz(const char *kernel, const sp_params *p, int32_t *most, sp_err *err)
{
    long v = sp_param(p, "small_nnz", SP_TRANS_SMALL_NNZ);
    if (v < 1 || v > SP_TRANS_SMALL_NNZ)
        return sp_fail(err, "%s: small_nnz = %ld is outside 1..%d", kernel, v,
                       SP_TRANS_SMALL_NNZ);
    *most = (int32_t)v;
    return 0;
}

/* The CSR and the CSC; the sorted columns; one set of (column, row,
 * value) per nonzero between passes (two from three passes on); the
 * tiles' digit counts and their scan (bins x tiles + 1) with the scan's
 * temporaries. */
uint64_t sp_trans_gpu_bytes_radix(const sp_csr *A, const sp_radix_plan *pl, uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz;
    uint64_t csr = sp_gpu_array_bytes((uint64_t)A->rows + 1, 4) + sp_gpu_array_bytes(nnz, 4) +
                   sp_gpu_array_bytes(nnz, vb);
    uint64_t csc = sp_gpu_array_bytes(sp_trans_csc_dev_bytes(A->nnz, A->cols, vb), 1);
    int sets = pl->passes - 1 < 2 ? pl->passes - 1 : 2;
    uint64_t set = 2 * sp_gpu_array_bytes(nnz, 4) + sp_gpu_array_bytes(nnz, vb);
    uint64_t cells = ((uint64_t)1 << pl->digit) * (uint64_t)pl->tiles;
    return csr + csc + sp_gpu_array_bytes(nnz, 4) + (uint64_t)sets * set +
           sp_gpu_array_bytes(cells + 1, 4) +
           sp_gpu_array_bytes(sp_gpu_scan_temp_bytes((int64_t)cells, 256), 1);
}

static int radix_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int digit = 0;
    int32_t most = 0;
    uint64_t vb;
    if (sp_radix_digit(KERNEL, p, &digit, err) || sp_radix_small_nnz(KERNEL, p, &most, err) ||
        sp_trans_gpu_vb(KERNEL, p, &vb, err))
        return -1;
    sp_radix_plan pl;
    sp_radix_plan_of(pb->A->cols, pb->A->nnz, digit, &pl);
    need->device_bytes = sp_trans_gpu_bytes_radix(pb->A, &pl, vb);
    need->host_bytes = sp_trans_gpu_host_bytes(pb->A, vb);
    return 0;
}

const sp_kernel sp_transpose_cuda_radix = {
    .name = KERNEL,
    .operation = "transpose",
    .format = "csc",
    .backend = "cuda",
    .summary = "LSD radix sort of the nonzeros by column, digits of up to digit_bits bits, "
               "rows and values carried (count, scan, stable scatter a pass); pointers; "
               "small matrices in one launch",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"digit_bits", SP_RADIX_DIGITS},
             {"small_nnz", SP_TRANS_SMALL_NNZ_S},
             {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_radix_prepare),
    .upload = SP_GPU_FN(sp_trans_radix_upload),
    .analyse = SP_GPU_FN(sp_trans_radix_analyse),
    .launch = SP_GPU_FN(sp_trans_radix_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = radix_need,
};
