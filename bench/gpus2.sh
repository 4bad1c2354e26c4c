#!/usr/bin/env bash
# gpus2.sh — on a host with 2 GPUs (bench/RESULTS.md "Sweeps across the
# GPUs of one host", issue 26): build with CUDA; bench/gpus2.ini (736 GPU
# runs) with `--gpus 0`, `--gpus all` and `--gpus 0,1`, each from a cold
# matrix cache of its own, timed as whole commands, each command's own
# breakdown of where the time went (probe, each shard's runs and the time
# outside them, merge); then `--gpus all` again with one shard killed
# (kill -9) part-way, which the command starts again on its GPU. Checks
# that every merged database holds the same combinations, each once, with
# all their samples, the same plan hash as the one-GPU sweep, runs on as
# many GPUs (by PCI bus id) as shards, and what `compare` says of each
# against the one-GPU sweep. Output in $OUT (when set) or results/gpus2/.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results}/gpus2
mkdir -p "$out"
source tests/gpu/env.sh    # the carried build dependencies
now() { date +%s.%N; }
say() { echo "$*" | tee -a "$out/summary.txt"; }
cfg=${CONFIG:-bench/gpus2.ini}

t=$(now)
[ -n "${SKIP_BUILD:-}" ] || make -j"${JOBS:-32}" CUDA=1 bin/spsweep >/tmp/gpus2-build.log 2>&1 ||
  { tail -40 /tmp/gpus2-build.log | tee -a "$out/summary.txt"; exit 1; }
say "build: $(awk "BEGIN { print $(now) - $t }") s, commit $(git rev-parse --short HEAD 2>/dev/null)"
nvidia-smi --query-gpu=index,name,pci.bus_id,persistence_mode,driver_version,memory.total \
  --format=csv | tee -a "$out/summary.txt"
say "CPUs: $(nproc)"

w=/tmp/gpus2
rm -rf $w && mkdir -p $w
steps=" ${STEPS:-one all pair kill} "     # which sweeps to run
sweep() {   # sweep NAME GPUS TIMEOUT [sweep options...]
  local name=$1 gpus=$2 limit=$3 t0 t1 rc
  shift 3
  [[ $steps == *" $name "* ]] || return 0
  mkdir -p "$w/$name"
  t0=$(now)
  timeout "$limit" bin/spsweep sweep "$cfg" --gpus "$gpus" --db "$w/$name/$name.db" \
    --cache-dir "$w/cache-$name" "$@" >"$w/$name.log" 2>&1
  rc=$?
  t1=$(now)
  say "$name: --gpus $gpus $*: exit $rc, wall $(awk "BEGIN { print $t1 - $t0 }") s"
  grep -E '^(time:|GPU .*(killed|done|failed)|merged)' "$w/$name.log" | tee -a "$out/summary.txt"
  { echo "== $name"; cat "$w/$name.log"; for f in "$w/$name"/gpu-shards/shard-*.log; do
      echo "== $f"; grep -v '^ *\[' "$f" | tail -40; done; } >>"$out/sweeps.log"
}
sweep one 0 200
sweep all all 150
sweep pair 0,1 150
# kill -9 shard 2 once it has stored some runs; the command starts it again
[[ $steps == *" kill "* ]] && ( for i in $(seq 1 1200); do
    p=$(pgrep -f "shard 2/2 --db $w/kill/" | head -1)
    n=$(grep -c '^\[' "$w/kill/gpu-shards/shard-2.log" 2>/dev/null)
    if [ -n "$p" ] && [ "${n:-0}" -ge "${KILL_AT:-60}" ]; then
      kill -9 "$p" && say "killed shard 2/2 (pid $p, kill -9) after its run $n"
      break
    fi
    sleep 0.1
  done ) &
