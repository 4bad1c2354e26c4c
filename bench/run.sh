#!/usr/bin/env bash
# run.sh — `make bench`: Matrix Market parsing, spsweep's reader against
# fast_matrix_market (the fastest reader we know of) on the same file at
# every thread count t = 1, 2, 4, ... up to nproc, and nproc itself: ours
# with SPSWEEP_THREADS=t (fetch/mm_par.c), fmm with parallelism=t, the
# median of 3 reads each (and their range), the file in the page cache
# before every reader. One table row per thread count, with the ratios;
# then the reload from spsweep's binary CSR cache. Prints markdown
# (bench/RESULTS.md keeps the tables reported), and at the end the command
# that reruns it on another host.
#
#   bench/run.sh [NNZ]      the file's entries (default 6000000: 208 MB)
#   SIZE=NNZ                the same, for a quick run (SIZE=300000: ~10 MB)
#   SIZES="6000000 30000000"  several files, one table each (30000000: 1.09 GB,
#                           the issue's >= 1 GB file; written in ~15 s)
#   THREADS="1 2 16"        other thread counts than the default list
#   WHEELS=DIR              install fast_matrix_market and numpy offline, from
#                           the wheels in DIR (pip --no-index --find-links DIR)
#   PYTHON=python3.12       the interpreter for fmm (default python3); the
#                           wheels must match its version
#
# The file: a random coordinate real general matrix (NNZ / 6 rows, at least
# 1000) written by build/bench/mm_parse --write-random (values with 17
# significant digits, like real-world files), kept in bench/work/
# (git-ignored) between runs. fast_matrix_market and numpy go into a venv in
# bench/work/venv, from PyPI or WHEELS; where `python3 -m venv` cannot make
# one (no python3-venv package) into bench/work/pylib with pip --target,
# put on PYTHONPATH; with WHEELS and no pip at all, the wheels are unpacked
# there (a wheel is a zip of what pip would install).
set -euo pipefail
cd "$(dirname "$0")/.."
work=bench/work
mkdir -p "$work"
make --no-print-directory all build/bench/mm_parse >/dev/null

sizes=${SIZES:-${SIZE:-${1:-6000000}}}
for nnz in $sizes; do
  case $nnz in ''|*[!0-9]*) echo "run.sh: the file size is a count of entries, not '$nnz'" >&2; exit 2 ;; esac
  [ "$nnz" -ge 1000 ] || { echo "run.sh: at least 1000 entries, not $nnz" >&2; exit 2; }
done
started=$SECONDS

# ---- fast_matrix_market ------------------------------------------------------
python=${PYTHON:-python3}
pip_args=(-q --disable-pip-version-check)
[ -n "${WHEELS:-}" ] && pip_args+=(--no-index --find-links "$WHEELS")
have_fmm() { "$1" -c 'import fast_matrix_market, numpy' 2>/dev/null; }
venv=$work/venv pylib=$work/pylib
if have_fmm "$venv/bin/python"; then
  py=$venv/bin/python
elif [ -d "$pylib" ] && PYTHONPATH=$pylib have_fmm "$python"; then
  py=$python; export PYTHONPATH=$pylib
elif rm -rf "$venv" && "$python" -m venv "$venv" 2>/dev/null &&
     "$venv/bin/python" -m pip install "${pip_args[@]}" fast_matrix_market numpy; then
  py=$venv/bin/python
else
  echo "run.sh: no venv here ($python -m venv failed); pip install --target $pylib" >&2
  rm -rf "$venv" "$pylib"
  if ! "$python" -m pip install "${pip_args[@]}" --target "$pylib" fast_matrix_market numpy &&
     ! { [ -n "${WHEELS:-}" ] && echo "run.sh: no pip either; unpacking the wheels" >&2 &&
         for w in "$WHEELS"/fast_matrix_market-*.whl "$WHEELS"/numpy-*.whl; do
           "$python" -m zipfile -e "$w" "$pylib" || exit 1
         done && PYTHONPATH=$pylib have_fmm "$python"; }; then
    echo "run.sh: fast_matrix_market could not be installed for $("$python" -V 2>&1)" \
         "${WHEELS:+from $WHEELS (wheels for another Python? give PYTHON=)}" >&2
    exit 1
  fi
  py=$python; export PYTHONPATH=$pylib
fi
have_fmm "$py" || { echo "run.sh: fast_matrix_market installed but not importable" >&2; exit 1; }

