/*
 * gpu_info.cu — is there a usable CUDA device, and which. sp_gpu_probe asks
 * in a forked child, so the caller holds no CUDA context afterwards (CUDA
 * does not survive fork, and Criterion and the runner fork after probing).
 * Call it before this process touches CUDA itself: a child forked from a
 * process that already holds a context cannot use CUDA either.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"

/* A wedged driver must not hang the caller: the child gets this long. */
#define SP_PROBE_TIMEOUT_MS 60000

/* Current SM and memory clocks of device 0 from NVML, loaded at run time
 * (libnvidia-ml.so.1 comes with the driver; no link-time dependency).
 * NVML's ABI: int results, opaque device handle, clock types SM = 1,
 * MEM = 2. Leaves info alone when NVML is not there. */
static void current_clocks(sp_gpu_info *info)
{
    typedef int (*init_fn)(void);
    typedef int (*handle_fn)(unsigned, void **);
    typedef int (*clock_fn)(void *, int, unsigned *);
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    init_fn init = (init_fn)dlsym(lib, "nvmlInit_v2");
    handle_fn handle = (handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    clock_fn clock = (clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
    init_fn shutdown = (init_fn)dlsym(lib, "nvmlShutdown");
    void *dev = NULL;
    unsigned sm = 0, mem = 0;
    if (init && handle && clock && init() == 0) {
        if (handle(0, &dev) == 0 && clock(dev, 1, &sm) == 0 && clock(dev, 2, &mem) == 0) {
            info->clock_mhz = (int)sm;
            info->mem_clock_mhz = (int)mem;
            info->clocks_current = 1;
        }
        if (shutdown)
            shutdown();
    }
    dlclose(lib);
}

/* Device-to-device copy bandwidth in GB/s (read + write counted), best of
 * 5 copies of 256 MiB (less when memory is short); 0 on any failure. */
static double copy_bandwidth(void)
{
    size_t avail = 0, total = 0, bytes = 256u << 20;
    if (cudaMemGetInfo(&avail, &total) != cudaSuccess)
        return 0;
    while (bytes > (1u << 20) && 2 * bytes > avail / 2)
        bytes /= 2;
    void *a = NULL, *b = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    double best = 0;
    if (cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
        cudaEventCreate(&t0) == cudaSuccess && cudaEventCreate(&t1) == cudaSuccess &&
        cudaMemset(a, 1, bytes) == cudaSuccess &&
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess) {
        for (int i = 0; i < 5; i++) {
            float ms = 0;
            if (cudaEventRecord(t0) != cudaSuccess ||
                cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess ||
                cudaEventRecord(t1) != cudaSuccess || cudaEventSynchronize(t1) != cudaSuccess ||
                cudaEventElapsedTime(&ms, t0, t1) != cudaSuccess || ms <= 0)
                break;
            double gbs = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
            best = gbs > best ? gbs : best;
        }
    }
    cudaFree(a);
    cudaFree(b);
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    return best;
}

/* `passes` reads of n double2 (n a multiple of 4 · the grid's threads)
 * through L2 only (ld.global.cg: L1 bypassed), four loads in flight a
 * thread, summed so the loads stay; the sum is stored only when it is
 * impossible. Many passes a launch: a pass over half the L2 takes ~10 us,
 * about a launch's own overhead. */
__global__ static void l2_read(const double2 *__restrict__ a, size_t n, int passes,
                               double *out)
{
    double s = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (int p = 0; p < passes; p++)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += 4 * stride) {
            double2 v0 = __ldcg(a + i), v1 = __ldcg(a + i + stride);
            double2 v2 = __ldcg(a + i + 2 * stride), v3 = __ldcg(a + i + 3 * stride);
            s += (v0.x + v0.y) + (v1.x + v1.y) + (v2.x + v2.y) + (v3.x + v3.y);
        }
    if (s == -1.0)
        *out = s;
}

/* The L2 read bandwidth: a buffer of half the L2 read again and again
 * (the first launch brings it in), best of 11 launches of 20 passes each,
 * GB/s; *l2 = the L2's size. 0 when it cannot be measured. */
static double l2_bandwidth(int64_t *l2)
{
    int dev = 0, size = 0, sms = 0;
    *l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&size, cudaDevAttrL2CacheSize, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        size <= 0)
        return 0;
    *l2 = size;
    const int threads = 512, passes = 20;
    size_t grid = (size_t)sms * 4, unit = grid * threads * 4 * sizeof(double2);
    size_t bytes = (size_t)size / 2 / unit * unit;
    if (bytes == 0)
        return 0;
    double2 *a = NULL;
    double *out = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    double best = 0;
    if (cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&out, sizeof *out) == cudaSuccess &&
        cudaEventCreate(&t0) == cudaSuccess && cudaEventCreate(&t1) == cudaSuccess &&
        cudaMemset(a, 0, bytes) == cudaSuccess) {
        size_t n = bytes / sizeof(double2);
        for (int i = 0; i < 12; i++) {     /* launch 0: one pass, fills L2 */
            float ms = 0;
            if (cudaEventRecord(t0) != cudaSuccess)
                break;
            l2_read<<<(unsigned)grid, threads>>>(a, n, i == 0 ? 1 : passes, out);
            if (cudaEventRecord(t1) != cudaSuccess || cudaEventSynchronize(t1) != cudaSuccess ||
                cudaEventElapsedTime(&ms, t0, t1) != cudaSuccess || ms <= 0)
                break;
            double gbs = (double)bytes * passes / (ms * 1e-3) / 1e9;
            if (i >= 1 && gbs > best)   /* the first launch, one pass, fills L2 */
                best = gbs;
        }
    }
    cudaGetLastError();
    cudaFree(a);
    cudaFree(out);
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    return best;
}

