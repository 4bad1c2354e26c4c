#!/usr/bin/env bash
# qsort_gpu_check.sh — on a GPU machine, in one call: build (library, GPU
# tests, the quicksort bench at the default switches), time every design
# against CUB on every distribution at 2^24 and 2^28 at the defaults and
# block and queue at 1024/8192/8192, run the gpu_qsort tests, then
# compute-sanitizer memcheck and racecheck on the quick forms of the tests
# of the changed kernels. Six logs under ${OUT:-results}/qsort-check
# (a device call returns at most 8 files). No step has a time limit of its
# own: give the call 240 s or more (the build alone takes about a minute
# from a clean tree).
set -uo pipefail
cd "$(dirname "$0")/.."
source tests/gpu/env.sh    # the carried build dependencies
out=${OUT:-results}/qsort-check
mkdir -p "$out"
{ nvidia-smi -L; date -u; } > "$out/env.log" 2>&1
{ make --no-print-directory -j16 CUDA=1 build/libspsweep.a build/tests/gpu &&
  OUT=build/var bash bench/qsort_gpu_variants.sh "final=" -- 1 20; } > "$out/build.log" 2>&1
QSORT_PROFILE=1 build/var/final/qsort_gpu 5 24 28 > "$out/table.md" 2>&1
QSORT_BLOCK=1024,8192,8192 QSORT_QUEUE=1024,8192,8192 QSORT_SORTERS=cub,block,queue QSORT_PROFILE=1 \
  build/var/final/qsort_gpu 5 24 28 > "$out/table8192.md" 2>&1
build/tests/gpu --filter 'gpu_qsort/*' > "$out/test.log" 2>&1
echo "rc $?" >> "$out/test.log"
export SPSWEEP_GPU_TEST_QUICK=1
san="compute-sanitizer --target-processes all --error-exitcode 1"
for t in leaf_counting_pass scatter_windows block_design queue_design splitter_edges; do
  for tool in memcheck racecheck; do
    $san --tool $tool build/tests/gpu --jobs 1 --filter "gpu_qsort/$t" 2>&1 | tail -n 4
    echo "$tool $t rc ${PIPESTATUS[0]}"
  done
done > "$out/san.log" 2>&1
tail -n 2 "$out/test.log"; grep ' rc ' "$out/san.log"
