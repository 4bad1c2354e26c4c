/*
 * spmv_csr_cuda.cu — CSR SpMV, one thread per row (the "scalar" kernel):
 * simple, and coalescing-poor on long rows; the baseline GPU design.
 */
#include "spmv_gpu.cuh"

__global__ void csr_scalar_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                  const int32_t *__restrict__ colidx,
                                  const double *__restrict__ val,
                                  const double *__restrict__ x, double *__restrict__ y)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= rows)
        return;
    double sum = 0.0;
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; k++)
        sum += val[k] * x[colidx[k]];
    y[i] = sum;
}

extern "C" int sp_spmv_cuda_scalar_prepare(const sp_problem *pb, const sp_params *p,
                                           void **state, sp_phases *ph, sp_err *err)
{
    sp_gpu_spmv *g;
    int rc = sp_spmv_gpu_upload(pb, &g, ph, err);
    *state = g;
    if (rc)
        return rc;
    g->blocksize = (int)sp_param(p, "blocksize", 128);
    if (g->blocksize < 1 || g->blocksize > 1024)
        return sp_fail(err, "blocksize %d outside 1..1024", g->blocksize);
    return 0;
}

extern "C" int sp_spmv_cuda_scalar_run(void *state, double *seconds, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    unsigned blocks = (unsigned)((g->rows + g->blocksize - 1) / g->blocksize);
    if (blocks == 0)
        blocks = 1;             /* rows = 0: still one (empty) launch to time */
    SP_CUDA(cudaEventRecord(g->start), err);
    csr_scalar_kernel<<<blocks, g->blocksize>>>(g->rows, g->rowptr, g->colidx, g->val, g->x,
                                                g->y);
    SP_CUDA(cudaGetLastError(), err);
    SP_CUDA(cudaEventRecord(g->stop), err);
    return sp_spmv_gpu_elapsed(g, seconds, err);
}
