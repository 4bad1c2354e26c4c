#!/usr/bin/env bash
# fetch.sh — `make bench-fetch`: the dataset manager end to end over loopback.
# A mirror of >= 500 MB of archives laid out as the collection serves it
# (MM/Bench/<Name>.tar.gz + files/ssstats.csv) is built once in bench/work/mirror
# from random matrices (build/bench/mm_parse --write-random, 17-digit values),
# served by tests/fetch_server.py on 127.0.0.1, and fetched into a fresh cache
# with --jobs 1 and --jobs 4: download + SHA-256 + unpack + parse into the binary
# CSR cache. Prints a markdown table (bench/RESULTS.md keeps the one reported).
set -euo pipefail
cd "$(dirname "$0")/.."
work=bench/work
mirror=$work/mirror
count=${FETCH_BENCH_MATRICES:-6}       # 6 x ~100 MB archives
make --no-print-directory all build/bench/mm_parse >/dev/null

mkdir -p "$mirror/MM/Bench" "$mirror/files"
build_one() {
  local i=$1 name=rand$1
  [ -s "$mirror/MM/Bench/$name.tar.gz" ] && return 0
  local tmp; tmp=$(mktemp -d "$work/build.XXXXXX")
  mkdir -p "$tmp/$name"
  build/bench/mm_parse --write-random "$tmp/$name/$name.mtx" 1000000 6000000 "$i" >/dev/null
  tar -C "$tmp" -czf "$mirror/MM/Bench/$name.tar.gz.tmp" "$name/$name.mtx"
  mv "$mirror/MM/Bench/$name.tar.gz.tmp" "$mirror/MM/Bench/$name.tar.gz"
  rm -rf "$tmp"
}
for i in $(seq 1 "$count"); do build_one "$i" & if (( i % 2 == 0 )); then wait; fi; done
wait
{
  echo "$count"; echo "21-Nov-2026 00:00:00"
  for i in $(seq 1 "$count"); do
    echo "Bench,rand$i,1000000,1000000,6000000,1,0,0,0,0,0,benchmark matrix,6000000"
  done
} > "$mirror/files/ssstats.csv"
archive_mb=$(du -cm "$mirror"/MM/Bench/*.tar.gz | awk 'END {print $1}')

# the server
srv=$(mktemp -d "$work/srv.XXXXXX")
python3 tests/fetch_server.py --root "$mirror" --port-file "$srv/port" &
spid=$!
trap 'kill $spid 2>/dev/null; rm -rf "$srv" "$work"/cache-j*' EXIT
for _ in $(seq 50); do [ -s "$srv/port" ] && break; sleep 0.1; done
url=http://127.0.0.1:$(cat "$srv/port")

names=$(for i in $(seq 1 "$count"); do printf 'Bench/rand%d ' "$i"; done)
run() {     # jobs -> seconds
  local jobs=$1 cache=$work/cache-j$1
  rm -rf "$cache"
  local t0 t1
  t0=$(date +%s.%N)
  bin/spsweep fetch $names --base-url "$url" --cache-dir "$cache" --jobs "$jobs" \
    --db '' --quiet
  t1=$(date +%s.%N)
  [ "$(ls "$cache"/suitesparse/Bench/*.csr | wc -l)" -eq "$count" ]
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}
t1=$(run 1)
t4=$(run 4)
mtx_mb=$(du -cm "$work"/cache-j4/suitesparse/Bench/*.mtx | awk 'END {print $1}')

cpu=$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
echo "Machine: $cpu, $(nproc) cores; $(date -u +%F)"
echo
echo "| matrices | archives MB | .mtx MB | --jobs 1 s | MB/s (archives) | --jobs 4 s | MB/s (archives) | jobs 4 vs 1 |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
awk -v n="$count" -v a="$archive_mb" -v m="$mtx_mb" -v t1="$t1" -v t4="$t4" 'BEGIN {
  printf "| %d | %d | %d | %.2f | %.0f | %.2f | %.0f | %.2fx |\n", n, a, m, t1, a / t1, t4, a / t4, t1 / t4
}'
echo
echo "Each run: a fresh cache; download over loopback from tests/fetch_server.py, SHA-256 of"
echo "archive and .mtx, streamed unpack, Matrix Market parse and binary CSR cache write."
