#!/usr/bin/env bash
# advise_gpu.sh — issue 25's GPU evidence, on a GPU machine in one call:
# unpack the real matrices of bench/advise_gpu.ini (bench/advise_mtx.sh:
# the shared mirror's tarballs and ../shared/real's files, carried as
# MIRROR and REAL), sweep it, and run `spsweep advise --evaluate` on the
# result (leave-one-matrix-out, beside the safest configuration, always the
# most-often-best configuration and always cuSPARSE). Output in
# $OUT/advise-gpu (or results/advise-gpu): the database, the sweep's log,
# evaluate.md.
#
# HOLDOUT=1 also sweeps bench/advise_gpu_holdout.ini (28 generated matrices
# advise has not learnt from; no files needed) into advise_gpu_holdout.db
# and judges it held out, advised from the first sweep alone
# (evaluate-heldout.md: `--test`), then leave-one-out alone and pooled with
# the first (evaluate-holdout.md, evaluate-pooled.md): a second sweep to
# test rules drawn from the first.
#
#   [MIRROR=.mirror/MM] [REAL=.real] [HOLDOUT=1] bash bench/advise_gpu.sh
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

# sweep CONFIG DB LOG: a fresh database of CONFIG's runs
sweep() {
  rm -f "$2" "$2-wal" "$2-shm"
  local t0=$SECONDS
  bin/spsweep sweep "$1" --db "$2" >"$3" 2>&1 ||
    echo "spsweep sweep $1 exited with $? (refused padded layouts are recorded skips)"
  echo "$1: sweep took $((SECONDS - t0)) s"
  tail -4 "$3"
}

# evaluate NAME ARGS...: the evaluation of the databases ARGS names
# (--db DB to learn from and judge leave-one-out, --test DB held out)
evaluate() {
  local name=$1
  shift
  bin/spsweep advise --evaluate --device gpu "$@" --out "$out/$name.md" \
    >"$out/$name.txt" 2>&1
  echo "== $name"
  cat "$out/$name.txt"
}

db=$out/advise_gpu.db
sweep bench/advise_gpu.ini "$db" "$out/sweep.log"
evaluate evaluate --db "$db"
if [ -n "${HOLDOUT:-}" ]; then
  held=$out/advise_gpu_holdout.db
  sweep bench/advise_gpu_holdout.ini "$held" "$out/sweep-holdout.log"
  evaluate evaluate-heldout --db "$db" --test "$held"
  evaluate evaluate-holdout --db "$held"
  evaluate evaluate-pooled --db "$db" --db "$held"
fi