/* What a failed probe means, in words a user can act on. On a machine
 * without an NVIDIA driver the runtime says "CUDA driver version is
 * insufficient for CUDA runtime version", which reads like a driver bug;
 * the raw message stays in info->detail (and in the database). */
static const char *meaning(cudaError_t e)
{
    switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
        return "no NVIDIA GPU or driver found";
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        return "the NVIDIA driver does not match this CUDA runtime";
    case cudaErrorDevicesUnavailable:
        return "every NVIDIA GPU is busy or in exclusive use";
    default:
        return "the NVIDIA GPU cannot be used";
    }
}

/* Fill reason with what e means and info->detail with "call: CUDA's
 * message"; always returns 0 (no GPU). */
static int no_gpu(sp_gpu_info *info, char *reason, size_t reason_len, const char *what,
                  cudaError_t e)
{
    snprintf(reason, reason_len, "%s", meaning(e));
    snprintf(info->detail, sizeof info->detail, "%s: %s", what, cudaGetErrorString(e));
    return 0;
}

/* Peak SM and memory clocks (CUDA 13 dropped them from cudaDeviceProp),
 * replaced by the current ones when NVML can be had. */
static void peak_clocks(sp_gpu_info *info)
{
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess)
        info->clock_mhz = khz / 1000;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess)
        info->mem_clock_mhz = khz / 1000;
    current_clocks(info);
}

extern "C" int sp_gpu_probe_here(sp_gpu_info *info, char *reason, size_t reason_len)
{
    memset(info, 0, sizeof *info);
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess)
        return no_gpu(info, reason, reason_len, "cudaGetDeviceCount", e);
    if (n == 0)
        return no_gpu(info, reason, reason_len, "cudaGetDeviceCount (0 devices)",
                      cudaErrorNoDevice);
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess)
        return no_gpu(info, reason, reason_len, "cudaGetDeviceProperties", e);
    if ((e = cudaDriverGetVersion(&info->driver_version)) != cudaSuccess)
        return no_gpu(info, reason, reason_len, "cudaDriverGetVersion", e);
    if ((e = cudaRuntimeGetVersion(&info->runtime_version)) != cudaSuccess)
        return no_gpu(info, reason, reason_len, "cudaRuntimeGetVersion", e);
    info->count = n;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->mem_total_gib = (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    info->sm_count = prop.multiProcessorCount;
    peak_clocks(info);
    snprintf(reason, reason_len, "%s", "");
    return 1;
}

extern "C" int sp_gpu_mem_here(uint64_t *free_bytes, uint64_t *total_bytes, char *reason,
                               size_t reason_len)
{
    size_t f = 0, t = 0;
    *free_bytes = *total_bytes = 0;
    cudaError_t e = cudaMemGetInfo(&f, &t);
    if (e != cudaSuccess) {
        snprintf(reason, reason_len, "device memory: cudaMemGetInfo: %s",
                 cudaGetErrorString(e));
        return -1;
    }
    *free_bytes = f;
    *total_bytes = t;
    return 0;
}

