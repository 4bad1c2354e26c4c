#!/usr/bin/env bash
# carry-deps.sh — gather the headers and shared libraries of the Debian
# packages the build needs (SQLite, libinih, xxHash, Criterion, libcurl,
# libarchive, OpenSSL's libcrypto, librsb and what they
# link) into .gpu-deps/, for a GPU machine that has the CUDA toolkit but no
# package mirror. tests/gpu/run.sh uses .gpu-deps/ when it is there.
# It is packed as .gpu-deps.tar.xz (about a third of the size: the device
# tool carries at most 64 MiB); carry that: carry=[".gpu-deps.tar.xz"].
set -euo pipefail
cd "$(dirname "$0")/../.."
d=.gpu-deps
rm -rf "$d"; mkdir -p "$d/include" "$d/lib"
cp -r /usr/include/sqlite3.h /usr/include/sqlite3ext.h /usr/include/ini.h \
      /usr/include/xxhash.h /usr/include/criterion /usr/include/zlib.h \
      /usr/include/zconf.h /usr/include/archive.h /usr/include/archive_entry.h \
      /usr/include/openssl /usr/include/rsb.h /usr/include/rsb_types.h \
      /usr/include/rsb-config.h "$d/include/"
# multiarch headers: curl's, and OpenSSL's configuration headers
cp -r /usr/include/x86_64-linux-gnu/curl "$d/include/"
cp /usr/include/x86_64-linux-gnu/openssl/*.h "$d/include/openssl/"
libs="libsqlite3.so libinih.so libxxhash.so libcriterion.so libz.so libcurl.so libarchive.so libcrypto.so librsb.so"
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
tar -cf - .gpu-deps | xz -T0 -9e > .gpu-deps.tar.xz.tmp && mv .gpu-deps.tar.xz.tmp .gpu-deps.tar.xz
du -sh .gpu-deps.tar.xz
