#!/usr/bin/env bash
# carry-deps.sh — gather the headers and shared libraries of the Debian
# packages the build needs (SQLite, libinih, xxHash, Criterion and what they
# link) into .gpu-deps/, for a GPU machine that has the CUDA toolkit but no
# package mirror. tests/gpu/run.sh uses .gpu-deps/ when it is there.
# Carry it with the device tool: carry=[".gpu-deps"].
set -euo pipefail
cd "$(dirname "$0")/../.."
d=.gpu-deps
rm -rf "$d"; mkdir -p "$d/include" "$d/lib"
cp -r /usr/include/sqlite3.h /usr/include/sqlite3ext.h /usr/include/ini.h \
      /usr/include/xxhash.h /usr/include/criterion /usr/include/zlib.h \
      /usr/include/zconf.h "$d/include/"
libs="libsqlite3.so libinih.so libxxhash.so libcriterion.so libz.so"
for l in $libs; do
  real=$(readlink -f /usr/lib/x86_64-linux-gnu/$l)
  cp "$real" "$d/lib/"
  ln -sf "$(basename "$real")" "$d/lib/$l"
  soname=$(objdump -p "$real" | awk '/SONAME/ {print $2}')
  [ -e "$d/lib/$soname" ] || ln -sf "$(basename "$real")" "$d/lib/$soname"
done
# what those link, except the C/C++ runtime the GPU machine has itself
ldd "$d"/lib/*.so | awk '/=> \// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|libgcc_s|libstdc\+\+|libgomp)\.so' |
  while read -r f; do cp -L "$f" "$d/lib/$(basename "$f")"; done
du -sh "$d"
