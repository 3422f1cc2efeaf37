#!/usr/bin/env bash
# mirrortrain export, checked where the files land: each model of tests/fixtures/export_models (and
# the presets' conv nets, and Keras files whose names carry Python) is trained for a few steps and
# exported; PyTorch (Debian's python3-torch) loads model.pt into the generated model.py, ONNX's
# checker passes model.onnx, ONNX Runtime (PyPI's onnxruntime in the project venv made by
# scripts/setup-python.sh; skipped with the reason without it) runs it, Keras 3 (PyPI's keras, the
# venv's keras group) opens model.keras, and all must compute what we computed for the same inputs
# (sample_input.npy -> sample_output.npy) to 1e-5, running nothing that a name holds.
# Usage: test_export.sh path/to/mirrortrain
set -euo pipefail
bin=$(readlink -f "${1:?usage: test_export.sh path/to/mirrortrain}")
here=$(cd "$(dirname "$0")" && pwd)
models=$here/../fixtures/export_models
tools=$here/../tools
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MIRROR_RUNS_DIR="$tmp/runs"
py=/usr/bin/python3  # Debian's, with python3-torch and python3-onnx
[[ -x $py ]] || py=python3
"$py" -c 'import torch, onnx, numpy' 2>/dev/null ||
  { echo "FAIL: Python's torch, onnx or numpy is missing: run scripts/setup.sh (python3-torch python3-onnx)"; exit 1; }

text=(--dataset synthetic-text --train-size 64 --val-size 16)
# train NAME ARGS...: a few steps, recorded in $tmp/NAME
train() {
  local name=$1
  shift
  "$bin" train "$@" --logical 1 --epochs 2 --max-steps 3 --run-dir "$tmp/$name" >"$tmp/$name.log" 2>&1 ||
    { echo "FAIL: training $name:"; tail -n 5 "$tmp/$name.log"; exit 1; }
}
runs=()
for m in text-every-op text-average bag-of-words-count bag-of-words-multi-hot; do
  train "$m" --model-file "$models/$m.json" "${text[@]}"
  runs+=("$m")
done
train seed-reuters --preset seed-reuters "${text[@]}"
runs+=(seed-reuters)
# Keras files whose model and layer names carry Python (tests/tools/make_hostile_keras_fixtures.py):
# the exports must hold them only as data, and running them must create no pwned_by_* file.
keras=$here/../fixtures/keras_models
hostile=(comment_injection hostile_names)
for m in "${hostile[@]}"; do
  train "$m" --model-file "$keras/$m.json" "${text[@]}"
  runs+=("$m")
done
if [[ -d /usr/share/datasets/fashion-mnist ]]; then
  train image-same-padding --model-file "$models/image-same-padding.json" --dataset fashion-mnist
  train fashion-cnn --preset fashion-cnn
  runs+=(image-same-padding fashion-cnn)
else
  echo "SKIP the image models: no Fashion-MNIST in /usr/share/datasets/fashion-mnist (Debian: dataset-fashion-mnist)"
fi

pt=() onnx=() keras_exports=()
for r in "${runs[@]}"; do
  for format in pt onnx keras; do
    "$bin" export "$tmp/$r" --format $format --out "$tmp/export/$r-$format" --sample 8 >"$tmp/export-$r-$format.log" 2>&1 ||
      { echo "FAIL: exporting $r as $format:"; cat "$tmp/export-$r-$format.log"; exit 1; }
  done
  pt+=("$tmp/export/$r-pt")
  onnx+=("$tmp/export/$r-onnx")
  keras_exports+=("$tmp/export/$r-keras")
done
grep -q "model.py" "$tmp/export-seed-reuters-pt.log" || { echo "FAIL: export does not list what it wrote"; exit 1; }

# Python runs the exports in an empty folder, where a name that ran as code leaves pwned_by_* files.
sandbox=$tmp/sandbox
mkdir "$sandbox"
failed=0
for m in "${hostile[@]}"; do
  (cd "$sandbox" && "$py" "$tools/check_export_names.py" "$keras/$m.json" "$tmp/export/$m-pt") || failed=1