killer=$!
sweep kill all 150
wait $killer
python3 - "$w" <<'PY' | tee -a "$out/summary.txt"
import sqlite3, sys, os
w = sys.argv[1]
names = [n for n in ("one", "all", "pair", "kill") if os.path.exists(f"{w}/{n}/{n}.db")]
q = """SELECT m.source, r.kernel, r.axes, count(*), sum(r.status = 'ok'),
          sum((SELECT count(*) FROM samples s WHERE s.run_id = r.id) = r.repetitions)
       FROM runs r JOIN matrices m ON m.id = r.matrix_id GROUP BY 1, 2, 3"""
combos = {}
for n in names:
    db = sqlite3.connect(f"{w}/{n}/{n}.db")
    r = db.execute(q).fetchall()
    combos[n] = {x[:3] for x in r}
    sw = db.execute("SELECT count(*), group_concat(DISTINCT plan_hash), group_concat(DISTINCT status) FROM sweeps").fetchone()
    gpus = db.execute("SELECT gpu_bus, count(*) FROM run_stats GROUP BY 1").fetchall()
    print(f"{n}: combinations {len(r)}, runs {sum(x[3] for x in r)}, ok {sum(x[4] for x in r)}, "
          f"each once {all(x[3] == 1 for x in r)}, runs with all samples {sum(x[5] for x in r)}, "
          f"sweeps {sw[0]} plan {sw[1]} status {sw[2]}, runs per GPU {gpus}")
for n in names[1:] if "one" in combos else []:
    print(f"{n} vs one: same combinations {combos[n] == combos['one']}")
PY
for n in all pair kill; do
  [ -f $w/$n/$n.db ] && [ -f $w/one/one.db ] || continue
  bin/spsweep compare $w/one/one.db $w/$n/$n.db --csv >$w/cmp-$n.csv 2>/dev/null
  python3 - $w/cmp-$n.csv $n <<'PY' | tee -a "$out/summary.txt"
import csv, sys, math, collections
rows = list(csv.DictReader(open(sys.argv[1])))
v = collections.Counter(r.get("verdict", "?") for r in rows)
rat = [float(r["ratio"]) for r in rows if r.get("ratio") not in (None, "", "nan")]
g = math.exp(sum(math.log(x) for x in rat) / len(rat)) if rat else float("nan")
print(f"compare one -> {sys.argv[2]}: {dict(v)}; geomean time ratio {g:.4f} over {len(rat)}")
PY
done
# per-run commit times: where the runs' time goes, one GPU against two
python3 - "$w" <<'PY' | tee -a "$out/summary.txt"
import sqlite3, sys, statistics as st, datetime as dt, glob
w = sys.argv[1]
def ts(s): return dt.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
for n in ("one", "pair", "all"):
    for p in sorted(glob.glob(f"{w}/{n}/gpu-shards/shard-*.db")):
        rows = sqlite3.connect(p).execute(
            "SELECT r.created_at, r.matrix_id, r.median * (r.repetitions + r.warmup) * coalesce(r.batch, 1),"
            " coalesce(r.convert_s,0), coalesce(r.h2d_s,0), coalesce(r.d2h_s,0), coalesce(r.free_s,0)"
            " FROM runs r ORDER BY r.created_at").fetchall()
        t = [ts(r[0]) for r in rows]
        same = [t[i] - t[i-1] for i in range(1, len(t)) if rows[i][1] == rows[i-1][1]]
        change = [t[i] - t[i-1] for i in range(1, len(t)) if rows[i][1] != rows[i-1][1]]
        timed = sum(r[2] or 0 for r in rows); ph = sum(sum(r[3:7]) for r in rows)
        print(f"{n} {p.split('/')[-1]}: {len(rows)} runs over {t[-1]-t[0]:.1f} s; same matrix "
              f"{sum(same):.1f} s (median {st.median(same)*1e3:.1f} ms/run), matrix changes "
              f"{sum(change):.1f} s ({len(change)}, median {st.median(change)*1e3:.0f} ms); timed "
              f"launches {timed:.1f} s, phases {ph:.1f} s")
PY
cat "$out/summary.txt"
