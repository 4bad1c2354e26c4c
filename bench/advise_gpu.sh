#!/usr/bin/env bash
# advise_gpu.sh — issue 25's GPU evidence, on a GPU machine in one call:
# unpack the real matrices of bench/advise_gpu.ini (bench/advise_mtx.sh:
# the shared mirror's tarballs and ../shared/real's files, carried as
# MIRROR and REAL), sweep it, and run `spsweep advise --evaluate` on the
# result (leave-one-matrix-out, beside always the most-often-best
# configuration and always cuSPARSE). Output in $OUT/advise-gpu (or
# results/advise-gpu): the database, the sweep's log, evaluate.md.
#
#   [MIRROR=.mirror/MM] [REAL=.real] bash bench/advise_gpu.sh
#
# Carry: mkdir -p .mirror && cp -r ../shared/suitesparse/MM .mirror/ (6 MB)
# and .real (bench/gpu_real_rounds.ini), with .gpu-deps.tar.xz.
set -uo pipefail
cd "$(dirname "$0")/.."
source tests/gpu/env.sh
out=${OUT:-results}/advise-gpu
mkdir -p "$out"
[ -x bin/spsweep ] || make -j16 CUDA=1 all >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
bash bench/advise_mtx.sh "${MIRROR:-.mirror/MM}" "${REAL:-.real}" >/dev/null
db=$out/advise_gpu.db
rm -f "$db" "$db-wal" "$db-shm"
t0=$SECONDS
bin/spsweep sweep bench/advise_gpu.ini --db "$db" >"$out/sweep.log" 2>&1 ||
  echo "spsweep sweep exited with $? (refused padded layouts are recorded skips)"
echo "sweep took $((SECONDS - t0)) s"
tail -4 "$out/sweep.log"
bin/spsweep advise --evaluate --device gpu --db "$db" --out "$out/evaluate.md" \
  >"$out/evaluate.txt" 2>&1
cat "$out/evaluate.txt"
