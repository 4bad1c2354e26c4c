#!/usr/bin/env bash
# gpu_transpose.sh — `make bench-gpu-transpose`, on a GPU machine: the device
# copy bandwidth (build/bench/gpu_bw), one sweep of bench/gpu_transpose.ini
# (every GPU transposition kernel and cusparseCsr2cscEx2 side by side on the
# bench set), one of bench/gpu_prim.ini (the primitives over `blocksize`),
# then the tables of bench/gpu_transpose_report.py: per matrix every
# kernel's median time, the best own kernel against cuSPARSE and their
# geomean. Output in $OUT (when set) or results/bench-gpu-transpose/:
# transpose.db, prim.db, *.log, table.md; the table is printed last.
# SKIP_PRIM=1 skips the primitives' sweep; TRANSPOSE_INI=file sweeps that
# instead of bench/gpu_transpose.ini (e.g. bench/gpu_transpose_win.ini).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}/bench-gpu-transpose
mkdir -p "$out"
make --no-print-directory all build/bench/gpu_bw >/dev/null
bw=$(build/bench/gpu_bw | awk '/^copy_gbs:/ {print $2}')
echo "device copy bandwidth: $bw GB/s"
for s in transpose prim; do
  [ "$s" = prim ] && [ -n "${SKIP_PRIM:-}" ] && continue
  db=$out/$s.db
  rm -f "$db" "$db-wal" "$db-shm"
  ini=bench/gpu_$s.ini
  [ "$s" = transpose ] && ini=${TRANSPOSE_INI:-$ini}
  bin/spsweep sweep "$ini" --db "$db" >"$out/$s.log" 2>&1 ||
    echo "spsweep sweep bench/gpu_$s.ini exited with $? (see $out/$s.log)"
done
[ -s "$out/transpose.db" ] || { tail -30 "$out/transpose.log"; exit 1; }
python3 bench/gpu_transpose_report.py "$out/transpose.db" \
  $( [ -s "$out/prim.db" ] && echo "$out/prim.db") | tee "$out/table.md"
