#!/usr/bin/env bash
# A run's TensorBoard files, read the way TensorBoard reads them: Event protocol buffers parsed by
# code that Debian's protoc generates from tests/proto/tensorboard_event.proto (TensorBoard's field
# numbers), from TFRecords whose CRCs are checked. Checks Keras' layout (train/ and validation/,
# batch_* and epoch_* tags, epochs from 0), TensorFlow 2's scalar form (a rank-0 DT_FLOAT tensor
# with the scalars plugin's metadata), and that every value is the one metrics.jsonl recorded.
# TensorBoard itself (the project venv's) then reads the run, and its HParams dashboard lists a
# sweep's runs with their settings and final metrics (tests/tools/check_tensorboard_hparams.py).
# Usage: test_tensorboard_layout.sh path/to/mirrortrain
set -euo pipefail
bin=$(readlink -f "${1:?usage: test_tensorboard_layout.sh path/to/mirrortrain}")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Debian's python3 (the one python3-protobuf installs into), not whichever python3 comes first on PATH.
py=/usr/bin/python3
[[ -x $py ]] || py=python3
command -v protoc >/dev/null && "$py" -c 'import google.protobuf' 2>/dev/null ||
  { echo "FAIL: protoc or Python's protobuf module is missing: run scripts/setup.sh (protobuf-compiler python3-protobuf)"; exit 1; }
protoc -I "$here/../proto" --python_out="$tmp" "$here/../proto/tensorboard_event.proto"
"$bin" train --preset spirals-mlp --epochs 2 --run-dir "$tmp/run" >"$tmp/train.log" 2>&1 || { cat "$tmp/train.log"; exit 1; }
PYTHONPATH=$tmp "$py" - "$tmp/run" <<'PY'
import glob, json, math, os, struct, sys
import tensorboard_event_pb2 as pb

run = sys.argv[1]
table = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    table.append(c)
def masked_crc(data):
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF

def events(path):
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        assert length_crc == masked_crc(header), f"{path}: bad length CRC at {pos}"
        body = data[pos + 12:pos + 12 + length]
        (body_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        assert body_crc == masked_crc(body), f"{path}: bad data CRC at {pos}"
        e = pb.Event()
        e.ParseFromString(body)
        out.append(e)
        pos += 16 + length
    return out

failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

check([os.path.basename(f) for f in glob.glob(os.path.join(run, "events.out.tfevents.*")) if ".hparams." not in f] == [],
      "no scalar event file at the run's top (the pre-0.2 place); only its HParams session")
scalars = {}
for part in ("train", "validation"):
    files = glob.glob(os.path.join(run, part, "events.out.tfevents.*"))
    check(len(files) == 1, f"{part}/ holds one event file ({[os.path.basename(f) for f in files]})")
    evs = events(files[0])
    check(evs[0].WhichOneof("what") == "file_version" and evs[0].file_version == "brain.Event:2",
          f"{part}/ begins with the file version record")
    bad_form = []
    for e in evs[1:]:
        for v in e.summary.value:
            t = v.tensor
            if not (v.WhichOneof("value") == "tensor" and t.dtype == pb.DT_FLOAT and len(t.tensor_shape.dim) == 0
                    and len(t.float_val) == 1 and v.metadata.plugin_data.plugin_name == "scalars"
                    and v.metadata.data_class == pb.DATA_CLASS_SCALAR):
                bad_form.append(v.tag)
            scalars.setdefault(part, {}).setdefault(v.tag, []).append((e.step, t.float_val[0] if len(t.float_val) else None))
    check(not bad_form, f"{part}/: every scalar a rank-0 DT_FLOAT tensor of the scalars plugin ({len(evs) - 1} events)")

train, val = scalars["train"], scalars["validation"]
check(set(train) == {"batch_loss", "batch_accuracy", "batch_top_k_categorical_accuracy", "batch_learning_rate",
                     "batch_samples_per_sec", "epoch_loss", "epoch_accuracy", "epoch_top_k_categorical_accuracy",
                     "epoch_learning_rate"}, f"train/ tags: {sorted(train)}")
check(set(val) == {"epoch_loss", "epoch_accuracy", "epoch_top_k_categorical_accuracy"}, f"validation/ tags: {sorted(val)}")

records = [json.loads(line) for line in open(os.path.join(run, "metrics.jsonl"))]
steps = [r for r in records if r.get("type") == "step"]
epochs = [r for r in records if r.get("type") == "epoch"]
def close(a, b):
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7)
check([s for s, _ in train["batch_loss"]] == [r["global_step"] for r in steps],
      f"batch_* steps are the global steps 1..{len(steps)}")
