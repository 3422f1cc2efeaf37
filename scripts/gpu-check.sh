#!/usr/bin/env bash
# The GPU check, in one call of under 8 minutes, on a machine with Python's torch (CUDA), CMake and
# a compiler but no network or Qt (prepare first, here: scripts/gpu-prepare.sh):
#   1. builds mirror_core, mirrortrain and the core tests against that torch's LibTorch (CUDA and
#      NCCL switch on when it has them; no GUI, no libzip, no downloader);
#   2. runs the core tests: the GPU ones run where a GPU is usable and skip with the reason elsewhere;
#   3. lists the devices, kills a GPU run with SIGKILL and resumes it;
#   4. checks the step captured as one CUDA graph against the eager step (CudaGraphs.*_CUDA) and
#      shows a captured run's status line;
#   5. times seed-reuters on synthetic-text: 1 GPU replica and 2 logical GPUs on cuda:0, each with
#      CUDA graphs on and off, against PyTorch eager and torch.compile(mode="reduce-overhead") on
#      the GPU, at batch 32 and 256 (bench/gpu_throughput.py; REPEATS=2, NO_COMPILE=1 skips compile).
# Without a usable GPU it does 1-3 on the CPU and says so. Log: $OUT/gpu-check.log (or build-gpu/).
#
#     scripts/gpu-check.sh            # PYTHON=python3 BUILD=build-gpu STEPS=2000 REPEATS=2
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-gpu}
out=${OUT:-$build}
python=${PYTHON:-python3}
mkdir -p "$build" "$out"
exec > >(tee "$out/gpu-check.log") 2>&1
failures=()
step() { echo; echo "=== $* ($(date +%T), ${SECONDS}s)"; }
check() { local what=$1; shift; if "$@"; then echo "--- ok: $what"; else echo "--- FAILED: $what"; failures+=("$what"); fi; }

step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
echo "cores: $(nproc)"
"$python" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "GPU usable:", torch.cuda.is_available())' \
  || { echo "gpu-check.sh: $python has no torch"; exit 1; }

