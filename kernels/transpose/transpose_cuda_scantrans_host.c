/*
 * transpose_cuda_scantrans_host.c — the `scan_threads` axis of
 * transpose_cuda_scantrans (kernel.h, transpose_gpu.h): how many chunks
 * (units, one warp each) ScanTrans cuts the nonzeros into. Study 001 chose
 * its thread count with the occupancy API, one thread per row or column
 * of the larger side, and ran out of memory ("low mem") on 20 of its 24
 * matrices because each thread keeps a row of cols counts; here that
 * choice is `auto`, beside a count of the user's and the kernel's own
 * (`chunks`). Host only: need() and prepare run without CUDA.
 */
#include <stdio.h>

#include "transpose_gpu.h"

#define KERNEL "transpose_cuda_scantrans"

/* The kernel's own count (`chunks`): one unit per SP_SCANTRANS_CHUNK
 * nonzeros, at most 65536, as many as (units + 1) x cols counts allow. */
int sp_scantrans_gpu_units(const sp_csr *A, uint64_t budget, int32_t *units, sp_err *err)
{
    uint64_t want = ((uint64_t)A->nnz + SP_SCANTRANS_CHUNK - 1) / SP_SCANTRANS_CHUNK;
    if (want < 1)
        want = 1;
    if (want > 65536)
        want = 65536;
    uint64_t row = (uint64_t)(A->cols ? A->cols : 1) * 4;
    uint64_t fit = budget / row;    /* units + 1 rows of counts */
    if (fit < 2)
        return sp_fail(err, "transpose_cuda_scantrans: per-unit column counts need (units + 1) "
                       "x cols x 4 bytes; with cols = %d even one unit takes %llu bytes, above "
                       "the budget of %llu", A->cols, (unsigned long long)(2 * row),
                       (unsigned long long)budget);
    *units = (int32_t)(want < fit - 1 ? want : fit - 1);
    return 0;
}

/* Refuse `units` chunks whose (units + 1) x cols counts pass the budget. */
static int fits(const sp_csr *A, int64_t units, uint64_t budget, const char *what,
                sp_err *err)
{
    uint64_t bytes = ((uint64_t)units + 1) * (uint64_t)(A->cols ? A->cols : 1) * 4;
    if (bytes <= budget)
        return 0;
    return sp_fail(err, KERNEL ": scan_threads = %s: %lld chunks keep (chunks + 1) x cols = "
                   "%llu bytes of counts, above the budget of %llu (cols = %d; fewer "
                   "scan_threads, or chunks)", what, (long long)units,
                   (unsigned long long)bytes, (unsigned long long)budget, A->cols);
}

int sp_scantrans_auto_units(const sp_csr *A, int bs, uint64_t budget, int32_t *units,
                            sp_err *err)
{
    int64_t side = A->rows > A->cols ? A->rows : A->cols;
    if (bs < 1)
        return sp_fail(err, KERNEL ": scan_threads = auto: the occupancy API gave block "
                       "size %d", bs);
    int64_t k = (side + bs - 1) / bs * bs;
    k = k > 0 ? k : bs;
    if (k > SP_SCAN_THREADS_MAX)
        return sp_fail(err, KERNEL ": scan_threads = auto: %lld threads (max(rows, cols) = "
                       "%lld) exceed %ld", (long long)k, (long long)side, SP_SCAN_THREADS_MAX);
    if (fits(A, k, budget, "auto", err))
        return -1;
    *units = (int32_t)k;
    return 0;
}

int sp_scantrans_gpu_axis_units(const sp_csr *A, const sp_params *p, uint64_t budget,
                                int32_t *units, sp_err *err)
{
    long v = sp_param(p, SP_AXIS_SCAN_THREADS, SP_SCAN_THREADS_CHUNKS);
    if (v == SP_SCAN_THREADS_CHUNKS)
        return sp_scantrans_gpu_units(A, budget, units, err);
    if (v == SP_SCAN_THREADS_AUTO) {
        int32_t fewest;
        /* the fewest auto can give: one block size that divides the side */
        if (sp_scantrans_auto_units(A, 1, budget, &fewest, err))
            return -1;
        *units = SP_SCAN_THREADS_AUTO;
        return 0;
    }
    if (v < 1 || v > SP_SCAN_THREADS_MAX)
        return sp_fail(err, KERNEL ": scan_threads = %ld is not auto, chunks or a count in "
                       "1..%ld", v, SP_SCAN_THREADS_MAX);
    char what[32];
    snprintf(what, sizeof what, "%ld", v);
    if (fits(A, v, budget, what, err))
        return -1;
    *units = (int32_t)v;
    return 0;
}
