#!/usr/bin/env bash
# gpu_transpose_win.sh — on a GPU machine, in one go within BUDGET seconds
# (default 300; give the device call ~20 s more): build with CUDA, the GPU
# transposition tests (every registered kernel, the window kernel's own
# cases), compute-sanitizer memcheck and racecheck on the window kernel's
# tests (quick mode), the sweep of bench/gpu_transpose_win.ini (window
# kernel with its per-pass times, CUB sort, cuSPARSE) and its table, then
# racecheck on the primitives' tests (quick) with whatever time is left.
# Every step's limit is cut to the time left, so the script ends inside
# BUDGET with its logs. Logs, the database and the per-pass times
# (passes.log, from SPSWEEP_WINTRANS_PASSES) in $OUT (when set) or results/.
# SKIP_TESTS=1 skips the plain test run (sanitizers and bench still run).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}
mkdir -p "$out"
budget=${BUDGET:-300}
if [ ! -d .gpu-deps ] && [ -f .gpu-deps.tar.xz ]; then tar -xJf .gpu-deps.tar.xz; fi
if [ -d .gpu-deps ]; then
  d=$PWD/.gpu-deps
  export CPATH=$d/include LIBRARY_PATH=$d/lib LD_LIBRARY_PATH=$d/lib
fi
t0=$SECONDS
# lim N: N seconds, or fewer when less of the budget is left (at least 1)
lim() { local left=$((budget - (SECONDS - t0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
make -j16 CUDA=1 all build/tests/gpu build/bench/gpu_bw >"$out/build.log" 2>&1
echo "build rc=$? ($((SECONDS - t0)) s)"
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout "$(lim 90)" build/tests/gpu --filter 'gpu_transpose/*' >"$out/tests.log" 2>&1
  echo "tests rc=$? ($((SECONDS - t0)) s)"
  grep -E "FAIL|Synthesis" "$out/tests.log" | tail -12
fi
export SPSWEEP_GPU_TEST_QUICK=1
san="compute-sanitizer --target-processes all --error-exitcode 1"
timeout "$(lim 30)" $san --tool memcheck build/tests/gpu --jobs 1 \
  --filter 'gpu_transpose/wintrans_*' >"$out/sanitizer.log" 2>&1
echo "memcheck wintrans rc=$? ($((SECONDS - t0)) s)"
timeout "$(lim 25)" $san --tool racecheck build/tests/gpu --jobs 1 \
  --filter 'gpu_transpose/wintrans_r*' >>"$out/sanitizer.log" 2>&1
echo "racecheck wintrans rc=$? ($((SECONDS - t0)) s)"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Synthesis" "$out/sanitizer.log"
unset SPSWEEP_GPU_TEST_QUICK
rm -f "$out/passes.log"
SPSWEEP_WINTRANS_PASSES=$PWD/$out/passes.log SKIP_PRIM=1 \
  TRANSPOSE_INI=${TRANSPOSE_INI:-bench/gpu_transpose_win.ini} timeout "$(lim 100)" bash bench/gpu_transpose.sh
echo "bench rc=$? ($((SECONDS - t0)) s)"
[ -f "$out/passes.log" ] && python3 - "$out/passes.log" <<'PY'
import sys, collections, statistics
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    head, _, ms = line.partition(" ms:")
    runs[head].append({k: float(v) for k, v in (x.split("=") for x in ms.split())})
for head, rs in runs.items():
    print(head, "runs=%d" % len(rs), " ".join("%s=%.3f" % (k, statistics.median(r[k] for r in rs)) for k in rs[0]))
PY
left=$((budget - (SECONDS - t0)))
if [ "$left" -gt 10 ]; then
  SPSWEEP_GPU_TEST_QUICK=1 timeout "$((left - 5))" $san --tool racecheck build/tests/gpu --jobs 1 \
    --filter 'gpu_prim/*' >"$out/racecheck-prim.log" 2>&1
  echo "racecheck gpu_prim rc=$? ($((SECONDS - t0)) s)"
  grep -E "RACECHECK SUMMARY|Synthesis|hazard" "$out/racecheck-prim.log" | tail -5
else
  echo "racecheck gpu_prim: no time left"
fi
