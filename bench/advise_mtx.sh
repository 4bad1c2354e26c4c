#!/bin/bash
# advise_mtx.sh — the real matrices of bench/advise_cpu.ini, unpacked into
# results/advise-mtx/ (ignored by git): every SuiteSparse tarball of the
# shared mirror (../shared/suitesparse/MM, 57 small matrices) and the
# seven matrices of ../shared/real/. Prints the [matrices] lines for them.
#   bash bench/advise_mtx.sh [MIRROR] [REAL]
set -euo pipefail
mirror=${1:-../shared/suitesparse/MM}
real=${2:-../shared/real}
out=results/advise-mtx
mkdir -p "$out"
for t in $(find "$mirror" -name '*.tar.gz' | sort); do
    tar xzf "$t" -C "$out" --wildcards '*.mtx'
done
cp "$real"/*.mtx.gz "$out"/
find "$out" -name '*.mtx' -o -name '*.mtx.gz' | sort | sed 's|^|source = file:|'
