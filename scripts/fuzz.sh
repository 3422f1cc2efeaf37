#!/usr/bin/env bash
# Builds the fuzz targets (tests/fuzz: clang's libFuzzer with AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer) and runs each for SECONDS (default 20), starting from seeds made
# from the project's own test fixtures. Fails on any crash, sanitizer report, leak, timeout
# (10 s for one input) or input that needs more than 2 GiB. What a failure leaves is in
# build-fuzz/artifacts/, to rerun as: build-fuzz/fuzz_TARGET build-fuzz/artifacts/FILE
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   targets: npy pickle model_json keras_zip reuters_sgml table_csv text_vectorization image npz idx tensorboard run_reader checkpoint json config lesson
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
targets=("$@")
all=(npy pickle model_json keras_zip reuters_sgml table_csv text_vectorization image npz idx tensorboard run_reader checkpoint json config lesson)
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
build=build-fuzz

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found; scripts/setup.sh installs it" >&2
  exit 1
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S tests/fuzz -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" -- --no-print-directory >/dev/null

# Seeds: tests/fuzz/corpus (written here) and our own test fixtures, never third-party data. Each
# target's corpus grows in build-fuzz.
corpus=$build/corpus
python3 - "$corpus" "${all[@]}" <<'PY'
import glob, gzip, os, struct, sys, zipfile
out = sys.argv[1]
for t in sys.argv[2:]:
    os.makedirs(os.path.join(out, t), exist_ok=True)
def put(target, name, data):
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)
for npz in glob.glob("tests/fixtures/keras/*.npz") + glob.glob("tests/fixtures/keras/bad/*.npz"):
    put("npz", os.path.basename(npz), open(npz, "rb").read())
    try:
        with zipfile.ZipFile(npz) as z:
            for member in z.namelist():
                data = z.read(member)
                base = os.path.basename(npz) + "-" + member
                put("npy", base, data)
                # An object array's data is a pickle after the header: the unpickler's seed.
                if data.startswith(b"\x93NUMPY") and len(data) > 10:
                    header_len = data[8] | data[9] << 8 if data[6] == 1 else int.from_bytes(data[8:12], "little")
                    start = (10 if data[6] == 1 else 12) + header_len
                    if data[start:start + 1] == b"\x80":
                        put("pickle", base + ".pkl", data[start:])
    except zipfile.BadZipFile:
        pass
for target in os.listdir("tests/fuzz/corpus"):  # hand-written seeds, one folder per target
    for seed in glob.glob(os.path.join("tests/fuzz/corpus", target, "*")):
        put(target, os.path.basename(seed), open(seed, "rb").read())
for model in glob.glob("resources/models/*.json"):
    put("model_json", os.path.basename(model), open(model, "rb").read())
# .keras files: Keras' own model JSON as config.json, stored and deflated, beside the other members.
import io
for i, keras_json in enumerate(sorted(glob.glob("tests/fixtures/keras_models/*.json"))[:3]):
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as z:
            z.writestr("metadata.json", '{"keras_version": "3.15.1"}')
            z.writestr("config.json", open(keras_json, "rb").read())
            z.writestr("model.weights.h5", b"\x89HDF\r\n\x1a\n")
        put("keras_zip", f"{i}-{method}.keras", buf.getvalue())
# JSON: the first byte picks the reader (fuzz_json.cpp), the rest is a model file, run.json,
# meta.json, metrics.jsonl, evaluations.jsonl, config or lesson; nested at, past and far past
# the 256-level limit, as arrays, objects and inside a real document.
real = [open(m, "rb").read() for m in sorted(glob.glob("tests/fuzz/corpus/model_json/*"))[:2]]
real.append(b'{"status": "finished", "config": {"seed": 1}}')
for reader in range(7):
    for depth in (8, 256, 257, 20000):  # 20,000 objects: the 120 KB that crashed
        put("json", f"{reader}-array-{depth}", bytes([reader]) + b"[" * depth + b"]" * depth)
        put("json", f"{reader}-object-{depth}", bytes([reader]) + b'{"a":' * depth + b"1" + b"}" * depth)
    for i, doc in enumerate(real):
        put("json", f"{reader}-real-{i}", bytes([reader]) + doc)
# Lessons: the built-in ones. Configs (fuzz_config.cpp): an even first byte reads a config file
# (tests/fuzz/corpus/config holds one as a run records it), an odd one settings by name over a
# preset: each lesson run's "set" and sweep axes as people type them.
import json
for lesson in glob.glob("resources/lessons/*.json"):
    text = open(lesson, "rb").read()
    put("lesson", os.path.basename(lesson), text)
    for i, run in enumerate(json.loads(text).get("runs", [])):
        put("config", f"set-{os.path.basename(lesson)}-{i}", bytes([1 + 2 * i]) + json.dumps(run.get("set", {})).encode())
for i, axis in enumerate(("lr=0.01,0.1", "batch=32 64", "logical=1,2,4", "optimizer=adam,sgd", "link=10gbe",
                          "optimizer.beta1=0.5", "dataset.noise=0.1", "lr_schedule.name=cosine")):
    put("config", f"axis-{i}", bytes([2 * i + 1]) + axis.encode())
for sgm in glob.glob("tests/fixtures/reuters_sgml/*.sgm"):
    put("reuters_sgml", os.path.basename(sgm), open(sgm, "rb").read())
# IDX: images (N, rows, cols) and labels (N), plain and gzip-compressed.
def idx(dims):
    n = 1
    for d in dims:
        n *= d
    return bytes([0, 0, 8, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + bytes(i % 251 for i in range(n))
for name, dims in (("images", (3, 4, 4)), ("labels", (5,)), ("empty", (0, 28, 28)), ("cube", (2, 2, 2, 2))):
    put("idx", name, idx(dims))
    put("idx", name + ".gz", gzip.compress(idx(dims), mtime=0))
PY

mkdir -p "$build/artifacts"
# One libFuzzer process is one thread: the targets run as many at a time as there are cores, so
# CI's two cores fuzz for SECONDS per target in half the wall time. Reported in order.
fuzz_one() {
  local t=$1 dict=() rc=0
  [[ -f tests/fuzz/$t.dict ]] && dict=(-dict="tests/fuzz/$t.dict")
  "$build/fuzz_$t" "$corpus/$t" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" >"$build/fuzz_$t.log" 2>&1 || rc=$?
  echo "$rc" >"$build/fuzz_$t.rc"
}
jobs_max=$(nproc)
for t in "${targets[@]}"; do
  rm -f "$build/fuzz_$t.rc"
  while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
  fuzz_one "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
  log=$build/fuzz_$t.log
  if [[ $(cat "$build/fuzz_$t.rc" 2>/dev/null) == 0 ]]; then
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
    units=$(find "$corpus/$t" -type f | wc -l)
    echo "fuzz.sh: $t: $runs inputs in ${seconds} s, nothing found (corpus: $units inputs)"
  else
    status=1
    echo "fuzz.sh: $t FAILED; the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
  fi
done
exit $status
