#!/usr/bin/env bash
# blocking.sh — issue 19's evidence for the blocking kernel, on a GPU
# machine in one call: build; the harness's GPU tests (a host-bound launch
# timed as its GPU work when blocked, a launch that synchronises timing the
# block out) plainly and under compute-sanitizer memcheck; then
# bench/repeatability.sh on CONFIG twice without the blocking kernel and
# twice with it (`blocking = off`, then `on`, the default, added to its
# [sweep]), each pair two
# sweeps in ROUNDS rounds; and `spsweep compare` of the first sweep of each
# pair: what blocking changes in the numbers. Tables printed last; logs
# and databases under $OUT/blocking (or results/blocking), the databases
# and tables also packed in $OUT/blocking/blocking.tar.gz (a device call
# brings back 8 files).
#
#   [CONFIG=bench/gpu_real_rounds.ini] [ROUNDS=5] bash bench/blocking.sh
#
# The config reads the real matrices from .real/ (mkdir -p .real && cp
# ../shared/real/*.mtx.gz .real/, and carry .real and .gpu-deps.tar.xz).
set -uo pipefail
cd "$(dirname "$0")/.."
source tests/gpu/env.sh
out=${OUT:-results}/blocking
mkdir -p "$out" bench/work
config=${CONFIG:-bench/gpu_real_rounds.ini}
rounds=${ROUNDS:-5}
nvidia-smi -L || true
make -j16 CUDA=1 all build/tests/gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build done at $SECONDS s"
build/tests/gpu --filter 'gpu_harness/*' >"$out/gpu-harness.log" 2>&1
grep -E "FAIL|Synthesis" "$out/gpu-harness.log"
SPSWEEP_GPU_TEST_QUICK=1 timeout -k 5 120 compute-sanitizer --target-processes all \
  --error-exitcode 1 --tool memcheck build/tests/gpu --jobs 1 --filter 'gpu_harness/*' \
  >"$out/memcheck.log" 2>&1
grep -E "ERROR SUMMARY|Synthesis" "$out/memcheck.log" | tail -3
on=bench/work/$(basename "$config" .ini)-blocking-on.ini
off=bench/work/$(basename "$config" .ini)-blocking-off.ini
sed 's/^\[sweep\]$/[sweep]\nblocking = on/' "$config" >"$on"
sed 's/^\[sweep\]$/[sweep]\nblocking = off/' "$config" >"$off"
bash bench/repeatability.sh "$off" --rounds "$rounds" --out "$out/off" >"$out/off.log" 2>&1
echo "blocking off done at $SECONDS s"
bash bench/repeatability.sh "$on" --rounds "$rounds" --out "$out/on" >"$out/on.log" 2>&1
echo "blocking on done at $SECONDS s"
bin/spsweep compare "$out/off/run1.db" "$out/on/run1.db" >"$out/off-vs-on.txt" 2>&1
python3 - "$out/on/run1.db" <<'PY' >"$out/blocking-states.txt"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for row in con.execute("SELECT kernel, blocking, count(*) FROM runs WHERE status = 'ok'"
                       " GROUP BY kernel, blocking ORDER BY kernel"):
    print(*row, sep="\t")
PY
(cd "$out" && tar -czf blocking.tar.gz off/run*.db* on/run*.db* off/repeatability.md \
  on/repeatability.md off-vs-on.txt)
echo "== runs by blocking (blocking = on)"; cat "$out/blocking-states.txt"
echo "== off vs on (compare, A = off)"; tail -25 "$out/off-vs-on.txt"
echo "== blocking off"; cat "$out/off/repeatability.md"
echo "== blocking on"; cat "$out/on/repeatability.md"
