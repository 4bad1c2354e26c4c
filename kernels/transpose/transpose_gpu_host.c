/*
 * transpose_gpu_host.c — the GPU transposition kernels' descriptors, their
 * `blocksize` axis and the memory each kernel needs (transpose_gpu.h;
 * ScanTrans's unit count: transpose_cuda_scantrans_host.c). Pure
 * arithmetic: need() runs in the runner's parent, which never touches CUDA.
 */
#include "../prim/prim.h"
#include "../kernel.h"
#include "transpose_gpu.h"

int sp_trans_gpu_blocksize(const char *kernel, const sp_params *p, int *bs, sp_err *err)
{
    long v = sp_param(p, "blocksize", 256);
    if (v < 64 || v > 1024 || (v & (v - 1)))
        return sp_fail(err, "%s: blocksize = %ld is not a power of two in 64..1024", kernel, v);
    *bs = (int)v;
    return 0;
}

int sp_trans_gpu_vb(const char *kernel, const sp_params *p, uint64_t *vb, sp_err *err)
{
    sp_precision prec;
    if (sp_precision_param(p, kernel, &prec, err))
        return -1;
    *vb = sp_trans_val_bytes(prec);
    return 0;
}

/* The CSR in and the CSC out, on the device, with vb-byte values. */
static uint64_t csr_csc(const sp_csr *A, uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz;
    return sp_gpu_array_bytes((uint64_t)A->rows + 1, 4) + sp_gpu_array_bytes(nnz, 4) +
           sp_gpu_array_bytes(nnz, vb) +
           sp_gpu_array_bytes(sp_trans_csc_dev_bytes(A->nnz, A->cols, vb), 1);
}

/* CUB's segmented-sort buffer is asked on the device; estimated here as
 * 16 bytes per column plus 16 MiB. */
uint64_t sp_trans_gpu_bytes_scatter(const sp_csr *A, uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz, cols = (uint64_t)A->cols;
    return csr_csc(A, vb) + 3 * sp_gpu_array_bytes(cols, 4) + sp_gpu_array_bytes(nnz, 4) +
           sp_gpu_array_bytes(nnz, vb) + sp_gpu_array_bytes(1, 4) +
           sp_gpu_array_bytes(sp_gpu_scan_temp_bytes((int64_t)cols, 64), 1) +
           sp_gpu_array_bytes(cols * 16 + (16u << 20), 1);
}

uint64_t sp_trans_gpu_bytes_scantrans(const sp_csr *A, int32_t units, int bs, uint64_t vb)
{
    uint64_t cols = (uint64_t)A->cols;
    return csr_csc(A, vb) + sp_gpu_array_bytes(((uint64_t)units + 1) * cols, 4) +
           sp_gpu_array_bytes((uint64_t)A->nnz, 4) +
           sp_gpu_array_bytes(sp_gpu_scan_temp_bytes((int64_t)cols, bs), 1);
}

uint64_t sp_trans_gpu_bytes_mergetrans(const sp_csr *A, uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz;
    return csr_csc(A, vb) + 2 * sp_gpu_array_bytes(nnz, 8) + sp_gpu_array_bytes(nnz, 4);
}

/* CUB's radix-sort buffer: estimated as the double buffers of keys and
 * values (8 bytes per nonzero) plus 16 MiB. */
uint64_t sp_trans_gpu_bytes_cub(const sp_csr *A, uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz;
    return csr_csc(A, vb) + 4 * sp_gpu_array_bytes(nnz, 4) +
           sp_gpu_array_bytes(nnz * 8 + (16u << 20), 1);
}

/* The CSC in three arrays, and cusparseCsr2cscEx2's buffer, asked on the
 * device: estimated as 8 bytes per nonzero, row and column, plus 64 MiB
 * for the handle (whatever the values' size). */
uint64_t sp_trans_gpu_bytes_cusparse(const sp_csr *A, uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz, n = nnz + A->rows + A->cols;
    uint64_t csc = sp_gpu_array_bytes(nnz, vb) + sp_gpu_array_bytes((uint64_t)A->cols + 1, 4) +
                   sp_gpu_array_bytes(nnz, 4);    /* three arrays of their own */
    return csr_csc(A, vb) - sp_gpu_array_bytes(sp_trans_csc_dev_bytes(A->nnz, A->cols, vb), 1) +
           csc + sp_gpu_array_bytes(n * 8 + (64u << 20), 1);
}

static int need_host(sp_need *need, const sp_csr *A, uint64_t vb)
{
    need->host_bytes = sp_trans_gpu_host_bytes(A, vb);
    return 0;
}

