#!/usr/bin/env bash
# Configures and builds Mirror Workbench into build/ (Release, ccache when installed).
# Extra arguments go to CMake; BUILD names another build folder. scripts/build-cuda.sh builds
# against PyPI's CUDA LibTorch this way.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >"$build-configure.log" 2>&1 || {
  cat "$build-configure.log" >&2
  exit 1
}
cmake --build "$build" -j"$(nproc)"
