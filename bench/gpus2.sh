#!/usr/bin/env bash
# gpus2.sh — on a host with 2 GPUs (bench/RESULTS.md "Sweeps across the
# GPUs of one host"): build with CUDA; what a GPU combination's own process
# costs (build/bench/ctx_cost, on GPU 0 alone, then on both GPUs at once);
# then bench/gpus2.ini with `--gpus 0` and with `--gpus all`, each from a
# cold matrix cache of its own, timed as whole commands; then a check that
# both merged databases hold the same combinations, each once.
# Output in $OUT (when set) or results/gpus2/.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}/gpus2
mkdir -p "$out"
if [ ! -d .gpu-deps ] && [ -f .gpu-deps.tar.xz ]; then tar -xJf .gpu-deps.tar.xz; fi
if [ -d .gpu-deps ]; then
  d=$PWD/.gpu-deps
  export CPATH=$d/include LIBRARY_PATH=$d/lib LD_LIBRARY_PATH=$d/lib
fi
now() { date +%s.%N; }
start=$(now)
budget=${BUDGET_S:-285}                 # the whole script, seconds
left() { awk "BEGIN { print int($budget - ($(now) - $start)) }"; }
say() { echo "$*" | tee -a "$out/summary.txt"; }

t=$(now)
make -j"${JOBS:-32}" CUDA=1 all build/bench/ctx_cost >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
say "build: $(awk "BEGIN { print $(now) - $t }") s"
nvidia-smi --query-gpu=index,name,persistence_mode,driver_version,memory.total --format=csv |
  tee -a "$out/summary.txt"
say "CPUs: $(nproc)"

timeout 60 build/bench/ctx_cost 4 >"$out/ctx.log" 2>&1
cat "$out/ctx.log" >>"$out/summary.txt"
for g in 0 1; do
  CUDA_VISIBLE_DEVICES=$g timeout 30 build/bench/ctx_cost 4 'gen:laplace2d?n=2000' contexts \
    >"$out/ctx-pair-$g.log" 2>&1 &
done
wait
{ echo "== both GPUs at once"; cat "$out"/ctx-pair-*.log; } >>"$out/summary.txt"

rm -rf /tmp/gpus2 && mkdir -p /tmp/gpus2
sweep() {   # sweep NAME GPUS TIMEOUT
  local t0 t1 rc
  t0=$(now)
  timeout "$3" bin/spsweep sweep bench/gpus2.ini --gpus "$2" --db "/tmp/gpus2/$1.db" \
    --cache-dir "/tmp/gpus2/cache-$1" >"/tmp/gpus2/$1.log" 2>&1
  rc=$?
  t1=$(now)
  say "--gpus $2: exit $rc, wall $(awk "BEGIN { print $t1 - $t0 }") s"
  { echo "== --gpus $2"; cat "/tmp/gpus2/$1.log"; for f in /tmp/gpus2/gpu-shards/shard-*.log; do
      echo "== $f"; grep -v '^\[' "$f"; done; } >>"$out/sweeps.log"
  mv /tmp/gpus2/gpu-shards "/tmp/gpus2/shards-$1"
  cp "/tmp/gpus2/$1.db" "$out/" 2>/dev/null
}
# the one-GPU sweep leaves at least 60 s for the two-GPU one
t1=$(left); t1=$((t1 - 60 < 150 ? t1 - 60 : 150))
sweep one 0 "$t1"
t2=$(left); t2=$((t2 - 5 < 120 ? t2 - 5 : 120))
sweep two all "$t2"
python3 - /tmp/gpus2/one.db /tmp/gpus2/two.db <<'PY' | tee -a "$out/summary.txt"
import sqlite3, sys
q = """SELECT m.source, r.kernel, r.axes, count(*), sum(r.status = 'ok')
       FROM runs r JOIN matrices m ON m.id = r.matrix_id GROUP BY 1, 2, 3"""
dbs = [sqlite3.connect(p).execute(q).fetchall() for p in sys.argv[1:]]
for p, rows in zip(sys.argv[1:], dbs):
    print(p.split('/')[-1], "combinations", len(rows), "runs", sum(r[3] for r in rows),
          "ok", sum(r[4] for r in rows), "each once", all(r[3] == 1 for r in rows))
print("same combinations:", {r[:3] for r in dbs[0]} == {r[:3] for r in dbs[1]})
PY
for f in /tmp/gpus2/shards-*/shard-*.db; do
  python3 -c "import sqlite3,sys; print(sys.argv[1], sqlite3.connect(sys.argv[1]).execute(
    'SELECT omp_binding FROM sweeps').fetchone()[0])" "$f" >>"$out/summary.txt" 2>&1
done
cat "$out/summary.txt"
