#!/usr/bin/env bash
# gpu_sort.sh — `make bench-sort`, on a GPU machine: one sweep of
# bench/gpu_sort.ini (every GPU sort kernel, keys and pairs, six
# distributions at 2^28 and 2^24 + 3 keys), then the table of
# bench/gpu_sort_report.py: per size, distribution and mode the median
# kernel time and Gkeys/s of every kernel, its ratio to CUB, and each
# kernel's slowest distribution against its uniform time (the goals of
# issue 8: best own sort >= 0.5x CUB pairs on 2^28 uniform; no distribution
# more than 3x slower than uniform). Output in $OUT (when set) or
# results/bench-sort/: bench-sort.db, sweep.log, table.md.
# SORT_BENCH_CONFIG overrides the config (e.g. a smaller one for a test).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}/bench-sort
mkdir -p "$out"
db=$out/bench-sort.db
config=${SORT_BENCH_CONFIG:-bench/gpu_sort.ini}
make --no-print-directory all >/dev/null
rm -f "$db" "$db-wal" "$db-shm"
bin/spsweep sweep "$config" --db "$db" >"$out/sweep.log" 2>&1 ||
  echo "spsweep sweep exited with $? (see $out/sweep.log)"
[ -s "$db" ] || { tail -30 "$out/sweep.log"; exit 1; }
python3 bench/gpu_sort_report.py "$db" | tee "$out/table.md"
