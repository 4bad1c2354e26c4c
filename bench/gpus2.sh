#!/usr/bin/env bash
# gpus2.sh — on a host with 2 GPUs (bench/RESULTS.md "Sweeps across the
# GPUs of one host"): build with CUDA; bench/gpus2.ini with `--gpus 0` and
# with `--gpus all` (GPU kernels in a worker per matrix, the default), each
# from a cold matrix cache of its own, timed as whole commands, and a check
# that both merged databases hold the same combinations, each once; then,
# on one GPU and a subset (3 matrices x 23 combinations), isolate =
# combination against isolate = matrix, and matrix with the GPU keeper off.
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
budget=${BUDGET_S:-228}                 # the whole script, seconds
left() { awk "BEGIN { print int($budget - ($(now) - $start)) }"; }
say() { echo "$*" | tee -a "$out/summary.txt"; }

t=$(now)
[ -n "${SKIP_BUILD:-}" ] || make -j"${JOBS:-32}" CUDA=1 bin/spsweep >/tmp/gpus2-build.log 2>&1 ||
  { tail -40 /tmp/gpus2-build.log | tee -a "$out/summary.txt"; exit 1; }
say "build: $(awk "BEGIN { print $(now) - $t }") s"
nvidia-smi --query-gpu=index,name,persistence_mode,driver_version,memory.total --format=csv |
  tee -a "$out/summary.txt"
say "CPUs: $(nproc)"

rm -rf /tmp/gpus2 && mkdir -p /tmp/gpus2
sweep() {   # sweep NAME GPUS TIMEOUT [ENV=VALUE...] -- [sweep options...]
  local name=$1 gpus=$2 limit=$3 t0 t1 rc envs=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  t0=$(now)
  env "${envs[@]}" timeout "$limit" bin/spsweep sweep bench/gpus2.ini --gpus "$gpus" \
    --db "/tmp/gpus2/$name.db" --cache-dir "/tmp/gpus2/cache-$name" "$@" \
    >"/tmp/gpus2/$name.log" 2>&1
  rc=$?
  t1=$(now)
  say "$name: --gpus $gpus ${envs[*]} $*: exit $rc, wall $(awk "BEGIN { print $t1 - $t0 }") s"
  { echo "== $name"; cat "/tmp/gpus2/$name.log"; for f in /tmp/gpus2/gpu-shards/shard-*.log; do
      echo "== $f"; grep -v '^\[' "$f"; done; } >>"$out/sweeps.log"
  mv /tmp/gpus2/gpu-shards "/tmp/gpus2/shards-$name"
  cp "/tmp/gpus2/$name.db" "$out/" 2>/dev/null
}
# the one-GPU sweep leaves at least 60 s for the two-GPU one
t1=$(left); t1=$((t1 - 60 < 130 ? t1 - 60 : 130))
sweep one 0 "$t1" --
t2=$(left); t2=$((t2 - 5 < 100 ? t2 - 5 : 100))
sweep two all "$t2" --
subset='matrix=laplace2d_n1[012]*'
for m in combination matrix; do
  t3=$(left); [ "$t3" -gt 8 ] || break
  sweep "sub-$m" 0 $((t3 - 3)) -- --isolate "$m" --only "$subset"
done
t3=$(left)
[ "$t3" -gt 8 ] && sweep sub-matrix-nokeeper 0 $((t3 - 3)) SPSWEEP_GPU_KEEPER=0 -- --isolate matrix --only "$subset"
python3 - /tmp/gpus2/*.db <<'PY' | tee -a "$out/summary.txt"
import sqlite3, sys
q = """SELECT m.source, r.kernel, r.axes, count(*), sum(r.status = 'ok')
       FROM runs r JOIN matrices m ON m.id = r.matrix_id GROUP BY 1, 2, 3"""
rows = {}
for p in sys.argv[1:]:
    try:
        db = sqlite3.connect(p)
        rows[p] = db.execute(q).fetchall()
        iso = db.execute("SELECT group_concat(DISTINCT isolate) FROM sweeps").fetchone()[0]
    except sqlite3.Error as e:
        print(p, "unreadable:", e)
        continue
    r = rows[p]
    print(p.split('/')[-1], "isolate", iso, "combinations", len(r), "runs", sum(x[3] for x in r),
          "ok", sum(x[4] for x in r), "each once", all(x[3] == 1 for x in r))
one, two = (rows.get("/tmp/gpus2/%s.db" % n) for n in ("one", "two"))
if one and two:
    print("one vs two, same combinations:", {r[:3] for r in one} == {r[:3] for r in two})
a, b = (rows.get("/tmp/gpus2/sub-%s.db" % n) for n in ("combination", "matrix"))
if a and b:
    print("subset combination vs matrix, same combinations:", {r[:3] for r in a} == {r[:3] for r in b})
PY
for f in /tmp/gpus2/shards-*/shard-*.db; do
  python3 -c "import sqlite3,sys; print(sys.argv[1], *sqlite3.connect(sys.argv[1]).execute(
    'SELECT omp_binding, isolate FROM sweeps').fetchone())" "$f" >>"$out/summary.txt" 2>&1
done
cat "$out/summary.txt"
