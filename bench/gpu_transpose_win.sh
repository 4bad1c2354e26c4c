#!/usr/bin/env bash
# gpu_transpose_win.sh — on a GPU machine, in one go (about 70 s on the
# H100 when every step passes quickly; the step limits — tests 60 s,
# memcheck 40 s, racecheck 20 s, bench 90 s — plus the build can reach
# 300 s, so give the device call at least that): build with CUDA, the GPU transposition tests (every registered
# kernel, the window kernel's own cases), compute-sanitizer memcheck and
# racecheck on the window kernel's tests (quick mode), then the sweep of
# bench/gpu_transpose_win.ini (window kernel, CUB sort, cuSPARSE) and its
# table. Logs and the database in $OUT (when set) or results/.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}
mkdir -p "$out"
if [ ! -d .gpu-deps ] && [ -f .gpu-deps.tar.xz ]; then tar -xJf .gpu-deps.tar.xz; fi
if [ -d .gpu-deps ]; then
  d=$PWD/.gpu-deps
  export CPATH=$d/include LIBRARY_PATH=$d/lib LD_LIBRARY_PATH=$d/lib
fi
t0=$SECONDS
make -j16 CUDA=1 all build/tests/gpu build/bench/gpu_bw >"$out/build.log" 2>&1
echo "build rc=$? ($((SECONDS - t0)) s)"
timeout 60 build/tests/gpu --filter 'gpu_transpose/*' >"$out/tests.log" 2>&1
echo "tests rc=$? ($((SECONDS - t0)) s)"
grep -E "FAIL|Synthesis" "$out/tests.log" | tail -12
export SPSWEEP_GPU_TEST_QUICK=1
timeout 40 compute-sanitizer --tool memcheck --target-processes all build/tests/gpu \
  --filter 'gpu_transpose/wintrans_*' >"$out/sanitizer.log" 2>&1
echo "memcheck rc=$? ($((SECONDS - t0)) s)"
timeout 20 compute-sanitizer --tool racecheck --target-processes all build/tests/gpu \
  --filter 'gpu_transpose/wintrans_rows_longer_than_chunks' >>"$out/sanitizer.log" 2>&1
echo "racecheck rc=$? ($((SECONDS - t0)) s)"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Synthesis" "$out/sanitizer.log"
unset SPSWEEP_GPU_TEST_QUICK
SKIP_PRIM=1 TRANSPOSE_INI=bench/gpu_transpose_win.ini timeout 90 bash bench/gpu_transpose.sh
echo "bench rc=$? ($((SECONDS - t0)) s)"
