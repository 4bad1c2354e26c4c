/*
 * cuda_check.h — CUDA and cuSPARSE calls that turn a failure into an
 * sp_err naming the call, the library's error string and file:line, and
 * make the enclosing function return -1. For .cu files only.
 */
#ifndef SP_CUDA_CHECK_H
#define SP_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <cusparse.h>

#include "../core/sparse.h"

#define SP_CUDA(call, err)                                                             \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess)                                                         \
            return sp_fail((err), "%s: %s (%s:%d)", #call, cudaGetErrorString(e_),     \
                           __FILE__, __LINE__);                                        \
    } while (0)

#define SP_CUSPARSE(call, err)                                                         \
    do {                                                                               \
        cusparseStatus_t s_ = (call);                                                  \
        if (s_ != CUSPARSE_STATUS_SUCCESS)                                             \
            return sp_fail((err), "%s: %s (%s:%d)", #call, cusparseGetErrorString(s_), \
                           __FILE__, __LINE__);                                        \
    } while (0)

#endif
