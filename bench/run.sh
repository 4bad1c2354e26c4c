#!/usr/bin/env bash
# run.sh — `make bench`: Matrix Market parsing against fast_matrix_market at
# the same thread count, and reload from the binary CSR cache. Writes a
# markdown table to stdout (bench/RESULTS.md keeps the reported one).
set -euo pipefail
cd "$(dirname "$0")/.."
work=bench/work
mkdir -p "$work"
make --no-print-directory all build/bench/mm_parse >/dev/null
file=$work/random-6M.mtx
[ -s "$file" ] || build/bench/mm_parse --write-random "$file" 1000000 6000000 1
py=$(command -v python3)
if [ ! -d "$work/py/fast_matrix_market" ]; then
  "$py" -m pip install -q --target "$work/py" fast_matrix_market numpy >/dev/null
fi
export PYTHONPATH=$work/py
cat "$file" >/dev/null                        # same page-cache state for both
ours=$(OMP_NUM_THREADS=1 build/bench/mm_parse "$file" "$work/reload.csr")
fmm1=$("$py" bench/fmm_read.py "$file" 1)
fmm2=$("$py" bench/fmm_read.py "$file" 2)
get() { echo "$1" | awk -F': ' -v k="$2" '$1 == k {print $2}'; }
mb=$(get "$ours" file_mb)
cpu=$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
echo "Machine: $cpu, $(nproc) cores; $(date -u +%F)"
echo
echo "| what | file MB | nnz | seconds | MB/s | vs fmm 1 thread |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
f1=$(get "$fmm1" fmm_1_s); f2=$(get "$fmm2" fmm_2_s); p=$(get "$ours" parse_s)
c=$(get "$ours" coo_s)
awk -v mb="$mb" -v nnz="$(get "$ours" nnz)" -v f1="$f1" -v f2="$f2" -v p="$p" -v c="$c" 'BEGIN {
  printf "| fast_matrix_market read_coo, 1 thread | %.0f | %d | %.3f | %.0f | 1.00 |\n", mb, nnz, f1, mb / f1
  printf "| fast_matrix_market read_coo, 2 threads | %.0f | %d | %.3f | %.0f | %.2f |\n", mb, nnz, f2, mb / f2, f1 / f2
  printf "| spsweep sp_mm_read_coo (same output as read_coo), 1 thread | %.0f | %d | %.3f | %.0f | %.2f |\n", mb, nnz, c, mb / c, f1 / c
  printf "| spsweep sp_mm_read to sorted CSR, 1 thread | %.0f | %d | %.3f | %.0f | %.2f |\n", mb, nnz, p, mb / p, f1 / p
}'
echo
echo "Binary cache reload: $(get "$ours" cache_gb) GB in $(get "$ours" reload_s) s = $(get "$ours" reload_gb_s) GB/s (median of 5, file in page cache)"
