#!/usr/bin/env bash
# gpu_transpose_win.sh — on a GPU machine, in one go within BUDGET seconds
# (default 300; give the device call ~20 s more): build with CUDA; the sweep of bench/gpu_transpose_win.ini (window kernel, CUB
# sort, cuSPARSE; a run that hangs is cut by the ini's timeout) and its
# table; the window kernel's GPU tests one by one (--verbose: each result
# as it ends); compute-sanitizer memcheck and racecheck on the window kernel's
# tests (quick mode); racecheck on the primitives' tests (quick) with the
# time left. Every step's limit is cut to the time left, so the script
# ends inside BUDGET with its logs. (The kernel's own per-pass log,
# SPSWEEP_WINTRANS_PASSES, is gone: kernels time nothing themselves; nsys
# or ncu give the passes' times.) Logs in $OUT (when set) or results/:
# build, tests, transpose (the sweep's), table.md, sanitizer,
# racecheck-prim.

set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}
mkdir -p "$out"
out=$(cd "$out" && pwd)
budget=${BUDGET:-300}
source tests/gpu/env.sh    # the carried build dependencies
t0=$SECONDS
# lim N: N seconds, or fewer when less of the budget is left (at least 1)
lim() { local left=$((budget - (SECONDS - t0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
make -j16 CUDA=1 all build/tests/gpu build/bench/gpu_bw >"$out/build.log" 2>&1
echo "build rc=$? ($((SECONDS - t0)) s)"
# the sweep (out of $OUT: only its log and table come back)
bdir=$(mktemp -d)
SKIP_PRIM=1 OUT=$bdir TRANSPOSE_INI=${TRANSPOSE_INI:-bench/gpu_transpose_win.ini} \
  timeout "$(lim 150)" bash bench/gpu_transpose.sh
echo "bench rc=$? ($((SECONDS - t0)) s)"
cp "$bdir"/bench-gpu-transpose/transpose.log "$bdir"/bench-gpu-transpose/table.md "$out"/ 2>/dev/null
# the window kernel's own tests, one at a time, each result as it ends
timeout "$(lim 50)" build/tests/gpu --jobs 1 --verbose --filter 'gpu_transpose/wintrans_*' \
  >"$out/tests.log" 2>&1
echo "wintrans tests rc=$? ($((SECONDS - t0)) s)"
grep -E "FAIL|PASS|Synthesis" "$out/tests.log" | tail -12
export SPSWEEP_GPU_TEST_QUICK=1
san="compute-sanitizer --target-processes all --error-exitcode 1"
timeout "$(lim 30)" $san --tool memcheck build/tests/gpu --jobs 1 \
  --filter 'gpu_transpose/wintrans_*' >"$out/sanitizer.log" 2>&1
echo "memcheck wintrans rc=$? ($((SECONDS - t0)) s)"
timeout "$(lim 30)" $san --tool racecheck build/tests/gpu --jobs 1 \
  --filter 'gpu_transpose/wintrans_rows_longer_than_chunks' >>"$out/sanitizer.log" 2>&1
echo "racecheck wintrans rc=$? ($((SECONDS - t0)) s)"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Synthesis" "$out/sanitizer.log"
unset SPSWEEP_GPU_TEST_QUICK
left=$((budget - (SECONDS - t0)))
if [ "$left" -gt 10 ]; then
  SPSWEEP_GPU_TEST_QUICK=1 timeout "$((left - 5))" $san --tool racecheck build/tests/gpu --jobs 1 \
    --filter 'gpu_prim/*' >"$out/racecheck-prim.log" 2>&1
  echo "racecheck gpu_prim rc=$? ($((SECONDS - t0)) s)"
  grep -E "RACECHECK SUMMARY|Synthesis|hazard" "$out/racecheck-prim.log" | tail -5
else
  echo "racecheck gpu_prim: no time left"
fi
