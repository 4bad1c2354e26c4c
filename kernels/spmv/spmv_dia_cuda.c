/*
 * spmv_dia_cuda.c — descriptor of the DIA kernel (spmv_dia_cuda.cu): one
 * thread per row (or 2, 4 rows a block's width apart), offsets staged in
 * shared memory, values streamed. Its `need` states the padded layout
 * (ndiags · rows values), so the runner skips it, with both numbers, on
 * matrices whose diagonals are nearly all present (R-MAT, random).
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_dia_cuda = {
    .name = "spmv_dia_cuda",
    .operation = "spmv",
    .format = "dia",
    .backend = "cuda",
    .summary = "DIA, diagonal-major values without column indices, one thread per row "
               "(rows_per_thread of them, a block apart)",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_BLOCKSIZE}, {"rows_per_thread", "1,2,4"},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_dia_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_dia_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_dia,
};
