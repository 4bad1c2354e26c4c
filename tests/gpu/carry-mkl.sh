#!/usr/bin/env bash
# carry-mkl.sh — pack the part of the MKL that `make deps-mkl` installed into
# .deps/mkl which the MKL kernels need (the C headers; the LP64 interface,
# GNU threading and core libraries, and the CPU-specific libraries MKL loads
# at run time) as .mkl-carry.tar.xz, for a GPU machine without network: the
# whole prefix is 675 MB, this about 35 MB, inside the device tool's 64 MiB
# beside .gpu-deps.tar.xz (18 MB) and .real (8 MB). tests/gpu/env.sh
# unpacks it into .deps/mkl, where the build finds MKL:
#   bash tests/gpu/carry-mkl.sh   # here, after make deps-mkl
#   carry=[".gpu-deps.tar.xz", ".mkl-carry.tar.xz", ".real"]
set -euo pipefail
cd "$(dirname "$0")/../.."
p=.deps/mkl
[ -f "$p/include/mkl_spblas.h" ] || { echo "carry-mkl.sh: no MKL in $p: run make deps-mkl first" >&2; exit 1; }
# MKL loads one CPU-specific library at run time (libmkl_avx512 on the GPU
# hosts' Xeons, libmkl_avx2 on an AVX2 machine); CPUS=avx512 carries fewer.
# A machine whose library was left out fails its MKL runs with MKL's
# "Cannot load libmkl_....so" in the run's error, never a wrong number.
cpus=${CPUS:-avx512 avx2}
# The headers: those the MKL kernels include (gcc -M), not all of mkl/include.
hdrs=$(for f in kernels/mkl_lib.c kernels/spmv/spmv_mkl.c kernels/transpose/transpose_mkl.c; do
         gcc -std=c11 -D_GNU_SOURCE -fopenmp -DSP_HAVE_MKL=1 -isystem "$p/include" -M "$f"
       done | tr ' \\' '\n\n' | sed -n 's|^\.deps/||p' | grep '^mkl/include/' | sort -u)
files=$(cd .deps && echo "$hdrs" && ls mkl/lib/libmkl_{intel_lp64,gnu_thread,core}.so* &&
        for c in $cpus; do ls mkl/lib/libmkl_$c.so*; done)
# The wheels' libraries are not stripped: their static symbol tables are
# a fifth of the bytes and nothing at run time reads them.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd .deps && cp -a --parents $files "$tmp/")
strip --strip-unneeded "$tmp"/mkl/lib/*.so*
tar -C "$tmp" -cf - mkl | xz -T0 -9e > .mkl-carry.tar.xz.tmp
mv .mkl-carry.tar.xz.tmp .mkl-carry.tar.xz
du -sh .mkl-carry.tar.xz