static int scatter_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int bs = 0;
    uint64_t vb;
    if (sp_trans_gpu_blocksize("transpose_cuda_scatter", p, &bs, err) ||
        sp_trans_gpu_vb("transpose_cuda_scatter", p, &vb, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_scatter(pb->A, vb);
    return need_host(need, pb->A, vb);
}

static int scantrans_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int bs = 0;
    int32_t units = 0;
    uint64_t vb;
    if (sp_trans_gpu_blocksize("transpose_cuda_scantrans", p, &bs, err) ||
        sp_trans_gpu_vb("transpose_cuda_scantrans", p, &vb, err) ||
        sp_scantrans_gpu_axis_units(pb->A, p, SP_SCANTRANS_BUDGET, &units, err))
        return -1;
    /* auto: at most whole blocks of 1024 past max(rows, cols) */
    if (units == SP_SCAN_THREADS_AUTO &&
        sp_scantrans_auto_units(pb->A, 1024, UINT64_MAX, &units, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_scantrans(pb->A, units, bs, vb);
    return need_host(need, pb->A, vb);
}

static int mergetrans_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int bs = 0;
    uint64_t vb;
    if (sp_trans_gpu_blocksize("transpose_cuda_mergetrans", p, &bs, err) ||
        sp_trans_gpu_vb("transpose_cuda_mergetrans", p, &vb, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_mergetrans(pb->A, vb);
    return need_host(need, pb->A, vb);
}

static int cub_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    uint64_t vb;
    if (sp_trans_gpu_vb("transpose_cub_sort", p, &vb, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_cub(pb->A, vb);
    return need_host(need, pb->A, vb);
}

/* The CSR and the CSC, two arrays of 64-bit keys, and CUB's buffer
 * (asked on the device; its alternate keys and values, 8 + vb bytes a
 * nonzero, plus 16 MiB). */
uint64_t sp_trans_gpu_bytes_carry(const sp_csr *A, uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz;
    return csr_csc(A, vb) + 2 * sp_gpu_array_bytes(nnz, 8) +
           sp_gpu_array_bytes(nnz * (8 + vb) + (16u << 20), 1);
}

static int carry_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    uint64_t vb;
    if (sp_trans_gpu_vb("transpose_cub_carry", p, &vb, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_carry(pb->A, vb);
    return need_host(need, pb->A, vb);
}

static int cusparse_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    uint64_t vb;
    if (sp_trans_gpu_vb("transpose_cusparse", p, &vb, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_cusparse(pb->A, vb);
    return need_host(need, pb->A, vb);
}

const sp_kernel sp_transpose_cuda_scatter = {
    .name = "transpose_cuda_scatter",
    .operation = "transpose",
    .format = "csc",
    .backend = "cuda",
    .summary = "histogram, scan, warp-ordered atomic scatter, column order restored",
    .needs_gpu = 1,
    .naxes = 2,
    .axes = {{"blocksize", SP_TRANS_BLOCKSIZES, SP_TRANS_VALID_BLOCKSIZE}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_scatter_prepare),
    .upload = SP_GPU_FN(sp_trans_scatter_upload),
    .analyse = SP_GPU_FN(sp_trans_scatter_analyse),
    .launch = SP_GPU_FN(sp_trans_scatter_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = scatter_need,
};

const sp_kernel sp_transpose_cuda_scantrans = {
    .name = "transpose_cuda_scantrans",
    .operation = "transpose",
    .format = "csc",
    .backend = "cuda",
    .summary = "ScanTrans: per-warp column counts, vertical scan, scan, write back",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", SP_TRANS_BLOCKSIZES, SP_TRANS_VALID_BLOCKSIZE}, {SP_AXIS_PRECISION, "double"},
             {SP_AXIS_SCAN_THREADS, "chunks"}},
    .prepare = SP_GPU_FN(sp_trans_scantrans_prepare),
    .upload = SP_GPU_FN(sp_trans_scantrans_upload),
    .launch = SP_GPU_FN(sp_trans_scantrans_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = scantrans_need,
};

const sp_kernel sp_transpose_cuda_mergetrans = {
    .name = "transpose_cuda_mergetrans",
    .operation = "transpose",
    .format = "csc",
    .backend = "cuda",
    .summary = "MergeTrans: segmented sort of (column, position), merge rounds, gather",
    .needs_gpu = 1,
    .naxes = 2,
    .axes = {{"blocksize", SP_TRANS_BLOCKSIZES, SP_TRANS_VALID_BLOCKSIZE}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_mergetrans_prepare),
    .upload = SP_GPU_FN(sp_trans_mergetrans_upload),
    .launch = SP_GPU_FN(sp_trans_mergetrans_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = mergetrans_need,
};

const sp_kernel sp_transpose_cub_sort = {
    .name = "transpose_cub_sort",
    .operation = "transpose",
    .format = "csc",
    .backend = "cub",
    .summary = "CUB DeviceRadixSort of (column, position) pairs, then gather",
    .needs_gpu = 1,
    .naxes = 1,
    .axes = {{SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_cub_prepare),
    .upload = SP_GPU_FN(sp_trans_cub_upload),
    .launch = SP_GPU_FN(sp_trans_cub_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = cub_need,
};

const sp_kernel sp_transpose_cub_carry = {
    .name = "transpose_cub_carry",
    .operation = "transpose",
    .format = "csc",
    .backend = "cub",
    .summary = "CUB DeviceRadixSort of keys (column << 32 | row) over the column bits, values "
               "as payload; rowidx and colptr from the sorted keys (no gather)",
    .needs_gpu = 1,
    .naxes = 1,
    .axes = {{SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_carry_prepare),
    .upload = SP_GPU_FN(sp_trans_carry_upload),
    .launch = SP_GPU_FN(sp_trans_carry_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = carry_need,
};

const sp_kernel sp_transpose_cusparse = {
    .name = "transpose_cusparse",
    .operation = "transpose",
    .format = "csc",
    .backend = "cusparse",
    .summary = "cusparseCsr2cscEx2, CUSPARSE_CSR2CSC_ALG_DEFAULT, CUDA_R_64F or CUDA_R_32F "
               "(the GPU baseline)",
    .needs_gpu = 1,
    .naxes = 1,
    .axes = {{SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_cusparse_prepare),
    .upload = SP_GPU_FN(sp_trans_cusparse_upload),
    .analyse = SP_GPU_FN(sp_trans_cusparse_analyse),
    .launch = SP_GPU_FN(sp_trans_cusparse_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = cusparse_need,
};
