/*
 * gpu_info.cu — is there a usable CUDA device, and which. sp_gpu_probe asks
 * in a forked child, so the caller holds no CUDA context (CUDA does not
 * survive fork, and Criterion forks one process per test).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"

extern "C" int sp_gpu_probe_here(sp_gpu_info *info, char *reason, size_t reason_len)
{
    memset(info, 0, sizeof *info);
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        snprintf(reason, reason_len, "no CUDA device: cudaGetDeviceCount: %s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 0;
    }
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess) {
        snprintf(reason, reason_len, "cudaGetDeviceProperties: %s", cudaGetErrorString(e));
        return 0;
    }
    info->count = n;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->mem_total_gib = (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    return 1;
}

/* The child's answer travels as one fixed-size message over a pipe. */
struct probe_msg {
    int ok;
    sp_gpu_info info;
    char reason[512];
};

extern "C" int sp_gpu_probe(sp_gpu_info *info, char *reason, size_t reason_len)
{
    int fd[2];
    memset(info, 0, sizeof *info);
    if (pipe(fd))
        return snprintf(reason, reason_len, "GPU probe: pipe failed"), 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return snprintf(reason, reason_len, "GPU probe: fork failed"), 0;
    }
    if (pid == 0) {
        probe_msg m;
        memset(&m, 0, sizeof m);
        close(fd[0]);
        m.ok = sp_gpu_probe_here(&m.info, m.reason, sizeof m.reason);
        ssize_t w = write(fd[1], &m, sizeof m);
        _exit(w == (ssize_t)sizeof m ? 0 : 1);
    }
    close(fd[1]);
    probe_msg m;
    ssize_t got = 0, r;
    while (got < (ssize_t)sizeof m &&
           (r = read(fd[0], (char *)&m + got, sizeof m - (size_t)got)) > 0)
        got += r;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof m)
        return snprintf(reason, reason_len, "GPU probe: the probing process died"), 0;
    *info = m.info;
    snprintf(reason, reason_len, "%s", m.reason);
    return m.ok;
}
