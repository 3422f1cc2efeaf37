#!/usr/bin/env bash
# Makes the project's Python environment, .venv/ in the checkout (ignored by git), from PyPI with
# pinned versions; never install these by hand. Idempotent: a venv already holding the pinned
# versions is kept.
#   scripts/setup-python.sh          ONNX Runtime and numpy: the export test runs exported models
#   scripts/setup-python.sh torch    also PyTorch 2.11 with CUDA 13 (its LibTorch is what a CUDA
#                                    build compiles against: scripts/build-cuda.sh; ~4 GB)
#   scripts/setup-python.sh keras    also Keras 3 and TensorBoard: our .keras files and event
#                                    files checked by their own readers (~150 MB)
#   MIRROR_VENV=.venv-seed scripts/setup-python.sh seed
#                                    TensorFlow (CPU) for the seed's own program beside ours
#                                    (bench/seed_side_by_side.sh; a venv of its own, ~600 MB)
# Debian's python3 (with python3-venv, scripts/setup.sh) makes the venv; MIRROR_VENV moves it.
# Without PyPI it says so and exits 1; the tests that need it then skip with that reason.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${MIRROR_VENV:-$PWD/.venv}
groups=(tools)
for g in "$@"; do
  case $g in
    tools) ;;
    torch) groups+=(torch) ;;
    keras) groups+=(keras) ;;
    seed) groups+=(seed) ;;
    *) echo "setup-python.sh: '$g' is not a group (tools, torch, keras, seed)" >&2; exit 2 ;;
  esac
done
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)

want=()
for g in "${groups[@]}"; do want+=("scripts/python/$g.txt"); done
stamp=$venv/.mirror-requirements
wanted=$(cat "${want[@]}" | grep -v '^#' | sort)
have=$(sort -u "$stamp" 2>/dev/null || true)
if [[ -x $venv/bin/python && -f $stamp && -z $(comm -13 <(echo "$have") <(echo "$wanted")) ]]; then
  echo "setup-python.sh: $venv already has ${groups[*]}"
  exit 0
fi
if [[ ! -x $venv/bin/python ]]; then
  "$python" -m venv "$venv" || {
    echo "setup-python.sh: $python cannot make a venv (Debian: apt-get install python3-venv)" >&2
    exit 1
  }
fi
args=()
for f in "${want[@]}"; do args+=(-r "$f"); done
echo "setup-python.sh: installing ${groups[*]} into $venv ($(cat "${want[@]}" | grep -v '^#' | tr '\n' ' '))"
# --no-cache-dir: pip's HTTP cache holds a whole wheel in memory to store it, and torch's CUDA
# wheels are gigabytes (a CI machine's pip died with nothing in its log). A dropped connection
# mid-download is tried again by pip and then by us, three times in all (a slow mirror: --timeout 60).
rc=0
for try in 1 2 3; do
  rc=0
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q --no-cache-dir \
    --timeout 60 "${args[@]}" >"$venv/pip.log" 2>&1 || rc=$?
  [[ $rc = 0 ]] && break
  echo "setup-python.sh: pip failed (exit $rc, try $try of 3)" >&2
  [[ $try = 3 ]] || sleep $((try * 20))
done
if [[ $rc != 0 ]]; then
  echo "setup-python.sh: pip could not install them (is PyPI reachable?); the end of $venv/pip.log:" >&2
  tail -n 20 "$venv/pip.log" >&2
  [[ $rc = 137 || $rc = 9 ]] && echo "setup-python.sh: pip was killed (out of memory?)" >&2
  echo "setup-python.sh: memory $(free -m | awk '/^Mem:/ {print $7 " MiB available of " $2}')," \
    "disk $(df -Pm "$venv" | awk 'NR == 2 {print $4 " MiB free"}') (torch's CUDA wheels need ~8 GB)" >&2
  exit 1
fi
sort -u <(echo "$have") <(echo "$wanted") | sed '/^$/d' >"$stamp"
"$venv/bin/python" - <<'PY'
import importlib, os
os.environ.setdefault("KERAS_BACKEND", "jax")  # Keras 3 without TensorFlow
for name in ("onnxruntime", "torch", "keras", "tensorboard"):
    try:
        m = importlib.import_module(name)
    except ImportError:
        continue
    extra = f", CUDA {m.version.cuda}" if name == "torch" else ""
    print(f"setup-python.sh: {name} {m.__version__}{extra}")
PY
