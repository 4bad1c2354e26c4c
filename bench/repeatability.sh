#!/usr/bin/env bash
# repeatability.sh — does a sweep's stated uncertainty predict a re-run?
# (issue 19, Evidence.) Sweeps CONFIG twice on this machine, each time a new
# sweep into its own database, in two processes (the second started GAP
# seconds after the first ended), then prints per time scale of the median
# (< 20 us, 20 us - 1 ms, > 1 ms) and overall: the fraction of combinations
# whose 95 % intervals overlap, the median relative interval half-width, the
# mean and the largest gap between the two medians, the fraction of the
# non-overlapping combinations flagged noisy, and how many `spsweep compare`
# called slower or faster (on a re-run, false alarms). bench/repeatability.py
# computes the table (standard-library Python: no sqlite3 shell needed).
#
#   bench/repeatability.sh CONFIG [--gap SECONDS] [--rounds R] [--out DIR] [--bin PATH]
#
#   --gap SECONDS  wait between the end of the first sweep and the start of
#                  the second (default 0: back to back), to let drift show
#   --rounds R     both sweeps in R rounds (spsweep sweep --rounds), whatever
#                  the config says
#   --out DIR      run1.db, run2.db, their logs, compare.csv and
#                  repeatability.md (default $OUT/repeatability when OUT is
#                  set, else results/repeatability); earlier ones are replaced
#   --bin PATH     the spsweep to run (default bin/spsweep, built with make
#                  when absent)
#
# A sweep's non-zero exit (a failed or skipped combination) does not stop
# the script: the combinations both runs measured are compared; a sweep
# that leaves no database does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

config="" gap=0 out=${OUT:+$OUT/repeatability} bin="" rounds=()
while [ $# -gt 0 ]; do
  case $1 in
    --gap) gap=${2:?--gap needs SECONDS}; shift 2 ;;
    --rounds) rounds=(--rounds "${2:?--rounds needs R}"); shift 2 ;;
    --out) out=${2:?--out needs DIR}; shift 2 ;;
    --bin) bin=${2:?--bin needs PATH}; shift 2 ;;
    -h|--help) usage 0 ;;
    -*) echo "repeatability.sh: unknown option $1" >&2; usage ;;
    *) [ -z "$config" ] || { echo "repeatability.sh: one CONFIG only" >&2; usage; }
       config=$1; shift ;;
  esac
done
[ -n "$config" ] || { echo "repeatability.sh: no CONFIG given" >&2; usage; }
[ -f "$config" ] || { echo "repeatability.sh: $config: no such config" >&2; exit 1; }
[[ $gap =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "repeatability.sh: --gap '$gap': expected seconds" >&2; exit 1; }
out=${out:-$here/../results/repeatability}
if [ -z "$bin" ]; then
  bin=$here/../bin/spsweep
  [ -x "$bin" ] || make -C "$here/.." --no-print-directory all >/dev/null
fi
[ -x "$bin" ] || { echo "repeatability.sh: $bin: not an executable" >&2; exit 1; }
mkdir -p "$out"

sweep() {   # sweep N: a new sweep into $out/runN.db
  local db=$out/run$1.db
  rm -f "$db" "$db-wal" "$db-shm"
  echo "run $1: $(date -u +%FT%TZ) $bin sweep $config ${rounds[*]} --new --db $db --quiet"
  "$bin" sweep "$config" "${rounds[@]}" --new --db "$db" --quiet >"$out/run$1.log" 2>&1 ||
    echo "run $1: spsweep sweep exited with $? (see $out/run$1.log)"
  [ -s "$db" ] || { tail -20 "$out/run$1.log"; echo "run $1 wrote no database" >&2; exit 1; }
}

sweep 1
if [ "$gap" != 0 ]; then echo "waiting $gap s"; sleep "$gap"; fi
sweep 2
rc=0
"$bin" compare "$out/run1.db" "$out/run2.db" --csv >"$out/compare.csv" 2>"$out/compare.log" || rc=$?
compare=()
if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then
  compare=(--compare "$out/compare.csv")
else
  echo "spsweep compare failed ($rc, see $out/compare.log): its column is left out"
fi
python3 "$here/repeatability.py" "$out/run1.db" "$out/run2.db" ${compare[@]+"${compare[@]}"} \
  --md "$out/repeatability.md" \
  --title "Repeatability of $config on $(hostname): two sweeps, ${gap} s apart ($(date -u +%F))"
