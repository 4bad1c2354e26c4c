#!/usr/bin/env bash
# gpu_spmv_check.sh — the GPU SpMV work in one short device call (each step
# bounded so the whole ends within CHECK_S seconds, default 140): build with
# CUDA, compute-sanitizer memcheck and racecheck on the kernels named in
# KERNELS (quick test set), the quick bench (bench/gpu_spmv_quick.ini via
# bench/gpu_spmv.sh, stopped by SIGINT when out of time: the runs so far
# stay in the database), then the GPU SpMV tests of the same kernels (TEST_KERNELS
# overrides the list; TEST_KERNELS=all: every kernel) with the time left. Logs in
# $OUT (or results/spmv-check); the bench table is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/spmv-check}
mkdir -p "$out"
budget=${CHECK_S:-140}
kernels=${KERNELS:-spmv_csr_cuda_hybrid,spmv_sell_cuda}
source tests/gpu/env.sh    # the carried build dependencies
left() { echo $((budget - SECONDS)); }
make -j16 CUDA=1 all build/tests/gpu build/bench/gpu_bw >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build done at $SECONDS s"
if [ "${SPMV_SANITIZE:-1}" = 1 ]; then
san="compute-sanitizer --target-processes all --error-exitcode 1"
export SPSWEEP_GPU_TEST_KERNELS=$kernels
SPSWEEP_GPU_TEST_QUICK=1 timeout ${MEMCHECK_S:-32} $san --tool memcheck build/tests/gpu \
  --filter 'gpu_spmv/awkward_matrices' --jobs 1 >"$out/memcheck.log" 2>&1
echo "memcheck rc $? at $SECONDS s"; grep -h -E "Synthesis|ERROR SUMMARY" "$out/memcheck.log" | tail -2
SPSWEEP_GPU_TEST_QUICK=1 timeout ${RACECHECK_S:-10} $san --tool racecheck build/tests/gpu \
  --filter 'gpu_spmv/awkward_matrices' --jobs 1 >"$out/racecheck.log" 2>&1
echo "racecheck rc $? at $SECONDS s"; grep -h -E "Synthesis|RACECHECK SUMMARY" "$out/racecheck.log" | tail -2
unset SPSWEEP_GPU_TEST_KERNELS
fi
t=$(( $(left) - ${AFTER_BENCH_S:-10} ))
SPMV_BENCH_CONFIG=${SPMV_BENCH_CONFIG:-bench/gpu_spmv_quick.ini} OUT=$out \
  timeout -s INT -k 8 "$t" bash bench/gpu_spmv.sh >"$out/bench.log" 2>&1
echo "bench rc $? at $SECONDS s (limit $t s)"
t=$(( $(left) - 3 ))
if [ "$t" -gt 3 ]; then
  # TEST_KERNELS=all: every GPU SpMV kernel at its full axes
  if [ "${TEST_KERNELS:-}" = all ]; then unset SPSWEEP_GPU_TEST_KERNELS
  else export SPSWEEP_GPU_TEST_KERNELS=${TEST_KERNELS:-$kernels}; fi
  timeout "$t" build/tests/gpu --filter 'gpu_spmv/*' --verbose >"$out/tests.log" 2>&1
  echo "gpu_spmv tests rc $? at $SECONDS s (limit $t s)"; grep -h Synthesis "$out/tests.log"
fi
tail -40 "$out/bench.log"
