#!/usr/bin/env bash
# small_probe.sh — on a GPU machine: build bench/small_probe.cu (the
# one-launch small-matrix transposition with per-phase timer stamps)
# against the library and run it. The table goes to stdout and to
# ${OUT:-results}/small_probe.md.
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory -j16 CUDA=1 build/libspsweep.a >/dev/null
mkdir -p build/bench "${OUT:-results}"
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -DSP_HAVE_CUDA=1 \
  -Xcompiler -Wall,-Wextra,-Werror,-fopenmp bench/small_probe.cu build/libspsweep.a \
  -o build/bench/small_probe -lcusparse $(pkg-config --libs libxxhash 2>/dev/null || echo -lxxhash) -lgomp
build/bench/small_probe | tee "${OUT:-results}/small_probe.md"
