#!/usr/bin/env bash
# Usage: tools/install_openblas.sh CACHE_DIR  (run by tools/install.sh)
set -euo pipefail
cache_dir=$1

# OpenBLAS (OpenMP build) for the PyTorch workers. Installing the package
# would switch Debian's libblas.so.3 alternative for the whole system, so it
# is only downloaded and unpacked into the cache; the workers find it through
# LD_LIBRARY_PATH (src/inferlab/backends/environment.cc).
openblas_version=$(apt-cache policy libopenblas0-openmp 2>/dev/null | awk '/Candidate:/ {print $2}')
if [ -z "$openblas_version" ] || [ "$openblas_version" = "(none)" ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  openblas_version=$(apt-cache policy libopenblas0-openmp | awk '/Candidate:/ {print $2}')
fi
openblas_dir="$cache_dir/openblas-${openblas_version//[^A-Za-z0-9.+-]/_}"
if [ ! -f "$openblas_dir/.complete" ]; then
  echo "install: OpenBLAS $openblas_version into $openblas_dir (unpacked, not installed)"
  download_dir=$(mktemp -d)
  chmod 777 "$download_dir"  # apt's sandbox user writes the download
  (cd "$download_dir" && apt-get download -q "libopenblas0-openmp=$openblas_version" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  rm -rf "$openblas_dir"
  mkdir -p "$openblas_dir"
  dpkg-deb -x "$download_dir"/libopenblas0-openmp_*.deb "$openblas_dir"
  rm -rf "$download_dir"
  touch "$openblas_dir/.complete"
fi
ln -sfn "$openblas_dir" "$cache_dir/openblas"
