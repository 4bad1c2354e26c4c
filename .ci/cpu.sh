#!/usr/bin/env bash
# cpu.sh — one line on the CPU CI runs on: model, cores, and the vector
# extensions -march=native can use (SSE4.2, AVX, AVX2, FMA, AVX-512 parts).
set -uo pipefail
model=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2-) "
ext=()
for f in sse4_2 avx avx2 fma avx512f avx512dq avx512bw avx512vl avx512_vnni avx512_bf16 amx_tile; do
  case "$flags" in *" $f "*) ext+=("$f") ;; esac
done
case "$flags" in *" avx512f "*) wide="AVX-512: yes" ;; *) wide="AVX-512: no" ;; esac
echo "CI machine: ${model:-unknown CPU}, $(nproc) cores; $wide; vector extensions: ${ext[*]:-none found}"
echo "CI compiler: $(${CC:-gcc} --version | head -1); -march=native means: $(${CC:-gcc} -march=native -Q --help=target 2>/dev/null | awk '$1=="-march="{print $2; exit}')"
