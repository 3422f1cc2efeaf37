#!/usr/bin/env bash
# .keras files that Keras 3 itself trained and saved (tests/tools/make_keras_trained_models.py, PyPI's
# keras on JAX from the project venv) open with their weights: `mirrortrain evaluate --model-file`
# computes on the sample what Keras' own predict computes from the same file (to 1e-5,
# tests/tools/check_keras_export.py), a run continues training from them and resumes without the
# file, --fresh-weights draws new ones, and a file whose weights sit behind an HDF5 external link
# is refused with the reason. Skipped, with the reason, without the venv's keras group.
# Usage: test_keras_weights.sh path/to/mirrortrain
set -euo pipefail
bin=$(readlink -f "${1:?usage: test_keras_weights.sh path/to/mirrortrain}")
here=$(cd "$(dirname "$0")" && pwd)
tools=$here/../tools
venv_py=${MIRROR_VENV:-$here/../../.venv}/bin/python
if ! [[ -x $venv_py ]] || ! KERAS_BACKEND=jax "$venv_py" -c 'import keras, h5py' 2>/dev/null; then
  echo "SKIP: no project venv with keras at $venv_py (make it: scripts/setup-python.sh keras)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MIRROR_RUNS_DIR="$tmp/runs"
fail() { echo "FAIL: $*"; exit 1; }

# synthetic-text's shape: sequences of 300 ids below 30,982, 46 topics (mirrortrain inspect says so).
"$bin" inspect --dataset synthetic-text --samples 0 | grep -q "input (None, 300), token ids below 30982" ||
  fail "synthetic-text is no longer 300 ids below 30,982: update the shape given to Keras below"
image=()
[[ -d /usr/share/datasets/fashion-mnist ]] && image=(--image 28,28,1,10) ||
  echo "SKIP the image model: no Fashion-MNIST in /usr/share/datasets/fashion-mnist (Debian: dataset-fashion-mnist)"
"$venv_py" "$tools/make_keras_trained_models.py" "$tmp/keras" --vocab 30982 --seq-len 300 --classes 46 "${image[@]}" \
  >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "Keras could not write its models"; }

text=(--dataset synthetic-text --train-size 64 --val-size 16)
checked=()
for m in text-conv-flatten text-softmax ${image:+image-cnn}; do
  data=("${text[@]}")
  [[ $m == image-cnn ]] && data=(--dataset fashion-mnist)
  "$bin" evaluate --model-file "$tmp/keras/$m/model.keras" "${data[@]}" --sample-out "$tmp/keras/$m" --sample 8 --json \
    >"$tmp/$m.json" 2>"$tmp/$m.err" || { cat "$tmp/$m.err"; fail "evaluate could not open $m's weights"; }
  grep -q "\"initial_weights\":\"$tmp/keras/$m/model.keras\"" "$tmp/$m.json" || fail "$m: evaluated other weights: $(cat "$tmp/$m.json")"
  checked+=("$tmp/keras/$m")
done
# Keras predicts from its own file on our sample inputs; ours came from the same file, read here.
(cd "$tmp" && "$venv_py" "$tools/check_keras_export.py" "${checked[@]}") ||
  fail "what mirrortrain computes from Keras' weights is not what Keras computes (above)"

# New weights on request: another loss on the same data.
"$bin" evaluate --model-file "$tmp/keras/text-softmax/model.keras" "${text[@]}" --json >"$tmp/file.json"
"$bin" evaluate --model-file "$tmp/keras/text-softmax/model.keras" "${text[@]}" --json --fresh-weights >"$tmp/fresh.json"
grep -q '"initial_weights":null' "$tmp/fresh.json" || fail "--fresh-weights still took the file's: $(cat "$tmp/fresh.json")"
[[ $(grep -o '"loss":[^,]*' "$tmp/file.json") != $(grep -o '"loss":[^,]*' "$tmp/fresh.json") ]] ||
  fail "the file's weights and fresh ones give the same loss"

# Training goes on from the file's weights, is recorded with them, and resumes without the file.
cp "$tmp/keras/text-softmax/model.keras" "$tmp/moved.keras"
"$bin" train --model-file "$tmp/moved.keras" "${text[@]}" --epochs 1 --run-dir "$tmp/run" >"$tmp/train.log" 2>&1 ||
  { cat "$tmp/train.log"; fail "training from the .keras file's weights"; }
grep -q "starts from the trained weights in $tmp/moved.keras" "$tmp/train.log" || fail "train did not say where its weights came from"
grep -q "\"initial_weights\": \"$tmp/moved.keras\"" "$tmp/run/run.json" || fail "run.json does not record the weights' file"
rm "$tmp/moved.keras"
"$bin" train --resume "$tmp/run" --epochs 2 >"$tmp/resume.log" 2>&1 ||
  { cat "$tmp/resume.log"; fail "resuming a run started from a .keras file needed the file"; }

# An external link is not followed: the reason, and nothing trained.
if "$bin" evaluate --model-file "$tmp/keras/external-link/model.keras" "${text[@]}" >"$tmp/link.log" 2>&1; then
  fail "a weights file behind an external link was read: $(cat "$tmp/link.log")"
fi
grep -q "layers/dense is an external link" "$tmp/link.log" ||
  fail "the external link was refused without saying so: $(cat "$tmp/link.log")"
echo "PASS: Keras' own .keras files open with their weights, train on, resume, and links are refused"
