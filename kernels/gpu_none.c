/*
 * gpu_none.c — the GPU probe of a CPU-only build (no nvcc at build time,
 * or `make CUDA=0`): there is never a usable device. In CUDA builds
 * kernels/gpu_info.cu defines these functions instead.
 */
#ifndef SP_HAVE_CUDA
#include <stdio.h>
#include <string.h>

#include "kernel.h"

/* No device, with the reason the runner and the GPU tests print. */
static int no_gpu(sp_gpu_info *info, char *reason, size_t reason_len)
{
    memset(info, 0, sizeof *info);
    snprintf(reason, reason_len, "%s",
             "spsweep was built without CUDA (nvcc not found at build time)");
    snprintf(info->detail, sizeof info->detail, "%s", "CPU-only build (CUDA=0)");
    return 0;
}

int sp_gpu_probe(sp_gpu_info *info, char *reason, size_t reason_len)
{
    return no_gpu(info, reason, reason_len);
}

int sp_gpu_probe_here(sp_gpu_info *info, char *reason, size_t reason_len)
{
    return no_gpu(info, reason, reason_len);
}

int sp_gpu_mem_here(uint64_t *free_bytes, uint64_t *total_bytes, char *reason,
                    size_t reason_len)
{
    sp_gpu_info info;
    *free_bytes = *total_bytes = 0;
    no_gpu(&info, reason, reason_len);
    return -1;
}

int sp_gpu_healthy_here(char *reason, size_t reason_len)
{
    sp_gpu_info info;
    no_gpu(&info, reason, reason_len);
    return -1;
}

int sp_gpu_copy_bandwidth(size_t bytes, double *gbps, sp_err *err)
{
    (void)bytes;
    *gbps = 0;
    return sp_fail(err, "spsweep was built without CUDA (nvcc not found at build time)");
}
#else
typedef int sp_gpu_none_unused; /* ISO C wants a non-empty translation unit */
#endif
