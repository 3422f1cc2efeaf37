#!/usr/bin/env bash
# Builds the whole project (engine, mirrortrain, mirrorbench, every test) into build-cuda/ against
# the CUDA LibTorch inside PyPI's torch wheel (the project venv: scripts/setup-python.sh torch),
# with CUDA on: the CUDA toolkit's nvcc, NCCL, CUDA graphs, NVTX. No GPU is needed to build it or
# to run its tests on the CPU (the GPU tests skip and say why). CI runs exactly this.
#   scripts/setup-python.sh torch && scripts/build-cuda.sh && ctest --test-dir build-cuda
# Extra arguments go to CMake; CUDA_ARCHS picks the GPU architectures (default 9.0: H100/H200).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${MIRROR_VENV:-$PWD/.venv}/bin/python
# The torch package's folder as a prefix: its lib/ must come before the system's, where Debian's
# libtorch-dev (1.13) also has a libtorch.so that TorchConfig.cmake would otherwise find first.
torch_prefix=$("$py" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) || {
  echo "build-cuda.sh: no PyTorch in the project venv ($py); make it with: scripts/setup-python.sh torch" >&2
  exit 1
}
nvcc=$(command -v nvcc || true)
[[ -n $nvcc ]] || { [[ -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc; }
[[ -n $nvcc ]] || { echo "build-cuda.sh: no nvcc on PATH or in /usr/local/cuda/bin: install the CUDA toolkit" >&2; exit 1; }
cuda_root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
echo "build-cuda.sh: LibTorch $("$py" -c 'import torch; print(torch.__version__)') from $torch_prefix, nvcc $nvcc"
# A pip torch ships its own (newer) fmt headers, which shadow the system's: fmt header-only keeps
# them self-contained. Torch's CMake asks the GPU for its architecture; without one, say it.
BUILD=build-cuda ./scripts/build.sh -DCMAKE_PREFIX_PATH="$torch_prefix" -DCMAKE_LIBRARY_PATH="$torch_prefix/lib" -DMIRROR_CUDA=ON \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDAToolkit_ROOT="$cuda_root" -DTORCH_CUDA_ARCH_LIST="${CUDA_ARCHS:-9.0}" \
  -DMIRROR_FMT_HEADER_ONLY=ON -DPython_EXECUTABLE="$py" "$@"
