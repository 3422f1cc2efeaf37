#!/usr/bin/env bash
# How much OpenBLAS matters: trains three models for 15 steps at batch 256 with the installed
# libblas.so.3 (OpenBLAS after setup.sh) and with Debian's reference BLAS, then prints the ratio.
# Usage: bench/blas_compare.sh [path/to/mirrortrain]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/app/mirrortrain}
reference=/usr/lib/x86_64-linux-gnu/blas
[[ -e $reference/libblas.so.3 ]] || { echo "no reference BLAS in $reference (apt-get install libblas3)" >&2; exit 1; }
rate() {  # samples/s of the final JSON object
  "$bin" train "$@" --logical 1 --batch-size 256 --max-steps 15 --json --no-record | tail -n 1 |
    sed -E 's/.*"train_samples_per_sec":([0-9.]+).*/\1/'
}
printf '%-16s %12s %14s %8s\n' model "OpenBLAS" "reference" ratio
for spec in "seed-reuters|--preset seed-reuters" "fashion-cnn|--preset fashion-cnn" \
            "fashion-mlp|--model-file resources/models/fashion-mlp.json --dataset fashion-mnist"; do
  name=${spec%%|*}
  read -r -a args <<<"${spec#*|}"
  fast=$(rate "${args[@]}")
  slow=$(LD_LIBRARY_PATH=$reference rate "${args[@]}")
  printf '%-16s %12.0f %14.0f %7.1fx\n' "$name" "$fast" "$slow" "$(awk -v a="$fast" -v b="$slow" 'BEGIN { print a / b }')"
done