extern "C" int sp_gpu_healthy_here(char *reason, size_t reason_len)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(reason, reason_len, "CUDA context after the run: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* The child's answer travels as one fixed-size message over a pipe. */
struct probe_msg {
    int ok;
    sp_gpu_info info;
    char reason[512];
};

/* Child side: probe, write the answer, leave without running atexit
 * handlers or flushing the parent's stdio buffers. */
static void probe_child(int fd)
{
    probe_msg m;
    memset(&m, 0, sizeof m);
    m.ok = sp_gpu_probe_here(&m.info, m.reason, sizeof m.reason);
    if (m.ok) {
        m.info.copy_gbs = copy_bandwidth();
        m.info.l2_gbs = l2_bandwidth(&m.info.l2_bytes);
    }
    ssize_t w = write(fd, &m, sizeof m);
    _exit(w == (ssize_t)sizeof m ? 0 : 1);
}

/* Parent side: read the whole message, giving up after the timeout.
 * Returns the number of bytes read. */
static size_t read_answer(int fd, probe_msg *m)
{
    size_t got = 0;
    while (got < sizeof *m) {
        struct pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, SP_PROBE_TIMEOUT_MS);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            break;
        ssize_t r = read(fd, (char *)m + got, sizeof *m - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

extern "C" int sp_gpu_probe(sp_gpu_info *info, char *reason, size_t reason_len)
{
    int fd[2];
    memset(info, 0, sizeof *info);
    if (pipe(fd))
        return snprintf(reason, reason_len, "GPU probe: pipe: %s", strerror(errno)), 0;
    fflush(NULL);       /* or the child's exit could repeat buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fd[0]);
        close(fd[1]);
        return snprintf(reason, reason_len, "GPU probe: fork: %s", strerror(e)), 0;
    }
    if (pid == 0) {
        close(fd[0]);
        probe_child(fd[1]);
    }
    close(fd[1]);
    probe_msg m;
    memset(&m, 0, sizeof m);
    size_t got = read_answer(fd[0], &m);
    close(fd[0]);
    if (got != sizeof m)
        kill(pid, SIGKILL);     /* hung or half-written: do not wait on it */
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof m)
        return snprintf(reason, reason_len, "GPU probe: the probing process %s",
                        got ? "answered only in part" : "died or did not answer in 60 s"),
               0;
    m.reason[sizeof m.reason - 1] = 0;
    m.info.detail[sizeof m.info.detail - 1] = 0;
    *info = m.info;
    snprintf(reason, reason_len, "%s", m.reason);
    return m.ok;
}

/* Median of n floats (n <= 32), by insertion sort. */
static float median_ms(float *t, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float s = t[j];
            t[j] = t[j - 1];
            t[j - 1] = s;
        }
    return n % 2 ? t[n / 2] : 0.5f * (t[n / 2 - 1] + t[n / 2]);
}

/* One cudaMemcpy device-to-device between events, REPS times after a
 * warm-up; the copy reads and writes `bytes` each. */
extern "C" int sp_gpu_copy_bandwidth(size_t bytes, double *gbps, sp_err *err)
{
    enum { REPS = 20 };
    void *a = NULL, *b = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float t[REPS];
    int rc = -1;
    *gbps = 0;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess ||
        cudaMemset(a, 1, bytes) != cudaSuccess || cudaEventCreate(&e0) != cudaSuccess ||
        cudaEventCreate(&e1) != cudaSuccess ||
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess) {
        sp_fail(err, "copy bandwidth: %s", cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    for (int i = 0; i < REPS; i++) {
        if (cudaEventRecord(e0) != cudaSuccess ||
            cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess ||
            cudaEventRecord(e1) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
            cudaEventElapsedTime(&t[i], e0, e1) != cudaSuccess) {
            sp_fail(err, "copy bandwidth: %s", cudaGetErrorString(cudaGetLastError()));
            goto out;
        }
    }
    *gbps = 2.0 * (double)bytes / (1e-3 * (double)median_ms(t, REPS)) * 1e-9;
    rc = 0;
out:
    cudaFree(a);
    cudaFree(b);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    return rc;
}
