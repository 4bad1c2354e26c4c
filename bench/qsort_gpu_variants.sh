#!/usr/bin/env bash
# qsort_gpu_variants.sh — on a GPU machine: bench/qsort_gpu.cu built once
# per variant of the GPU quicksort kernels, each variant run in turn with
# the same arguments, so changes are measured side by side in one device
# call. A variant is NAME=FLAGS: its sort kernels (kernels/sort/qsort_*.cu)
# are compiled with FLAGS (e.g. -D switches a change under test adds) into
# build/var/NAME and linked with the bench and build/libspsweep.a (made
# when missing); SRC=DIR among the flags takes the kernels from another
# folder (e.g. an old commit's kernels/sort, from `git worktree add`).
# (The switches of the 2026-11-22 measurements, QS_LUT, QS_SCAT3,
# QS_LEAF2, QS_HILO and QS_LEAFB, are gone: their winners are the code.)
#
#   git worktree add /tmp/old 62e3639
#   bash bench/qsort_gpu_variants.sh 'old=SRC=/tmp/old/kernels/sort' 'new=' -- 5 28
#
# Output: ${OUT:-results}/qsort_var_NAME.md per variant.
set -euo pipefail
cd "$(dirname "$0")/.."
vars=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ -f build/libspsweep.a ] || make --no-print-directory -j16 CUDA=1 build/libspsweep.a >/dev/null
mkdir -p build/var "${OUT:-results}"
NV="nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -DSP_HAVE_CUDA=1"
[ -f build/var/bench.o ] || $NV -Xcompiler -Wall,-Wextra,-Werror,-fopenmp -c bench/qsort_gpu.cu \
  -o build/var/bench.o
pids=()
for v in "${vars[@]}"; do
  name=${v%%=*} flags=${v#*=} src=kernels/sort
  case " $flags " in *" SRC="*) src=$(sed 's/.* SRC=\([^ ]*\).*/\1/' <<<" $flags "); flags=$(sed 's/SRC=[^ ]*//' <<<"$flags");; esac
  mkdir -p "build/var/$name"
  for f in qsort_level qsort_block qsort_queue qsort_thread qsort_host; do
    $NV -Xcompiler -Wall,-Wextra,-Werror $flags -c "$src/$f.cu" -o "build/var/$name/$f.o" &
    pids+=($!)
  done
done
for p in "${pids[@]}"; do wait "$p"; done
for v in "${vars[@]}"; do
  name=${v%%=*}
  $NV build/var/bench.o build/var/"$name"/*.o build/libspsweep.a -o "build/var/$name/qsort_gpu" \
    -lxxhash -lgomp
done
for v in "${vars[@]}"; do
  name=${v%%=*}
  echo "=== variant $name: ${v#*=}"
  "build/var/$name/qsort_gpu" "$@" | tee "${OUT:-results}/qsort_var_$name.md"
done
