#!/usr/bin/env bash
# Installs every Debian package that Mirror Workbench's build, tests, benchmarks and demo need.
# Idempotent and unattended: runs as root (CI, containers) or as a user with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ccache pkg-config
  lld                     # LLVM's linker: links each program against LibTorch in a tenth of GNU ld's time
  libtorch-dev            # LibTorch 1.13 (CPU), the C++ frontend
  libgloo-dev             # Gloo headers for c10d's ProcessGroupGloo: training across processes
  libopenblas0            # fast BLAS for libtorch's matrix products (the reference BLAS is ~30x slower)
  libdnnl-dev             # oneDNN's sgemm: the hand-written CPU layers' matrix products (2x OpenBLAS here)
  libgoogle-perftools-dev # tcmalloc: keeps libtorch's per-step buffers instead of faulting them in again
  libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  libzip-dev libcurl4-openssl-dev libssl-dev   # Keras .npz archives, dataset downloads, SHA-256
  libhdf5-dev             # HDF5: the weights inside a Keras 3 .keras file (mirrortrain export --format keras)
  libstb-dev              # stb_image: decoding the images of --dataset images (PNG, JPEG, BMP, GIF)
  libgtest-dev googletest
  libbenchmark-dev        # Google Benchmark: bench/kernels.cpp
  libboost-dev            # Boost.CRC (CRC-32C of TensorBoard records)
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev libxkbcommon-dev   # the desktop window (Qt 6)
  xvfb xauth              # screenshots of the window on machines without a display
  clang libclang-rt-14-dev   # libFuzzer and the sanitizers' runtimes for the fuzz targets (scripts/fuzz.sh)
  python3 python3-numpy python3-torch   # benchmark reference, golden values, torchrun
  slurm-wlm munge iproute2   # a one-node Slurm and two network namespaces for the multi-process tests
  dataset-fashion-mnist   # the embedded default dataset (/usr/share/datasets/fashion-mnist)
  help2man                # the man pages, made at build time from the programs' --help
  bash-completion         # tests/cli/test_completion.sh completes mirrortrain as bash would
  dpkg-dev lintian appstream desktop-file-utils   # the .deb and its checks (scripts/package.sh)
  protobuf-compiler python3-protobuf   # tests read TensorBoard files with TensorBoard's own field numbers
  python3-onnx            # exported models: ONNX's own checker (tests/cli/test_export.sh)
  python3-venv python3-pip   # the project's venv from PyPI (scripts/setup-python.sh)
)

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup.sh: run as root or install sudo: apt-get needs root to install ${packages[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup.sh: updating the package lists"
"${as_root[@]}" apt-get update -qq
echo "setup.sh: installing ${#packages[@]} packages (already installed ones are kept)"
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

# libtorch calls whichever libblas.so.3 the alternatives system selects; say which one that is.
blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || true)
case "$blas" in
  *openblas*) echo "setup.sh: BLAS is OpenBLAS ($blas)" ;;
  *) echo "setup.sh: warning: libblas.so.3 is $blas, not OpenBLAS; training will be much slower." \
          "Select OpenBLAS with: update-alternatives --config libblas.so.3-x86_64-linux-gnu" >&2 ;;
esac
# ONNX Runtime and Keras 3 (PyPI) run the exported models in the export test. Without PyPI it skips
# that check and says why; nothing else needs it, so setup goes on.
./scripts/setup-python.sh keras || echo "setup.sh: warning: no project venv; the export test skips ONNX Runtime and Keras" >&2
echo "setup.sh: done"
