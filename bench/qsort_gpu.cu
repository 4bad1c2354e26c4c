/*
 * qsort_gpu.cu — the three GPU quicksorts (kernels/sort/qsort_gpu.h) side
 * by side with CUB DeviceRadixSort, in one process: every design and CUB x
 * distributions (uniform, sorted, reverse, all equal, 16 distinct, Zipf-
 * like) x sizes (default 2^24 and 2^28), keys only and pairs. Keys are made
 * on the device; before every timed run the input is restored by a
 * device-to-device copy outside the events. Time = median of REPS runs
 * after one warm-up (CUDA events around the sort call alone, including
 * the host-driven designs' counter reads). Each result is checked on the
 * device: keys ascending, the multiset of keys kept (a sum of hashed
 * keys), and for pairs each value pointing at an input key equal to its
 * key and the values a permutation (sums of hashed positions).
 *
 *   build/bench/qsort_gpu [REPS [LOG2N ...]]      (bench/qsort_gpu.sh builds it)
 *
 * Environment: QSORT_THREAD / QSORT_BLOCK / QSORT_QUEUE = "bs,window,cutoff"
 * replace a design's defaults; QSORT_SORTERS = e.g. "cub,block" and
 * QSORT_DISTS = e.g. "uniform,zipf" run a subset; QSORT_PROFILE = 1 adds,
 * per size, each design's time by phase on uniform pairs (one run, each
 * phase ended by a synchronisation, so the sum exceeds the plain time).
 *
 * Prints a Markdown table: ms, Mkeys/s, and the ratio of CUB's time to
 * the sorter's (>= 0.5 is the issue's goal for pairs at 2^28 uniform).
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "../kernels/sort/qsort_level.cuh"

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, \
                    __LINE__);                                                            \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

enum { UNIFORM, SORTED, REVERSE, EQUAL, DISTINCT16, ZIPF, NDIST };
static const char *dist_names[] = {"uniform", "sorted", "reverse", "equal", "16 distinct", "zipf"};

__device__ unsigned long long mix64(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

__global__ void gen_keys(unsigned *k, unsigned *v, long long n, int dist, unsigned seed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned long long r = mix64((unsigned long long)i * 0x9e3779b97f4a7c15ull + seed);
        unsigned key;
        switch (dist) {
        case UNIFORM: key = (unsigned)(r >> 32); break;
        case SORTED: key = (unsigned)((unsigned long long)i * 4294967291ull / n); break;
        case REVERSE: key = 0xffffffffu - (unsigned)((unsigned long long)i * 4294967291ull / n); break;
        case EQUAL: key = 0x5a5a5a5au; break;
        case DISTINCT16: key = (unsigned)(r >> 60) * 0x11111111u; break;
        default: key = (unsigned)exp((double)(r >> 11) / 9007199254740992.0 * log(16777216.0));
        }
        k[i] = key;
        v[i] = (unsigned)i;
    }
}

/* out[0]: order violations; [1]: sum of mixed keys; [2]: values not
 * following their key; [3]: sum of mixed values. */
__global__ void check_sorted(const unsigned *k, const unsigned *v, const unsigned *kin, long long n,
                             unsigned long long *out)
{
    unsigned long long bad = 0, hk = 0, badv = 0, hv = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        if (i + 1 < n && k[i] > k[i + 1])
            bad++;
        hk += mix64(k[i]);
        if (v) {
            unsigned p = v[i];
            if (p >= n || kin[p] != k[i])
                badv++;
            hv += mix64(p + 1ull);
        }
    }
    atomicAdd(&out[0], bad);
    atomicAdd(&out[1], hk);
    atomicAdd(&out[2], badv);
    atomicAdd(&out[3], hv);
}

struct bufs {
    long long n;
    unsigned *kin, *vin, *k, *v, *k2, *v2;
    void *ws, *cub_tmp;
    size_t ws_bytes, cub_bytes;
    unsigned long long *chk;
};

/* The checksums of the input (keys, positions). */
static void input_sums(bufs &b, unsigned long long ref[4])
{
    CK(cudaMemset(b.chk, 0, 4 * 8));
    check_sorted<<<1024, 256>>>(b.kin, b.vin, b.kin, b.n, b.chk);
    CK(cudaGetLastError());
    CK(cudaMemcpy(ref, b.chk, 4 * 8, cudaMemcpyDeviceToHost));
}

