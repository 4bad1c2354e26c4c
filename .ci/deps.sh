#!/usr/bin/env bash
# deps.sh — what spsweep needs from the system, found the way the build
# finds it (pkg-config modules, commands, Python modules), not by asking a
# package manager: a machine that has the libraries from anywhere (Spack,
# modules, /usr/local) builds as it is.
#
#   deps.sh check GROUP...    exit 0 when everything of the groups is found
#   deps.sh ensure GROUP...   check; when something is missing: as root with
#                             apt-get, install its Debian packages; otherwise
#                             name the packages for Debian, RHEL (dnf) and
#                             Spack, and exit 1
#   deps.sh install GROUP...  apt-get install every Debian package of the
#                             groups (idempotent; `make deps`, `make deps-slurm`)
#
# Groups: build (compile and link bin/spsweep), test (the test suite, the
# report, the benchmarks' Python, headless Chromium for the test that opens
# the report's index.html: tests/html_browser.py), slurm (only for
# tests/test_slurm_cluster.c, which starts a throwaway Slurm cluster; a
# local sweep never needs Slurm).
# Everything it says goes to stderr.
set -uo pipefail
exec 1>&2

# group|check|Debian|dnf (RHEL, Fedora; some from EPEL)|Spack ("-": none)
TABLE='
build|cmd:cc|build-essential|gcc make|gcc
build|cmd:pkg-config|pkg-config|pkgconf-pkg-config|pkgconf
build|pc:sqlite3|libsqlite3-dev|sqlite-devel|sqlite
build|pc:inih|libinih-dev|inih-devel|libinih
build|pc:zlib|zlib1g-dev|zlib-devel|zlib
build|pc:libxxhash|libxxhash-dev|xxhash-devel|xxhash
build|pc:libcurl|libcurl4-openssl-dev|libcurl-devel|curl
build|pc:libarchive|libarchive-dev|libarchive-devel|libarchive
build|pc:libcrypto|libssl-dev|openssl-devel|openssl
build|pc:librsb|librsb-dev|librsb-devel|librsb
test|pc:criterion|libcriterion-dev|criterion-devel|-
test|cmd:sqlite3|sqlite3|sqlite|sqlite
test|cmd:gnuplot|gnuplot-nox|gnuplot|gnuplot
test|py:scipy|python3-scipy|python3-scipy|py-scipy
test|py:ensurepip|python3-venv|python3|python
test|cmd:chromium|chromium|chromium|-
slurm|cmd:slurmd|slurm-wlm|slurm-slurmd slurm-slurmctld|slurm
slurm|cmd:munged|munge|munge|munge
'

mode=${1:-}; shift || true
[ -n "$mode" ] && [ $# -gt 0 ] || { echo "usage: deps.sh check|ensure|install GROUP..."; exit 2; }

in_groups() { local g; for g in "${groups[@]}"; do [ "$g" = "$1" ] && return 0; done; return 1; }
groups=("$@")

# the tests run the system's Python (tests/test_mm_read.c), not a user's
py=/usr/bin/python3; [ -x "$py" ] || py=python3

# Is the thing a check names here?
found() {
  local kind=${1%%:*} what=${1#*:}
  case $kind in
    pc)  command -v pkg-config >/dev/null && pkg-config --exists "$what" ;;
    cmd) [ "$what" = cc ] && what=${CC:-cc}
         command -v "$what" >/dev/null || [ -x "/usr/sbin/$what" ] ;;
    py)  "$py" -c "import $what" >/dev/null 2>&1 ;;
  esac
}

deb=() dnf=() spack=() nospack=() what=()
while IFS='|' read -r group check d r s; do
  [ -n "$group" ] && in_groups "$group" || continue
  if [ "$mode" = install ] || ! found "$check"; then
    what+=("${check#*:}") deb+=("$d") dnf+=($r)
    if [ "$s" = - ]; then nospack+=("${check#*:}"); else spack+=("$s"); fi
  fi
done <<< "$TABLE"

[ "$mode" = check ] && { [ ${#deb[@]} -eq 0 ]; exit; }
[ ${#deb[@]} -eq 0 ] && exit 0

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  # refresh the package lists when they are missing or older than a day
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
    apt-get update -qq || return 1
  fi
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "spsweep: installing Debian packages: ${deb[*]}"
  apt_install "${deb[@]}" && exit 0
  echo "spsweep: apt-get install failed (no network? try again, or install: ${deb[*]})"
  exit 1
fi

if [ "$mode" = install ]; then
  echo "spsweep: make deps installs Debian packages with apt-get, as root: sudo make deps"
else
  echo "spsweep: not found (pkg-config, commands, Python): ${what[*]}"
fi
echo "spsweep: install them, then run make again:"
echo "  Debian, Ubuntu: sudo apt-get install ${deb[*]}"
echo "  RHEL, Fedora:   sudo dnf install ${dnf[*]}   (RHEL: some from EPEL)"
if [ ${#spack[@]} -gt 0 ]; then
  echo "  Spack:          spack install ${spack[*]} && spack load ${spack[*]}"
fi
if [ ${#nospack[@]} -gt 0 ]; then
  echo "                  (${nospack[*]}: not in Spack; from your distribution or its sources)"
fi
echo "  Libraries elsewhere: put their .pc files on PKG_CONFIG_PATH (docs/troubleshooting.md)"
exit 1
