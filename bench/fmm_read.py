"""fmm_read.py PATH THREADS — time fast_matrix_market.read_coo (median of 3)."""
import statistics
import sys
import time

import fast_matrix_market as fmm

times = []
for _ in range(3):
    t0 = time.perf_counter()
    (data, (i, j)), shape = fmm.read_coo(sys.argv[1], parallelism=int(sys.argv[2]))
    times.append(time.perf_counter() - t0)
print("fmm_%s_s: %.3f" % (sys.argv[2], statistics.median(times)))
print("fmm_min_s: %.3f\nfmm_max_s: %.3f" % (min(times), max(times)))
print("fmm_nnz: %d" % len(data))