/* sorter: 0 = CUB, 1 + design. Returns ms; *ok = all checks passed. */
static double run_one(bufs &b, int sorter, int pairs, const sp_qsort_opts *o, int reps,
                      const unsigned long long ref[4], int *ok, char *why, size_t why_len)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    const unsigned *outk = b.k, *outv = b.v;
    *ok = 1;
    why[0] = 0;
    for (int r = -1; r < reps; r++) {
        CK(cudaMemcpy(b.k, b.kin, b.n * 4, cudaMemcpyDeviceToDevice));
        if (pairs)
            CK(cudaMemcpy(b.v, b.vin, b.n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e0));
        sp_err err;
        int rc = 0;
        if (sorter == 0) {
            size_t tb = b.cub_bytes;
            if (pairs)
                CK(cub::DeviceRadixSort::SortPairs(b.cub_tmp, tb, b.k, b.k2, b.v, b.v2, b.n));
            else
                CK(cub::DeviceRadixSort::SortKeys(b.cub_tmp, tb, b.k, b.k2, b.n));
            outk = b.k2;
            outv = b.v2;
        } else if (sorter == 1) {
            rc = sp_qsort_thread(b.k, pairs ? b.v : NULL, b.n, b.ws, o, 0, &err);
        } else if (sorter == 2) {
            rc = sp_qsort_block(b.k, pairs ? b.v : NULL, b.n, b.ws, o, 0, &err);
        } else {
            rc = sp_qsort_queue(b.k, pairs ? b.v : NULL, b.n, b.ws, o, 0, &err);
        }
        CK(cudaEventRecord(e1));
        cudaError_t e = cudaEventSynchronize(e1);
        if (rc || e != cudaSuccess) {
            snprintf(why, why_len, "%s", rc ? err.msg : cudaGetErrorString(e));
            *ok = 0;
            return -1;
        }
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (r >= 0)
            ms.push_back(t);
        if (r == -1 && t > 2000 && reps > 1)
            reps = 1; /* a slow one: one timed run is enough */
    }
    unsigned long long h[4];
    CK(cudaMemset(b.chk, 0, 4 * 8));
    check_sorted<<<1024, 256>>>(outk, pairs ? outv : NULL, b.kin, b.n, b.chk);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, b.chk, 4 * 8, cudaMemcpyDeviceToHost));
    if (h[0] || h[1] != ref[1] || (pairs && (h[2] || h[3] != ref[3]))) {
        *ok = 0;
        snprintf(why, why_len, "order %llu, keys %s, values %llu off, %s", h[0],
                 h[1] == ref[1] ? "kept" : "CHANGED", h[2], h[3] == ref[3] ? "perm" : "NOT PERM");
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

/* Each design once on uniform pairs with qs_profile set: ms per phase. */
static void profile_designs(bufs &b, const sp_qsort_opts *opts, const char *const *names, int lg)
{
    static const char *ph[QS_PH_N] = {"sample", "count", "scan", "scatter", "children",
                                      "leaves", "thread", "queue"};
    gen_keys<<<4096, 256>>>(b.kin, b.vin, b.n, UNIFORM, 12345u);
    CK(cudaGetLastError());
    printf("\nphases at 2^%d uniform pairs, ms (each phase synchronised):\n", lg);
    for (int s = 1; s < 4; s++) {
        CK(cudaMemcpy(b.k, b.kin, b.n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaMemcpy(b.v, b.vin, b.n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaDeviceSynchronize());
        qs_prof p;
        memset(&p, 0, sizeof p);
        qs_profile = &p;
        qs_phase(0, -1);
        sp_err err;
        int rc = s == 1   ? sp_qsort_thread(b.k, b.v, b.n, b.ws, &opts[s], 0, &err)
                 : s == 2 ? sp_qsort_block(b.k, b.v, b.n, b.ws, &opts[s], 0, &err)
                          : sp_qsort_queue(b.k, b.v, b.n, b.ws, &opts[s], 0, &err);
        qs_phase(0, QS_PH_N - 1);
        qs_profile = NULL;
        CK(cudaDeviceSynchronize());
        printf("  %-6s%s", names[s], rc ? " FAILED" : "");
        double sum = 0;
        for (int i = 0; i < QS_PH_N; i++)
            if (p.ms[i] > 0) {
                printf("  %s %.2f", ph[i], p.ms[i]);
                sum += p.ms[i];
            }
        printf("  (sum %.2f)\n", sum);
    }
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    std::vector<int> logs;
    for (int i = 2; i < argc; i++)
        logs.push_back(atoi(argv[i]));
    if (logs.empty())
        logs = {24, 28};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs; median of %d runs after one warm-up\n", prop.name,
           prop.multiProcessorCount, reps);
    const char *names[] = {"cub", "thread", "block", "queue"};
    const char *envs[] = {NULL, "QSORT_THREAD", "QSORT_BLOCK", "QSORT_QUEUE"};
    sp_qsort_opts opts[4];
    for (int s = 1; s < 4; s++) {
        opts[s] = sp_qsort_defaults((sp_qsort_design)(s - 1));
        const char *e = getenv(envs[s]);
        sp_qsort_opts o;
        if (e && sscanf(e, "%d,%d,%d", &o.blocksize, &o.window, &o.cutoff) == 3)
            opts[s] = o;
        sp_err err;
        if (sp_qsort_check_opts((sp_qsort_design)(s - 1), &opts[s], &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        printf("%s: blocksize %d, window %d, cutoff %d\n", names[s], opts[s].blocksize,
               opts[s].window, opts[s].cutoff);
    }
    const char *only = getenv("QSORT_SORTERS"), *dists = getenv("QSORT_DISTS");
    int profile = getenv("QSORT_PROFILE") && atoi(getenv("QSORT_PROFILE"));
    printf("\n| n | distribution | sorter | keys ms | keys Mkeys/s | keys vs CUB | pairs ms | "
           "pairs Mkeys/s | pairs vs CUB | check |\n");
    printf("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (int lg : logs) {
        bufs b;
        memset(&b, 0, sizeof b);
        b.n = 1ll << lg;
        size_t bytes = b.n * 4;
        CK(cudaMalloc(&b.kin, bytes));
        CK(cudaMalloc(&b.vin, bytes));
        CK(cudaMalloc(&b.k, bytes));
        CK(cudaMalloc(&b.v, bytes));
        CK(cudaMalloc(&b.k2, bytes));
        CK(cudaMalloc(&b.v2, bytes));
        CK(cudaMalloc(&b.chk, 64));
        b.ws_bytes = std::max({sp_qsort_thread_workspace(b.n, 1, &opts[1]),
                               sp_qsort_block_workspace(b.n, 1, &opts[2]),
                               sp_qsort_queue_workspace(b.n, 1, &opts[3])});
        CK(cudaMalloc(&b.ws, b.ws_bytes));
        size_t tk = 0, tp = 0;
        CK(cub::DeviceRadixSort::SortKeys(NULL, tk, b.k, b.k2, b.n));
        CK(cub::DeviceRadixSort::SortPairs(NULL, tp, b.k, b.k2, b.v, b.v2, b.n));
        b.cub_bytes = std::max(tk, tp);
        CK(cudaMalloc(&b.cub_tmp, b.cub_bytes));
        for (int d = 0; d < NDIST; d++) {
            if (dists && !strstr(dists, dist_names[d]))
                continue;
            gen_keys<<<4096, 256>>>(b.kin, b.vin, b.n, d, 12345u + d);
            CK(cudaGetLastError());
            unsigned long long ref[4];
            input_sums(b, ref);
            double cub_ms[2] = {0, 0};
            for (int s = 0; s < 4; s++) {
                if (only && s > 0 && !strstr(only, names[s]))
                    continue;
                double t[2];
                int ok[2];
                char why[2][1100];
                for (int p = 0; p < 2; p++)
                    t[p] = run_one(b, s, p, &opts[s], reps, ref, &ok[p], why[p], sizeof why[p]);
                if (s == 0) {
                    cub_ms[0] = t[0];
                    cub_ms[1] = t[1];
                }
                printf("| 2^%d | %s | %s | %.3f | %.0f | %.2f | %.3f | %.0f | %.2f | %s%s%s |\n",
                       lg, dist_names[d], names[s], t[0], b.n / t[0] / 1e3, cub_ms[0] / t[0],
                       t[1], b.n / t[1] / 1e3, cub_ms[1] / t[1],
                       ok[0] && ok[1] ? "ok" : "FAILED: ", ok[0] ? "" : why[0],
                       ok[1] ? "" : why[1]);
                fflush(stdout);
            }
        }
        if (profile)
            profile_designs(b, opts, names, lg);
        cudaFree(b.kin);
        cudaFree(b.vin);
        cudaFree(b.k);
        cudaFree(b.v);
        cudaFree(b.k2);
        cudaFree(b.v2);
        cudaFree(b.ws);
        cudaFree(b.cub_tmp);
        cudaFree(b.chk);
    }
    return 0;
}