step "unpacking .gpu-deps"
deps=/tmp/mirror-gpu-deps
rm -rf "$deps" && mkdir -p "$deps"
ls .gpu-deps/*.deb >/dev/null 2>&1 || { echo "gpu-check.sh: .gpu-deps/ is empty; run scripts/gpu-prepare.sh first"; exit 1; }
for f in .gpu-deps/*.deb; do dpkg-deb -x "$f" "$deps"; done
arch_lib=$deps/usr/lib/x86_64-linux-gnu
zlib=$(ldconfig -p 2>/dev/null | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
zlib=${zlib:-$arch_lib/libz.a}

step "configure"
torch_prefix=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
nccl_root=$("$python" -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null || true)
args=(-DCMAKE_BUILD_TYPE=Release -DMIRROR_BUILD_GUI=OFF -DMIRROR_WITH_ZIP=OFF -DMIRROR_WITH_DOWNLOADS=OFF -DMIRROR_FMT_HEADER_ONLY=ON
      "-DCMAKE_PREFIX_PATH=$torch_prefix;$deps/usr" "-DCMAKE_LIBRARY_PATH=$torch_prefix/lib"
      "-DCMAKE_CXX_FLAGS=-isystem $deps/usr/include"
      "-DZLIB_INCLUDE_DIR=$deps/usr/include" "-DZLIB_LIBRARY=$zlib" "-DPython_EXECUTABLE=$(command -v "$python")"
      -DTORCH_CUDA_ARCH_LIST=9.0)
[ -n "$nccl_root" ] && args+=("-DNCCL_ROOT=$nccl_root")
[ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCUDAToolkit_ROOT=/usr/local/cuda)
command -v ninja >/dev/null && [ ! -f "$build/Makefile" ] && args+=(-G Ninja)
cmake -S . -B "$build" "${args[@]}" > "$out/configure.log" 2>&1
rc=$?
grep -E "Mirror Workbench CUDA|Torch|CUDA|NCCL|Error|error" "$out/configure.log" | grep -v "^--.*Looking for" | head -40
[ $rc -eq 0 ] || { echo "gpu-check.sh: configure failed (log: $out/configure.log)"; tail -40 "$out/configure.log"; exit 1; }

step "build (mirrortrain, core tests)"
if ! cmake --build "$build" -j"$(nproc)" --target mirrortrain mirror_core_tests -- $([ -f "$build/build.ninja" ] && echo -k 0 || echo -k) > "$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -60
  echo "gpu-check.sh: build failed (log: $out/build.log)"; exit 1
fi
mt=$build/app/mirrortrain

step "devices"
"$mt" devices
gpu=0; "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' && "$mt" devices | grep -q "^cuda:0" && gpu=1
[ $gpu = 1 ] || echo "gpu-check.sh: no usable GPU here: the GPU tests skip and the benchmark is left out"

step "core tests"
tests_bin=$(find "$build/tests" -name mirror_core_tests -type f | head -1)
"$tests_bin" > "$out/core-tests.log" 2>&1
rc=$?
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests from .* ran" "$out/core-tests.log" | sort | uniq | head -30
if [ $rc -ne 0 ]; then echo "--- FAILED: core tests (exit $rc); the log ends:"; tail -25 "$out/core-tests.log"; failures+=("core tests"); fi
"$tests_bin" --gtest_filter='CudaReport.*:CudaOutOfMemory.*:GpuReplicas.*:CudaGraphs.*:DeviceUpdate.*'

if [ $gpu = 1 ] && [ -z "${SKIP_RESUME:-}" ]; then
  step "a GPU run killed with SIGKILL resumes"
  run=$(mktemp -d)/killed
  "$mt" train --preset seed-reuters --dataset synthetic-text --devices cuda:0 --logical 2 --train-size 20000 \
    --epochs 2 --checkpoint-every 25 --run-dir "$run" --json > "$out/killed.jsonl" 2>&1 &
  pid=$!
  for _ in $(seq 300); do [ "$(grep -c '"type":"step"' "$out/killed.jsonl")" -ge 60 ] && break; sleep 0.1; done
  kill -9 $pid; wait $pid 2>/dev/null
  echo "killed after $(grep -c '"type":"step"' "$out/killed.jsonl") steps"
  check "resume of the killed GPU run" "$mt" train --resume "$run"
  grep -o '"status": *"[a-z]*"' "$run/run.json"

fi
if [ $gpu = 1 ]; then
  step "memory limit: 2 logical GPUs of 8 MiB each on cuda:0"
  "$mt" train --preset seed-reuters --dataset synthetic-text --devices cuda:0 --logical 2 --memory-limit 8 \
    --max-steps 5 --no-record; echo "exit code $?"

fi
if [ $gpu = 1 ]; then
  step "the step as one CUDA graph: 2 logical GPUs on cuda:0, --cuda-graphs on"
  check "a captured run" "$mt" train --preset seed-reuters --dataset synthetic-text --devices cuda:0 --logical 2 \
    --cuda-graphs on --train-size 4096 --epochs 2 --no-record
  step "mixed-bf16 on the GPU, eager and captured, beside float32 (samples/s on the last line of each)"
  for p in float32 mixed-bf16; do
    check "$p at batch 256" "$mt" train --preset seed-reuters --dataset synthetic-text --devices cuda:0 --logical 1 \
      --precision "$p" --batch-size 256 --train-size 8192 --epochs 3 --no-record
  done
  check "mixed-bf16 captured" "$mt" train --preset seed-reuters --dataset synthetic-text --devices cuda:0 --logical 2 \
    --precision mixed-bf16 --cuda-graphs on --train-size 4096 --epochs 1 --no-record
fi
if [ $gpu = 1 ] && [ -z "${SKIP_BENCH:-}" ]; then
  step "benchmark: seed-reuters on synthetic-text, GPU"
  check "benchmark" "$python" bench/gpu_throughput.py --mirrortrain "$mt" --python "$python" --steps "${STEPS:-2000}" \
    --repeats "${REPEATS:-2}" ${NO_COMPILE:+--no-compile}
fi

step "done"
if [ ${#failures[@]} -gt 0 ]; then echo "gpu-check.sh: FAILED: ${failures[*]}"; exit 1; fi
echo "gpu-check.sh: all passed"
