#!/usr/bin/env bash
# The seed beside us, on one file (issue 49): the Keras tutorial's own program (TensorFlow,
# MirroredStrategy over 2 logical CPU devices: bench/seed_keras.py) and mirrortrain
# (seed-reuters-as-published and seed-reuters, 2 logical devices) train on the same Keras-format
# reuters.npz, written by mirrortrain from its synthetic-text generator (or a real reuters.npz:
# --data FILE). Each runs with 3 seeds; per epoch it prints every run's training and validation
# accuracy, Keras' spread over its seeds, and whether mirrortrain's curve lies inside it (widened by
# the seeds' own spread of mirrortrain, as two seed-sets of one model differ as much). Then the
# speeds: bench/reuters_throughput.py with keras-2 and PyTorch 2.x eager, torch.compile and DDP.
#   MIRROR_VENV=.venv-seed scripts/setup-python.sh seed      # TensorFlow, once
#   bench/seed_side_by_side.sh [--epochs 10] [--data reuters.npz] [--torch-python PY] [--no-speed]
# Not a test: a shared 2-core machine moves by tens of percent; read the spreads.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
bin=${MIRRORTRAIN:-$root/build/app/mirrortrain}
keras_py=${KERAS_PYTHON:-$root/.venv-seed/bin/python}
torch_py=""
epochs=10 data="" speed=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --epochs) epochs=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --torch-python) torch_py=$2; shift 2 ;;
    --no-speed) speed=0; shift ;;
    *) echo "seed_side_by_side.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $bin ]] || { echo "seed_side_by_side.sh: build mirrortrain first (scripts/build.sh)" >&2; exit 2; }
[[ -x $keras_py ]] || { echo "seed_side_by_side.sh: no TensorFlow venv at $keras_py: MIRROR_VENV=.venv-seed scripts/setup-python.sh seed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/data"
if [[ -n $data ]]; then
  cp "$data" "$tmp/data/reuters.npz"
else
  "$bin" inspect --dataset synthetic-text --samples 0 --write-keras-npz "$tmp/data/reuters.npz" | tail -n 1
fi

# Interleaved: seed 1 of every program, then seed 2, then seed 3.
for seed in 1 2 3; do
  for variant in as-published corrected; do
    flag=(); preset=seed-reuters
    [[ $variant == as-published ]] && { flag=(--as-published); preset=seed-reuters-as-published; }
    OMP_NUM_THREADS=1 "$keras_py" "$here/seed_keras.py" --data "$tmp/data/reuters.npz" --epochs "$epochs" --seed "$seed" \
      "${flag[@]}" >"$tmp/keras-$variant-$seed.jsonl" 2>"$tmp/keras-$variant-$seed.log" ||
      { echo "Keras failed:"; tail -n 5 "$tmp/keras-$variant-$seed.log"; exit 1; }
    "$bin" train --preset "$preset" --dataset reuters --data-dir "$tmp/data" --logical 2 --epochs "$epochs" --seed "$seed" \
      --json --no-record >"$tmp/mirror-$variant-$seed.jsonl" 2>"$tmp/mirror-$variant-$seed.log" ||
      { echo "mirrortrain failed:"; tail -n 5 "$tmp/mirror-$variant-$seed.log"; exit 1; }
    echo "seed $seed, $variant: done" >&2
  done
done

python3 - "$tmp" "$epochs" <<'PY'
import json, os, statistics, sys
tmp, epochs = sys.argv[1], int(sys.argv[2])
def curves(prefix):
    out = []
    for seed in (1, 2, 3):
        rows = [json.loads(l) for l in open(os.path.join(tmp, f"{prefix}-{seed}.jsonl")) if l.startswith("{")]
        rows = [r for r in rows if r.get("type", "epoch") == "epoch" and "val_accuracy" in r]
        out.append(rows[:epochs])
    return out
for variant in ("as-published", "corrected"):
    keras, mirror = curves(f"keras-{variant}"), curves(f"mirror-{variant}")
    print(f"\n{variant}: validation accuracy per epoch, 3 seeds each (Keras on TensorFlow | mirrortrain)")
    print(f"{'epoch':>5}  {'Keras min-max':<15}{'mirrortrain min-max':<21}{'train acc K | m':<18}inside")
    inside = 0
    for e in range(epochs):
        k = [c[e]["val_accuracy"] for c in keras]
        m = [c[e]["val_accuracy"] for c in mirror]
        kt = statistics.mean(c[e]["accuracy"] for c in keras)
        mt = statistics.mean(c[e]["accuracy"] for c in mirror)
        # Inside: mirrortrain's mean lies in Keras' range widened by the larger of the two spreads.
        slack = max(max(k) - min(k), max(m) - min(m)) / 2
        ok = min(k) - slack <= statistics.mean(m) <= max(k) + slack
        inside += ok
        print(f"{e + 1:>5}  {min(k):.3f}-{max(k):.3f}    {min(m):.3f}-{max(m):.3f}        {kt:.3f} | {mt:.3f}     {'yes' if ok else 'NO'}")
    print(f"epochs inside Keras' spread: {inside}/{epochs}")
    # Steady pace: each run's epochs after the first (Keras traces and fills its cache in the first).
    ks = [c[e]["seconds"] for c in keras for e in range(1, epochs)]
    ms = [c[e]["seconds"] for c in mirror for e in range(1, epochs)]
    if ks and ms:
        k, m = statistics.median(ks), statistics.median(ms)
        print(f"an epoch after the first, median [min-max] of {len(ks)}: Keras {k:.2f} s [{min(ks):.2f}-{max(ks):.2f}], "
              f"mirrortrain {m:.2f} s [{min(ms):.2f}-{max(ms):.2f}] (validation included): mirrortrain {k / m:.2f}x Keras")
PY

if [[ $speed -eq 1 ]]; then
  args=(--mirrortrain "$bin" --keras-python "$keras_py" --configs mirror-1x1,mirror-1x2,mirror-2,keras-2 --repeats 3)
  if [[ -n $torch_py ]]; then
    args=(--mirrortrain "$bin" --keras-python "$keras_py" --python "$torch_py" --repeats 3
          --configs mirror-1x1,mirror-1x2,mirror-2,keras-2,torch-1,torch-2,torch-compile-1,torch-compile-2,torch-ddp-2)
  fi
  python3 "$here/reuters_throughput.py" "${args[@]}"
fi
