# env.sh — source on a GPU machine without the Debian -dev packages: use
# the headers and libraries tests/gpu/carry-deps.sh gathered into
# .gpu-deps/ (unpacked from .gpu-deps.tar.xz when only that came along).
# tests/gpu/run.sh and the bench scripts' device commands source it:
#   source tests/gpu/env.sh && make -j16 CUDA=1 all
if [ ! -d .gpu-deps ] && [ -f .gpu-deps.tar.xz ]; then
  tar -xJf .gpu-deps.tar.xz
fi
# MKL's libraries (tests/gpu/carry-mkl.sh), where they came along: the
# build compiles the MKL kernels when .deps/mkl holds them
if [ ! -d .deps/mkl ] && [ -f .mkl-carry.tar.xz ]; then
  mkdir -p .deps && tar -xJf .mkl-carry.tar.xz -C .deps
fi
if [ -d .gpu-deps ]; then
  _sp_deps=$PWD/.gpu-deps
  export CPATH=$_sp_deps/include${CPATH:+:$CPATH}
  export LIBRARY_PATH=$_sp_deps/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
  export LD_LIBRARY_PATH=$_sp_deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # the build's package check would look for the Debian packages these
  # stand in for, and try to install them from a mirror the machine lacks
  export SKIP_DEPS=1
  unset _sp_deps
fi
