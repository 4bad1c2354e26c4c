"""fmm_read.py PATH THREADS — time fast_matrix_market.read_coo (median of 3; wall, range, CPU)."""
import statistics
import sys
import time

import fast_matrix_market as fmm

times, cpu = [], []
for _ in range(3):
    t0, c0 = time.perf_counter(), time.process_time()
    (data, (i, j)), shape = fmm.read_coo(sys.argv[1], parallelism=int(sys.argv[2]))
    times.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
print("fmm_%s_s: %.3f" % (sys.argv[2], statistics.median(times)))
print("fmm_min_s: %.3f\nfmm_max_s: %.3f" % (min(times), max(times)))
print("fmm_cpu_s: %.3f" % statistics.median(cpu))
print("fmm_nnz: %d" % len(data))
