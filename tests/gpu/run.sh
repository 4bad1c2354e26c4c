#!/usr/bin/env bash
# run.sh — `make gpu-test`: on a machine with a CUDA GPU, in one go:
# build with CUDA, run the GPU tests, run them under compute-sanitizer
# (memcheck, racecheck), run the CPU unit tests, and sweep configs/gpu.ini.
# Logs go to $OUT when it is set (the device tool), else results/gpu-test/.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-results/gpu-test}
mkdir -p "$out"
declare -a names=() states=()
step() {            # step NAME COMMAND...: run, log, remember the outcome
  local name=$1; shift
  echo "=== $name: $*"
  local t0=$SECONDS
  if "$@" >"$out/$name.log" 2>&1; then states+=("ok ($((SECONDS - t0)) s)")
  else states+=("FAILED rc=$? ($((SECONDS - t0)) s), see $name.log"); tail -30 "$out/$name.log"; fi
  names+=("$name")
}
nvidia-smi -L || true
nvcc --version | tail -2 || true
jobs=$(nproc)
step build make -j"$jobs" CUDA=1 all build/tests/gpu build/tests/unit
step gpu-tests build/tests/gpu --verbose
if command -v compute-sanitizer >/dev/null; then
  step memcheck compute-sanitizer --tool memcheck --target-processes all --error-exitcode 1 \
    build/tests/gpu --jobs 1
  step racecheck compute-sanitizer --tool racecheck --target-processes all --error-exitcode 1 \
    build/tests/gpu --jobs 1 --filter 'gpu_spmv/awkward_matrices'
else
  names+=("sanitizer"); states+=("skipped: compute-sanitizer not found")
fi
step unit-tests build/tests/unit --jobs "$jobs"
if [ -f configs/gpu.ini ]; then
  rm -f "$out/gpu.db"
  step gpu-sweep bin/spsweep sweep configs/gpu.ini --db "$out/gpu.db"
  tail -25 "$out/gpu-sweep.log"
fi
grep -h "Synthesis" "$out"/*.log 2>/dev/null | sed 's/^/  /'
echo "=== summary"
rc=0
for i in "${!names[@]}"; do
  printf '  %-12s %s\n' "${names[$i]}" "${states[$i]}"
  case ${states[$i]} in FAILED*) rc=1;; esac
done
exit $rc
