#!/usr/bin/env bash
# deps.sh install|ensure PKG...
#   install: apt-get install every package (idempotent: apt skips what is there).
#   ensure:  install only the missing ones; as non-root, print the command and fail.
set -euo pipefail
mode=$1; shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$mode" = ensure ] && [ ${#missing[@]} -eq 0 ]; then exit 0; fi
pkgs=("$@"); [ "$mode" = ensure ] && pkgs=("${missing[@]}")
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if [ "$mode" = ensure ] || ! command -v sudo >/dev/null; then
    echo "spsweep: missing Debian packages: ${missing[*]}" >&2
    echo "spsweep: install them with: sudo apt-get install -y ${missing[*]}  (or: sudo make deps)" >&2
    exit 1
  fi
  sudo=sudo
fi
echo "spsweep: installing Debian packages: ${pkgs[*]}"
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists when they are missing or older than a day.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
  $sudo apt-get update -qq
fi
$sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
