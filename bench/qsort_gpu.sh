#!/usr/bin/env bash
# qsort_gpu.sh — on a GPU machine: build bench/qsort_gpu.cu against the
# library and run it (arguments go to it: REPS LOG2N...). The table goes
# to stdout and to ${OUT:-results}/qsort_gpu.md.
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory -j16 CUDA=1 build/libspsweep.a >/dev/null
mkdir -p build/bench "${OUT:-results}"
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -DSP_HAVE_CUDA=1 \
  -Xcompiler -Wall,-Wextra,-Werror,-fopenmp bench/qsort_gpu.cu build/libspsweep.a \
  -o build/bench/qsort_gpu -lxxhash -lgomp
build/bench/qsort_gpu "$@" | tee "${OUT:-results}/qsort_gpu.md"
