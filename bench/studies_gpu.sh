#!/usr/bin/env bash
# studies_gpu.sh — issue 20's evidence on a GPU machine without network, in
# one call: build, then for each study named (001, 002, ...) the config of
# configs/studies/ turned into a substitute for this run only
# (bench/study_substitute.py: the matrices the shared mirror holds are
# fetched from it, those of which .real/ holds a copy are read from there,
# every other one is a random matrix of its rows, cols and nonzeros, named
# in a comment; matrices past MAX_NNZ are left out), swept into a database
# of its own with a time limit, resumable. The databases, the substitute
# configs and the sweep logs come back under $OUT/studies (or
# results/studies); draw the report where gnuplot is:
#   bin/spsweep report --db results/studies/study-001-substitute.db --out ...
#
#   [MAX_NNZ=40000000] [LIMIT=400] bash bench/studies_gpu.sh 001 [002 ...]
#
# Carry: .gpu-deps.tar.xz (tests/gpu/carry-deps.sh), .real (cp
# ../shared/real/*.mtx.gz .real/) and .mirror (cp -r ../shared/suitesparse
# .mirror: MM/, files/ssstats.csv and the collection's full index
# ssstats-2020-full.csv, 6 MB). To resume a sweep cut by LIMIT on a fresh
# machine, carry the database back in as results/studies/ (DB_IN).
set -uo pipefail
cd "$(dirname "$0")/.."
source tests/gpu/env.sh
out=${OUT:-results}/studies
mkdir -p "$out" bench/work
max=${MAX_NNZ:-40000000}
limit=${LIMIT:-400}
nvidia-smi -L || true
[ -x bin/spsweep ] || make -j16 CUDA=1 all >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build done at $SECONDS s"
export SPSWEEP_SUITESPARSE_URL=file://$PWD/.mirror
for s in "$@"; do
  cfg=$(ls configs/studies/"$s"-*.ini 2>/dev/null | head -1)
  [ -n "$cfg" ] || { echo "no configs/studies/$s-*.ini"; continue; }
  sub=$out/$(basename "$cfg" .ini)-substitute.ini
  db=$out/study-$s-substitute.db
  [ -f "${DB_IN:-results/studies}/study-$s-substitute.db" ] && [ ! -f "$db" ] &&
    cp "${DB_IN:-results/studies}/study-$s-substitute.db" "$db"
  python3 bench/study_substitute.py "$cfg" .mirror/ssstats-2020-full.csv \
    --mirror .mirror/files/ssstats.csv --real .real --max-nnz "$max" --db "$db" >"$sub" ||
    { echo "$s: substitute failed"; continue; }
  t0=$SECONDS
  timeout -k 10 "$limit" bin/spsweep sweep "$sub" --cache-dir "$out/cache" \
    >"$out/sweep-$s.log" 2>&1
  rc=$?
  echo "study $s: sweep exit $rc after $((SECONDS - t0)) s (124: cut by LIMIT=$limit, resumable)"
  grep -E "^# |runs? (ok|failed|skipped)|combinations" "$out/sweep-$s.log" | tail -4
  python3 - "$db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for row in con.execute("SELECT status, count(*) FROM runs GROUP BY status"):
    print("  runs", *row)
PY
done
rm -rf "$out/cache"
echo "done at $SECONDS s"
