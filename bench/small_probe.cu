/*
 * small_probe.cu — where the one-launch transposition of a small matrix
 * spends its time (bench/small_probe.sh builds and runs it on a GPU
 * machine). It includes kernels/transpose/transpose_small.cu built with
 * SMALL_PROBE, so block 0's thread 0 of the cluster path stamps the
 * global timer at each phase; for three generated shapes like the small
 * real matrices (olm1000, bcsstk06, west0479) it prints the median of 30
 * launches (after 10): the event time of the cluster path and of the
 * one-block counting path, and the cluster path's phases in us (double
 * values: the kernels' <double> instantiations).
 */
#ifndef SMALL_PROBE
#define SMALL_PROBE 1
#endif
#include "../kernels/transpose/transpose_small.cu"

#include <algorithm>
#include <cstdio>
#include <vector>

static double median(std::vector<double> x)
{
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "small_probe: %s: %s\n", #call, cudaGetErrorString(e_));               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* rows x cols, about per_row entries a row within 20 columns of the
 * diagonal (a deterministic LCG), sorted and distinct */
static void probe(int rows, int cols, int per_row, const char *what)
{
    std::vector<int32_t> rp(rows + 1), ci;
    std::vector<double> v;
    uint32_t s = 12345;
    for (int r = 0; r < rows; r++) {
        rp[r] = (int32_t)ci.size();
        std::vector<int32_t> cs;
        for (int j = 0; j < per_row; j++) {
            s = s * 1664525u + 1013904223u;
            cs.push_back((int32_t)((r + (int)(s >> 8) % 41 - 20 + cols) % cols));
        }
        std::sort(cs.begin(), cs.end());
        cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
        for (int32_t c : cs) {
            ci.push_back(c);
            v.push_back(1.0 + c);
        }
    }
    const int32_t nnz = (int32_t)ci.size();
    rp[rows] = nnz;
    int32_t *drp, *dci, *dcp, *dri;
    double *dv, *dcv;
    CHECK(cudaMalloc(&drp, 4 * (rows + 1)));
    CHECK(cudaMalloc(&dci, 4 * (size_t)nnz));
    CHECK(cudaMalloc(&dv, 8 * (size_t)nnz));
    CHECK(cudaMalloc(&dcp, 4 * (cols + 1)));
    CHECK(cudaMalloc(&dri, 4 * (size_t)nnz));
    CHECK(cudaMalloc(&dcv, 8 * (size_t)nnz));
    CHECK(cudaMemcpy(drp, rp.data(), 4 * (rows + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dci, ci.data(), 4 * (size_t)nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv, v.data(), 8 * (size_t)nnz, cudaMemcpyHostToDevice));
    CHECK(cudaFuncSetAttribute(small_cluster<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)CL_SMEM));
    CHECK(cudaFuncSetAttribute(small_count<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)COUNT_SMEM));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<std::vector<double>> phase(7);
    std::vector<double> ev_cluster, ev_block;
    for (int it = 0; it < 40; it++) {
        float ms;
        CHECK(cudaEventRecord(a));
        small_cluster<double><<<CL_BLOCKS, CL_THREADS, CL_SMEM>>>(drp, rows, dci, dv, nnz, cols,
                                                                 dcv, dcp, dri);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms, a, b));
        unsigned long long t[16];
        CHECK(cudaMemcpyFromSymbol(t, small_probe, sizeof t));
        if (it >= 10) {
            ev_cluster.push_back(ms * 1e3);
            for (int i = 1; i < 7; i++)
                phase[i].push_back((double)(t[i] - t[i - 1]) / 1e3);
        }
        CHECK(cudaEventRecord(a));
        small_count<double><<<1, COUNT_THREADS, COUNT_SMEM>>>(drp, rows, dci, dv, nnz, cols, dcv,
                                                              dcp, dri);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (it >= 10)
            ev_block.push_back(ms * 1e3);
    }
    printf("| %s | %d x %d | %d | %.2f | %.2f |", what, rows, cols, nnz, median(ev_cluster),
           median(ev_block));
    for (int i = 1; i < 7; i++)
        printf(" %.2f |", median(phase[i]));
    printf("\n");
    cudaFree(drp), cudaFree(dci), cudaFree(dv), cudaFree(dcp), cudaFree(dri), cudaFree(dcv);
}

int main(void)
{
    printf("| shape | size | nnz | cluster us | one block us | loads | ranks, rows | totals, "
           "cluster barrier | block sums, column scan | slots, writes | exit barrier |\n");
    printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    probe(1000, 1000, 4, "olm1000-like");
    probe(420, 420, 19, "bcsstk06-like");
    probe(479, 479, 4, "west0479-like");
    return 0;
}
