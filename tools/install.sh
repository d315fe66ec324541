#!/usr/bin/env bash
# Installs what InferLab needs and is missing: Debian packages (apt, only the
# ones dpkg reports absent) and pinned npm packages into a cache directory
# outside the clone. Idempotent: a second run does nothing but checks.
set -euo pipefail

repo_dir=$(cd "$(dirname "$0")/.." && pwd)
cache_dir=${INFERLAB_CACHE:-$HOME/.cache/inferlab}

apt_packages=(
  cmake ninja-build g++ clang-14 libclang-rt-14-dev clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libdnnl-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libonnx-testdata
  python3-torch python3-torchvision python3-onnx python3-numpy
  libtorch-dev libgfortran5 libgomp1
  libssl-dev chromium
  libboost-dev curl wrk
  libturbojpeg0-dev libspng-dev python3-pil python3-skimage
)

missing=()
for package in "${apt_packages[@]}"; do
  if ! dpkg -s "$package" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "install: apt packages missing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm packages: pinned by tools/npm/package.json + package-lock.json, installed
# into a cache keyed by the lock file's hash so a fresh clone reuses them.
lock_hash=$(sha256sum "$repo_dir/tools/npm/package-lock.json" | cut -c1-16)
npm_dir="$cache_dir/npm-$lock_hash"
if [ ! -f "$npm_dir/.complete" ]; then
  echo "install: npm packages into $npm_dir"
  rm -rf "$npm_dir"
  mkdir -p "$npm_dir"
  cp "$repo_dir/tools/npm/package.json" "$repo_dir/tools/npm/package-lock.json" "$npm_dir/"
  (cd "$npm_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  touch "$npm_dir/.complete"
fi
ln -sfn "$npm_dir" "$cache_dir/npm"

bash "$repo_dir/tools/install_openblas.sh" "$cache_dir"
echo "install: ok (cache $cache_dir)"
