#!/usr/bin/env bash
# Prepares, on a Debian 12 machine with network, what scripts/gpu-check.sh needs on a GPU machine
# that has Python's torch (with its LibTorch, CUDA and NCCL), CMake and a compiler but no network:
# Debian's packages of fmt, nlohmann-json, CLI11, GoogleTest, Boost's headers, zlib and stb, downloaded
# (not installed) into .gpu-deps/ (ignored by git, ~12 MB), which travels with the tree.
#
#     scripts/gpu-prepare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libfmt-dev libfmt9 nlohmann-json3-dev libcli11-dev libgtest-dev libboost1.74-dev zlib1g-dev libstb-dev)
rm -rf .gpu-deps
mkdir -p .gpu-deps
if ! (cd .gpu-deps && apt-get download "${packages[@]}" >/dev/null); then
  echo "gpu-prepare.sh: apt-get download failed; refresh the package lists (apt-get update, as root) and retry" >&2
  exit 1
fi
echo "gpu-prepare.sh: $(ls .gpu-deps | wc -l) packages, $(du -sh .gpu-deps | cut -f1), in .gpu-deps/"
