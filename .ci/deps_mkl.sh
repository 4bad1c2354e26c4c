#!/usr/bin/env bash
# deps_mkl.sh PREFIX VERSION — Intel oneMKL from PyPI (the wheels mkl,
# mkl-include, mkl-devel) into the project-local PREFIX, for the optional
# MKL kernels (kernels/mkl.h). No root, no Intel installer; idempotent: a
# prefix already holding VERSION is left alone.
#
# --no-deps: the wheels' dependencies are Intel's OpenMP runtime
# (intel-openmp: libiomp5) and oneTBB, the runtimes of MKL's other
# threading layers. spsweep links MKL's GNU threading layer (the Makefile),
# whose threads are libgomp's, the runtime every other kernel uses; leaving
# libiomp5 out means no second OpenMP runtime can end up in the process.
# The wheel is installed into a scratch directory first and moved into
# place whole, so an interrupted download leaves no half prefix behind.
set -euo pipefail
prefix=$1 version=$2
stamp="$prefix/.installed-$version"
if [ -f "$stamp" ] && ls "$prefix"/lib/libmkl_core.so* >/dev/null 2>&1; then
  echo "spsweep: MKL $version already in $prefix"
  exit 0
fi
pip=(python3 -m pip)
if ! python3 -m pip --version >/dev/null 2>&1; then
  # Debian's python3 comes without pip; python3-venv (make deps) brings it
  # into a virtual environment, used here only to run pip
  python3 -m venv "$prefix.pip" >/dev/null ||
    { echo "spsweep: make deps-mkl needs pip: apt-get install python3-venv (or python3-pip)" >&2; exit 1; }
  pip=("$prefix.pip/bin/python" -m pip)
fi
tmp="$prefix.tmp"
rm -rf "$tmp"
echo "spsweep: installing Intel oneMKL $version from PyPI into $prefix"
# PIP_BREAK_SYSTEM_PACKAGES: a Debian python refuses any install without it
# (PEP 668); this one goes into a private prefix and touches no system package
PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore "${pip[@]}" install --quiet --disable-pip-version-check \
  --no-warn-script-location --no-deps --ignore-installed --prefix "$tmp" \
  "mkl==$version" "mkl-include==$version" "mkl-devel==$version"
# Debian's python puts a --prefix install under PREFIX/local (its
# posix_local scheme): bring it up to where the Makefile looks
if [ -d "$tmp/local/lib" ] && [ ! -e "$tmp/lib" ]; then
  mv "$tmp"/local/* "$tmp"/ && rmdir "$tmp/local"
fi
ls "$tmp"/lib/libmkl_core.so* "$tmp"/include/mkl_spblas.h >/dev/null
rm -rf "$prefix" "$prefix.pip"
mv "$tmp" "$prefix"
touch "$stamp"
echo "spsweep: MKL $version in $prefix ($(du -sh "$prefix" | cut -f1)); make builds the MKL kernels now"