check(all(close(v, r["loss"]) for (_, v), r in zip(train["batch_loss"], steps)), "batch_loss is metrics.jsonl's loss, step for step")
check(all(close(v, r["accuracy"]) for (_, v), r in zip(train["batch_accuracy"], steps)), "batch_accuracy likewise")
check([s for s, _ in val["epoch_loss"]] == list(range(len(epochs))) == [s for s, _ in train["epoch_loss"]],
      f"epoch_* steps count epochs from 0, as Keras does ({len(epochs)} epochs)")
check(all(close(v, r["val_loss"]) for (_, v), r in zip(val["epoch_loss"], epochs)), "validation/epoch_loss is each epoch's val_loss")
check(all(close(v, r["val_accuracy"]) for (_, v), r in zip(val["epoch_accuracy"], epochs)), "validation/epoch_accuracy is each epoch's val_accuracy")
check(all(close(v, r["loss"]) for (_, v), r in zip(train["epoch_loss"], epochs)), "train/epoch_loss is each epoch's training loss")
sys.exit(1 if failures else 0)
PY

# TensorBoard itself (PyPI's tensorboard in the project venv: scripts/setup-python.sh keras) reads
# the same files through its own event reader, as its Scalars dashboard does.
venv_py=${MIRROR_VENV:-$here/../../.venv}/bin/python
if [[ -x $venv_py ]] && "$venv_py" -c 'import tensorboard' 2>/dev/null; then
  "$venv_py" - "$tmp/run" <<'PY'
import json, math, os, sys
from tensorboard import __version__ as version
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer

run = sys.argv[1]
# Every event kept (TensorBoard samples 10 tensors a tag unless told otherwise).
multiplexer = EventMultiplexer(size_guidance={event_accumulator.TENSORS: 0}).AddRunsFromDirectory(run)
multiplexer.Reload()
runs = multiplexer.Runs()  # the run's own folder (".") holds its HParams session
if sorted(runs) != [".", "train", "validation"]:
    sys.exit(f"FAIL: TensorBoard {version} finds the runs {sorted(runs)}, not the run's own, train and validation")
hparams = sorted(multiplexer.Runs()["."]["tensors"])
if hparams != ["_hparams_/session_end_info", "_hparams_/session_start_info"]:
    sys.exit(f"FAIL: TensorBoard {version} finds {hparams} in the run's own folder, not its HParams session")
def scalars(part, tag):
    tensors = multiplexer.Tensors(part, tag)  # TensorFlow 2's scalars: rank-0 tensors of the scalars plugin
    return [(t.step, float(t.tensor_proto.float_val[0])) for t in tensors]
plugin = multiplexer.SummaryMetadata("train", "epoch_loss").plugin_data.plugin_name
if plugin != "scalars":
    sys.exit(f"FAIL: TensorBoard {version} files epoch_loss under the {plugin!r} plugin, not scalars")
records = [json.loads(line) for line in open(os.path.join(run, "metrics.jsonl"))]
epochs = [r for r in records if r.get("type") == "epoch"]
steps = [r for r in records if r.get("type") == "step"]
got = scalars("validation", "epoch_accuracy")
want = [(i, r["val_accuracy"]) for i, r in enumerate(epochs)]
if len(got) != len(want) or any(a[0] != b[0] or not math.isclose(a[1], b[1], rel_tol=1e-6) for a, b in zip(got, want)):
    sys.exit(f"FAIL: TensorBoard {version} reads validation/epoch_accuracy as {got}, metrics.jsonl says {want}")
losses = scalars("train", "batch_loss")
if [s for s, _ in losses] != [r["global_step"] for r in steps]:
    sys.exit(f"FAIL: TensorBoard {version} reads {len(losses)} batch_loss steps, metrics.jsonl has {len(steps)}")
print(f"PASS: TensorBoard {version} reads train/ and validation/: {len(losses)} batch losses and "
      f"{len(got)} validation accuracies, as recorded")
PY
  # A sweep in TensorBoard's HParams dashboard: each run with its settings and final metrics.
  "$bin" sweep --preset spirals-mlp --grid lr=0.01,0.1 --grid batch=32,64 --epochs 2 --run-dir "$tmp/sweep" \
    >"$tmp/sweep.log" 2>&1 || { cat "$tmp/sweep.log"; exit 1; }
  "$venv_py" "$here/../tools/check_tensorboard_hparams.py" "$tmp/sweep"
else
  echo "SKIP TensorBoard itself: no project venv with tensorboard at $venv_py (make it: scripts/setup-python.sh keras)"
fi
