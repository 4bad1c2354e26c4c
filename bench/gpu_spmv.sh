#!/usr/bin/env bash
# gpu_spmv.sh — `make bench-gpu`, on a GPU machine: the device copy
# bandwidth (build/bench/gpu_bw), then one sweep of bench/gpu_spmv.ini (every
# GPU SpMV kernel side by side on the bench set), then the table of
# bench/gpu_spmv_report.py: per matrix the best own kernel against the best
# cuSPARSE algorithm, their geomean, and the fraction of the min-bytes bound.
# Output in $OUT (when set) or results/bench-gpu/: bench-gpu.db, sweep.log,
# table.md; the table is printed last. SPMV_BENCH_CONFIG names another
# config (bench/gpu_spmv_quick.ini: the winners and the new kernels only).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}/bench-gpu
mkdir -p "$out"
db=$out/bench-gpu.db
make --no-print-directory all build/bench/gpu_bw >/dev/null
bw=$(build/bench/gpu_bw | awk '/^copy_gbs:/ {print $2}')
echo "device copy bandwidth: $bw GB/s"
rm -f "$db" "$db-wal" "$db-shm"
# A non-zero exit is expected while the runner records refused combinations
# (ELL on rmat and denserow) as errors; the report lists them.
bin/spsweep sweep "${SPMV_BENCH_CONFIG:-bench/gpu_spmv.ini}" --db "$db" >"$out/sweep.log" 2>&1 ||
  echo "spsweep sweep exited with $? (see $out/sweep.log)"
[ -s "$db" ] || { tail -30 "$out/sweep.log"; exit 1; }
python3 bench/gpu_spmv_report.py "$db" | tee "$out/table.md"
