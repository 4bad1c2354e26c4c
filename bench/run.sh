#!/usr/bin/env bash
# run.sh — `make bench`: Matrix Market parsing, spsweep's sp_mm_read against
# fast_matrix_market (the fastest reader we know of) on the same file, one
# thread each, and reload from spsweep's binary CSR cache. Prints a markdown
# table (bench/RESULTS.md keeps the one reported).
#
# The file: a random coordinate real general matrix of >= 200 MB written by
# build/bench/mm_parse --write-random (values with 17 significant digits,
# like real-world files), kept in bench/work/ (git-ignored) between runs.
# fast_matrix_market and scipy go into a venv in bench/work/venv (PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
work=bench/work
mkdir -p "$work"
make --no-print-directory all build/bench/mm_parse >/dev/null

file=$work/random-6M.mtx
[ -s "$file" ] || build/bench/mm_parse --write-random "$file" 1000000 6000000 1

venv=$work/venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import fast_matrix_market, scipy' 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check fast_matrix_market scipy
fi
py=$venv/bin/python

cat "$file" >/dev/null                        # both readers start from the page cache
ours=$(OMP_NUM_THREADS=1 build/bench/mm_parse "$file" "$work/reload.csr")
fmm1=$(OMP_NUM_THREADS=1 "$py" bench/fmm_read.py "$file" 1)
fmm2=$("$py" bench/fmm_read.py "$file" 2)
get() { echo "$1" | awk -F': ' -v k="$2" '$1 == k {print $2}'; }

cpu=$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
fmmver=$("$py" -c 'import importlib.metadata as m; print(m.version("fast_matrix_market"))')
echo "Machine: $cpu, $(nproc) cores; fast_matrix_market $fmmver; $(date -u +%F)"
echo
echo "| file MB | nnz | fmm 1 thread s | fmm MB/s | fmm 2 threads s | ours 1 thread s | ours MB/s | ours vs fmm 1 thread | ours to COO only s | cache reload s | cache GB/s |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
awk -v mb="$(get "$ours" file_mb)" -v nnz="$(get "$ours" nnz)" -v f1="$(get "$fmm1" fmm_1_s)" \
    -v f2="$(get "$fmm2" fmm_2_s)" -v p="$(get "$ours" parse_s)" -v c="$(get "$ours" coo_s)" \
    -v r="$(get "$ours" reload_s)" -v g="$(get "$ours" reload_gb_s)" 'BEGIN {
  printf "| %.0f | %d | %.3f | %.0f | %.3f | %.3f | %.0f | %.2fx | %.3f | %.3f | %.2f |\n",
         mb, nnz, f1, mb / f1, f2, p, mb / p, f1 / p, c, r, g
}'
echo
echo "fmm: fast_matrix_market.read_coo(path, parallelism=N), to COO arrays, median of 3."
echo "ours: sp_mm_read to a sorted CSR (duplicates summed), median of 3; 'to COO only' is"
echo "sp_mm_read_coo, the same parse stopping where read_coo stops."
echo "cache: sp_cache_read of the binary CSR written from the same matrix, median of 5, file in"
echo "the page cache ($(get "$ours" cache_gb) GB)."