done
(cd "$sandbox" && "$py" "$tools/check_pytorch_export.py" "${pt[@]}") || failed=1
(cd "$sandbox" && "$py" "$tools/check_onnx_export.py" "${onnx[@]}") || failed=1
ran=$(find "$sandbox" "$tmp/export" -name 'pwned_by_*' -printf '%f ')
[[ -z $ran ]] || { echo "FAIL: loading the exports ran code from names in the model files: they created $ran"; exit 1; }
[[ $failed -eq 0 ]] || { echo "FAIL: Python could not load or check the exports (above)"; exit 1; }

# ONNX Runtime from the project venv (PyPI's onnxruntime, made by scripts/setup-python.sh).
venv_py=${MIRROR_VENV:-$here/../../.venv}/bin/python
if [[ -x $venv_py ]] && "$venv_py" -c 'import onnxruntime, numpy' 2>/dev/null; then
  (cd "$sandbox" && "$venv_py" "$tools/check_onnx_runtime.py" "${onnx[@]}") ||
    { echo "FAIL: ONNX Runtime does not compute what we computed (above)"; exit 1; }
  ort_checked=" and run by ONNX Runtime"
else
  echo "SKIP ONNX Runtime: no project venv with onnxruntime at $venv_py (make it: scripts/setup-python.sh)"
  ort_checked=""
fi
# Keras 3 from the project venv (PyPI's keras on JAX: scripts/setup-python.sh keras) opens model.keras.
if [[ -x $venv_py ]] && KERAS_BACKEND=jax "$venv_py" -c 'import keras, h5py' 2>/dev/null; then
  (cd "$sandbox" && "$venv_py" "$tools/check_keras_export.py" "${keras_exports[@]}") ||
    { echo "FAIL: Keras does not open model.keras or does not compute what we computed (above)"; exit 1; }
  ran=$(find "$sandbox" "$tmp/export" -name 'pwned_by_*' -printf '%f ')
  [[ -z $ran ]] || { echo "FAIL: Keras loading model.keras ran code from names in the model files: $ran"; exit 1; }
  ort_checked+=", opened by Keras"
else
  echo "SKIP Keras: no project venv with keras at $venv_py (make it: scripts/setup-python.sh keras)"
fi

# What a person gets wrong gets a clear line and exit 2.
set +e
out=$("$bin" export "$tmp/no-such-run" 2>&1); rc=$?
[[ $rc -eq 2 && $out == *"no run here"* ]] || { echo "FAIL: a missing run: exit $rc: $out"; exit 1; }
out=$("$bin" export "$tmp/seed-reuters" --checkpoint "$tmp/nothing.pt" 2>&1); rc=$?
[[ $rc -eq 2 && $out == *"nothing.pt"* ]] || { echo "FAIL: a missing checkpoint: exit $rc: $out"; exit 1; }
out=$("$bin" export "$tmp/seed-reuters" --format tflite 2>&1); rc=$?
[[ $rc -eq 2 ]] || { echo "FAIL: an unknown format: exit $rc: $out"; exit 1; }
# Layer names LibTorch cannot take are refused before training, naming the layers.
echo '{"layers": [{"type": "Embedding", "input_dim": "vocab", "output_dim": 4, "name": "same"}, {"type": "Flatten"},
  {"type": "Dense", "units": "classes", "name": "same"}]}' >"$tmp/duplicate.json"
out=$("$bin" train --model-file "$tmp/duplicate.json" "${text[@]}" --max-steps 1 --run-dir "$tmp/duplicate" 2>&1); rc=$?
[[ $rc -eq 2 && $out == *"layer 1 (Embedding) has the same name"* ]] || { echo "FAIL: duplicate names: exit $rc: $out"; exit 1; }
sed 's/"same"}, {"type": "Flatten"}/"block.embedding"}, {"type": "Flatten"}/' "$tmp/duplicate.json" >"$tmp/dotted.json"
out=$("$bin" train --model-file "$tmp/dotted.json" "${text[@]}" --max-steps 1 --run-dir "$tmp/dotted" 2>&1); rc=$?
[[ $rc -eq 2 && $out == *'"block.embedding" holds a '"'.'"* ]] || { echo "FAIL: a dotted name: exit $rc: $out"; exit 1; }
echo "PASS: ${#runs[@]} models exported and checked${ort_checked}"