# ---- thread counts: 1, 2, 4, ... <= nproc, and nproc ---------------------------
cpus=$(nproc)
if [ -n "${THREADS:-}" ]; then
  threads=$THREADS
else
  threads="" t=1
  while [ "$t" -le "$cpus" ]; do threads="$threads $t"; t=$((t * 2)); done
  [ $((t / 2)) = "$cpus" ] || threads="$threads $cpus"
fi

get() { echo "$1" | awk -F': ' -v k="$2" '$1 == k {print $2}'; }
cpu=$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
fmmver=$("$py" -c 'import importlib.metadata as m; print(m.version("fast_matrix_market"))')
echo "Machine: $cpu, $cpus cores; fast_matrix_market $fmmver ($("$py" -V 2>&1)); $(date -u +%F)"
echo "spsweep: $(git rev-parse --abbrev-ref HEAD 2>/dev/null) $(git rev-parse --short HEAD 2>/dev/null)"
for nnz in $sizes; do
  rows=$((nnz / 6 > 1000 ? nnz / 6 : 1000))
  file=$work/random-$nnz.mtx
  [ "$nnz" = 6000000 ] && file=$work/random-6M.mtx     # the file of the earlier tables
  if [ ! -s "$file" ]; then
    build/bench/mm_parse --write-random "$file.part" "$rows" "$nnz" 1
    mv "$file.part" "$file"
  fi
  echo
  echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows both readers)"
  echo "File: $file, $(( $(stat -c %s "$file") / 1000000 )) MB, $nnz entries, $rows x $rows, random order"
  echo
  echo "| threads | ours → CSR s (range) | ours MB/s | ours → COO s | fmm read_coo s (range) | fmm MB/s | fmm / ours CSR | fmm / ours COO | CPU s: ours CSR / fmm |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  first=""
  for t in $threads; do
    cat "$file" >/dev/null                      # both readers start from the page cache
    ours=$(SPSWEEP_THREADS=$t OMP_NUM_THREADS=$t build/bench/mm_parse "$file" "$work/reload.csr")
    cat "$file" >/dev/null
    fmm=$("$py" bench/fmm_read.py "$file" "$t")
    [ "$(get "$fmm" fmm_nnz)" = "$nnz" ] ||
      { echo "run.sh: fmm read $(get "$fmm" fmm_nnz) entries, not $nnz" >&2; exit 1; }
    [ -n "$first" ] || first=$ours
    awk -v t="$t" -v mb="$(get "$ours" file_mb)" -v p="$(get "$ours" parse_s)" \
        -v plo="$(get "$ours" parse_min_s)" -v phi="$(get "$ours" parse_max_s)" \
        -v c="$(get "$ours" coo_s)" -v f="$(get "$fmm" "fmm_${t}_s")" \
        -v flo="$(get "$fmm" fmm_min_s)" -v fhi="$(get "$fmm" fmm_max_s)" \
        -v pc="$(get "$ours" parse_cpu_s)" -v fc="$(get "$fmm" fmm_cpu_s)" 'BEGIN {
      printf "| %d | %.3f (%.3f-%.3f) | %.0f | %.3f | %.3f (%.3f-%.3f) | %.0f | %.2fx | %.2fx | %.3f / %.3f |\n",
             t, p, plo, phi, mb / p, c, f, flo, fhi, mb / f, f / p, f / c, pc, fc
    }'
  done
  echo
  echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Cache reload (sp_cache_read of the binary CSR, median of 5, $(get "$first" cache_gb) GB):" \
       "$(get "$first" reload_s) s = $(get "$first" reload_gb_s) GB/s."
done
echo
echo "ours → CSR: sp_mm_read to a sorted CSR (duplicates summed, the source hashed); ours → COO:"
echo "sp_mm_read_coo, the same parse stopping where read_coo stops (COO arrays, duplicates kept)."
echo "fmm: fast_matrix_market.read_coo(path, parallelism=t) to numpy COO arrays. Each the median"
echo "of 3 reads (range: fastest-slowest); a ratio above 1x: ours is faster. CPU s: the median"
echo "read's CPU time (all threads; a loaded machine's wall times say little, its CPU times more)."
echo "$((SECONDS - started)) s in all."
echo
echo "To rerun on another host (no network there: carry .dev/wheels, wheels for its Python):"
echo "  WHEELS=.dev/wheels PYTHON=python3.12 THREADS=\"1 2 4 8 16\" SIZES=\"6000000 30000000\" make bench"
