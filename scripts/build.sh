#!/usr/bin/env bash
# Configures and builds Mirror Workbench into build/ (Release, ccache when installed).
# Extra arguments go to CMake, e.g. -DCMAKE_PREFIX_PATH=/opt/libtorch for a CUDA LibTorch.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >build-configure.log 2>&1 || {
  cat build-configure.log >&2
  exit 1
}
cmake --build build -j"$(nproc)"
