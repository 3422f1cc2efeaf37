#!/usr/bin/env bash
# Runs mirrortrain as a user would and checks exit codes and output.
# Usage: test_cli.sh path/to/mirrortrain
source "$(dirname "$0")/harness.sh" "$@"

# Keras' files are not on this machine, and tests never touch the network.
export KERAS_HOME="$tmp/keras" MIRROR_KERAS_ORIGIN="file://$tmp/no-such-origin/"
expect summary-seed-reuters 0 'Total params: 332,856' -- "$bin" summary --preset seed-reuters --dataset synthetic-text
expect reuters-missing 2 'reuters.npz not found.*put the file in' -- "$bin" summary --preset seed-reuters
mkdir -p "$tmp/keras-data" && cp "$(dirname "$0")/../fixtures/keras/reuters_small.npz" "$tmp/keras-data/reuters.npz"
cp "$(dirname "$0")/../fixtures/keras/reuters_small_word_index.json" "$tmp/keras-data/reuters_word_index.json"
expect reuters-npz 0 'dense \(Dense\) +\(None, 46\)' -- "$bin" summary --preset seed-reuters --data-dir "$tmp/keras-data"
expect reuters-inspect 0 'example 0 label [0-9]+ [a-z-]+: <start> ' -- "$bin" inspect --dataset reuters --data-dir "$tmp/keras-data"
expect reuters-as-published 0 'Finished' -- \
  "$bin" train --preset seed-reuters-as-published --data-dir "$tmp/keras-data" --epochs 1
expect reuters-sgml 0 'val_accuracy' -- "$bin" train --preset reuters-mlp --data-dir "$(dirname "$0")/../fixtures/reuters_sgml" \
  --min-wires-per-topic 3 --epochs 1 --batch-size 4
# What --write-keras-npz cannot write is the only thing said (not after the dataset's summary).
only_line() { out=$("$@" 2>&1); rc=$?; [[ $(wc -l <<<"$out") -eq 1 ]] && printf '%s\n' "$out"; return $rc; }
expect npz-missing-folder 2 '^mirrortrain: error: --write-keras-npz .*/no/such/r\.npz: the folder .*/no/such does not exist; create it' -- \
  only_line "$bin" inspect --dataset synthetic-text --write-keras-npz "$tmp/no/such/r.npz"
expect npz-not-text 2 '^mirrortrain: error: --write-keras-npz: spirals is not a text dataset' -- \
  only_line "$bin" inspect --dataset spirals --write-keras-npz "$tmp/r.npz"
expect presets 0 'fashion-cnn' -- "$bin" presets
version=$(sed -nE 's/^project\(MirrorWorkbench VERSION ([0-9.]+).*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
expect version 0 "^mirrortrain ${version//./\\.}\$" -- "$bin" --version
expect help-all 0 'train.*--nproc' -- bash -c '"$0" --help-all | tr "\n" " "' "$bin"
expect devices 0 'cpu:0' -- "$bin" devices
# Every backend the code knows is listed, also one this build lacks, with what it would need.
expect devices-every-backend 0 '  nccl +NVIDIA NCCL .*  +(not in this build: needs (a CUDA LibTorch|NCCL)|cpu: not available: needs GPU replicas)' -- \
  bash -c '"$0" devices | tr "\n" " "' "$bin"
# What the build has for GPUs, as configured (MIRROR_EXPECT_CUDA from CMake): a CUDA build on a
# machine without a GPU says "built, no GPU visible"; Debian's CPU LibTorch says what it lacks.
case ${MIRROR_EXPECT_CUDA:-} in
  ON)
    gpu_here='built(, no GPU visible \([^)]+\))?;'
    expect devices-built-cuda 0 "  CUDA +$gpu_here LibTorch [0-9.]+[^ ]* with CUDA [0-9]+\.[0-9]+" -- "$bin" devices
    expect devices-built-nccl 0 "  nccl +$gpu_here NCCL [0-9]+\.[0-9]+\.[0-9]+" -- "$bin" devices
    expect devices-built-graphs 0 "  CUDA graphs +$gpu_here" -- "$bin" devices ;;
  OFF)
    expect devices-cuda-not-built 0 '  CUDA +not built: LibTorch [0-9.]+[^ ]* has no CUDA' -- "$bin" devices
    expect devices-nccl-not-built 0 '  nccl +not built: needs a CUDA LibTorch' -- "$bin" devices ;;
  *) echo "FAIL: MIRROR_EXPECT_CUDA is '${MIRROR_EXPECT_CUDA:-}', not ON or OFF (ctest sets it)"; failed=$((failed + 1)) ;;
esac
expect datasets 0 'synthetic-text' -- "$bin" datasets
expect train-spirals-json 0 '"type":"final".*"param_l2_norm"|"param_l2_norm".*"type":"final"' -- \
  "$bin" train --preset spirals-mlp --logical 3 --epochs 1 --max-steps 5 --json
expect train-json-evaluation 0 '"confusion":.*"type":"evaluation"' -- \
  "$bin" train --preset spirals-mlp --dataset blobs --epochs 1 --json
expect train-human 0 'val_accuracy' -- "$bin" train --preset spirals-mlp --dataset blobs --epochs 2
expect bad-logical 2 '^mirrortrain: error: --logical must be in \[1, 64\], got 0' -- \
  "$bin" train --preset spirals-mlp --logical 0
expect no-cuda 2 'available: cpu:0' -- "$bin" train --preset spirals-mlp --devices cuda
expect bad-lr 2 'invalid learning rate: -1' -- "$bin" train --preset spirals-mlp --lr -1
expect bad-batch 2 'invalid batch size: 0' -- "$bin" train --preset spirals-mlp --batch-size 0
expect bad-optimizer 2 'adagrad' -- "$bin" train --preset spirals-mlp --optimizer adagrad
expect unknown-flag 2 '^mirrortrain: error: .*--unknown-flag' -- "$bin" train --unknown-flag
expect bad-number 2 '^mirrortrain: error: .*epochs' -- "$bin" train --epochs many
# Usage and configuration errors are exactly one line.
if [[ $("$bin" train --unknown-flag 2>&1 | wc -l) -eq 1 && $("$bin" train --logical 0 2>&1 | wc -l) -eq 1 ]]; then
  pass
else
  fail "one-line errors"
fi
expect bad-dataset 2 "unknown dataset 'imagenet'" -- "$bin" train --dataset imagenet
expect missing-data 2 'no train-images-idx3-ubyte' -- "$bin" train --preset fashion-cnn --data-dir "$tmp"
printf '{"layers": [{"type": "Dense", "units": 3}' >"$tmp/broken.json"
expect broken-model-file 2 'not valid JSON' -- "$bin" summary --model-file "$tmp/broken.json" --dataset spirals
printf '{"layers": [{"type": "Dense", "units": 16, "activation": "relu"}, {"type": "Dense", "units": 5}]}' >"$tmp/m.json"
expect model-shape-error 2 '3 classes' -- "$bin" summary --model-file "$tmp/m.json" --dataset spirals
# A model whose copies cannot fit in memory is a configuration error naming the layer and the
# bytes (it used to fail inside LibTorch's allocator with exit 1).
printf '{"layers": [{"type": "Dense", "units": 1000000000000, "activation": "relu"}, {"type": "Dense", "units": "classes"}]}' >"$tmp/huge.json"
expect model-too-big 2 'needs at least [0-9.]+ TiB .*layer dense_1 \(Dense, 3000000000003 parameters\)' -- \
  "$bin" train --model-file "$tmp/huge.json" --dataset spirals --logical 2
# A purely linear model with a huge step size diverges within a few steps.
printf '{"layers": [{"type": "Dense", "units": 64}, {"type": "Dense", "units": 64}, {"type": "Dense", "units": "classes"}]}' >"$tmp/linear.json"
expect diverging-run 1 'loss became (NaN|infinite)' -- \
  "$bin" train --model-file "$tmp/linear.json" --dataset blobs --optimizer sgd --lr 100 --epochs 3
expect run-dir 0 'Finished' -- "$bin" train --preset spirals-mlp --epochs 1 --run-dir "$tmp/run1"
if grep -q '"status": "finished"' "$tmp/run1/run.json" && [[ $(grep -c '"type":"step"' "$tmp/run1/metrics.jsonl") -eq 32 ]]; then
  pass
else
  fail "run-dir contents"
fi
# The allocator the build linked in (MIRROR_TCMALLOC), as the run records it.
if [[ -n "${MIRROR_EXPECT_MALLOC:-}" ]]; then
  if grep -q "\"malloc\": \"$MIRROR_EXPECT_MALLOC\"" "$tmp/run1/run.json"; then
    pass
  else
    fail "malloc: run.json says $(grep -o '"malloc": "[a-z]*"' "$tmp/run1/run.json"), wanted $MIRROR_EXPECT_MALLOC"
  fi
fi
# What the CPU layers' matrix products ran on (MIRROR_WITH_DNNL), as the run records it.
if [[ -n "${MIRROR_EXPECT_CPU_GEMM:-}" ]]; then
  if grep -q "\"cpu_gemm\": \"$MIRROR_EXPECT_CPU_GEMM" "$tmp/run1/run.json"; then
    pass
  else
    fail "cpu_gemm: run.json says $(grep -o '"cpu_gemm": "[^"]*"' "$tmp/run1/run.json"), wanted $MIRROR_EXPECT_CPU_GEMM"
  fi
fi
expect run-dir-exists 2 'already holds a run' -- "$bin" train --preset spirals-mlp --epochs 1 --run-dir "$tmp/run1"
if compgen -G "$tmp/run1/train/events.out.tfevents.*" >/dev/null && compgen -G "$tmp/run1/validation/events.out.tfevents.*" >/dev/null &&
   compgen -G "$tmp/run1/checkpoints/ckpt-*.pt" >/dev/null; then
  pass
else
  fail "run-dir: no TensorBoard events in train/ and validation/, or no checkpoint"
fi
# Runs are recorded by default; list, show and compare them.
expect default-record 0 "Recording to $tmp/runs/" -- "$bin" train --preset spirals-mlp --epochs 2 --lr 0.02
expect runs-list 0 'spirals-mlp +3 finished +0\.[0-9]{4}' -- "$bin" runs list
expect runs-list-csv 0 '^name,dataset,model,replicas,status' -- "$bin" runs --csv list
expect runs-show 0 'epoch +step +loss' -- "$bin" runs show "$tmp/run1"
first=$(ls "$tmp/runs" | head -n 1)
expect runs-compare 0 'optimizer.learning_rate' -- "$bin" runs compare "$tmp/run1" "$first"
expect runs-compare-csv 0 '^run,.*optimizer.learning_rate' -- "$bin" runs --csv compare "$tmp/run1" "$first"
expect runs-show-missing 2 'no run here' -- "$bin" runs show "$tmp/nothing"

# Sweeps: one recorded run per combination, named and tagged, then compared.
expect sweep-grid 0 'lr=0.1 batch=64 +64 +0.1 +finished' -- \
  "$bin" sweep --preset spirals-mlp --epochs 1 --grid lr=0.01,0.1 --grid batch=32,64 --run-dir "$tmp/sweep"
if [[ $(ls "$tmp/sweep" | wc -l) -eq 4 ]] && grep -q '"of": 4' "$tmp/sweep"/*-sweep-4/run.json &&
   grep -q '"name": "lr=0.1 batch=64"' "$tmp/sweep"/*-sweep-4/meta.json; then
  pass
else
  fail "sweep: not 4 runs with their sweep position and names"
fi
# A dataset axis loads each dataset: 320 and 640 examples in batches of 32 are 10 and 20 steps.
expect sweep-dataset-axis 0 'dataset.train_size' -- \
  "$bin" sweep --preset spirals-mlp --dataset blobs --epochs 1 --batch-size 32 --grid dataset.train_size=320,640 --run-dir "$tmp/sweep-data"
if [[ $(grep -c '"type":"step"' "$tmp/sweep-data"/*-sweep-1/metrics.jsonl) -eq 10 &&
      $(grep -c '"type":"step"' "$tmp/sweep-data"/*-sweep-2/metrics.jsonl) -eq 20 ]]; then
  pass
else
  fail "sweep over dataset.train_size: runs did not train on their own datasets"
fi
expect sweep-bad-axis 2 "'learning' is not a setting a sweep can vary" -- "$bin" sweep --preset spirals-mlp --grid learning=0.1
expect sweep-bad-value 2 "Learning rate: 'fast' is not a number" -- "$bin" sweep --preset spirals-mlp --grid lr=0.1,fast
expect sweep-bad-combination 2 'run 2 of 2 \(batch=0\) cannot train' -- "$bin" sweep --preset spirals-mlp --grid batch=8,0
expect sweep-no-axis 2 'give --grid' -- "$bin" sweep --preset spirals-mlp
# Values separated by spaces, as typed: four runs (2 learning rates x 2 batch sizes).
expect sweep-grid-spaces 0 'Sweep sw-[0-9-]+: 4 runs' -- \
  "$bin" sweep --preset spirals-mlp --max-steps 2 --grid lr=0.01 0.1 --grid 'batch=16 32' --run-dir "$tmp/sweep-spaces"
# A grid with the scaling study: one study per learning rate, never medians across rates.
expect scaling-per-setting 0 'Scaling study for lr=0\.1:' -- \
  "$bin" sweep --preset spirals-mlp --grid lr=0.01,0.1 --scaling --scaling-devices 1,2 --tries 1 --max-steps 4 \
  --run-dir "$tmp/scaling-grid"
# The scaling study: tries interleaved, medians with the slowest and fastest try, always the load.
scaling_out=$("$bin" sweep --preset spirals-mlp --scaling --scaling-devices 1,2 --tries 2 --max-steps 8 \
  --run-dir "$tmp/scaling" 2>&1)
if grep -qE '^2 +2 +[0-9]+ +[0-9]+-[0-9]+ +[0-9]+% +[0-9.]+ +[0-9.]+-[0-9.]+ +1\.00 +[0-9]+%' <<<"$scaling_out" &&
   grep -qE '^Load average \(1 minute\): [0-9.]+ when the first run started, at most [0-9.]+ during the study, on [0-9]+ cores?\.' <<<"$scaling_out" &&
   grep -qE '^Baseline: 1 replica with [0-9]+ threads? on [0-9]+ cores?, median of 2 tries\.' <<<"$scaling_out" &&
   grep -qE '^\[4/4\] logical=2 try 2/2' <<<"$scaling_out"; then
  pass
else
  failed=$((failed + 1)); printf 'FAIL scaling-study, output:\n%s\n' "$scaling_out"
fi

# A run still being written can be read mid-epoch, and reads as running; Ctrl+C stops it cleanly.
live="$tmp/run-live"
"$bin" train --preset seed-reuters --dataset synthetic-text --train-size 20000 --val-size 200 --epochs 1 \
  --run-dir "$live" --json >/dev/null 2>&1 &
pid=$!
seen=""
for _ in $(seq 1 300); do
  out=$("$bin" runs show "$live" 2>/dev/null)
  if grep -q '(running)' <<<"$out" && grep -qE '^steps recorded: [1-9]' <<<"$out"; then seen=1; break; fi
  sleep 0.1
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
if [[ -n $seen ]]; then pass; else failed=$((failed + 1)); echo "FAIL live run: no steps visible while running"; fi
expect live-stopped 0 'run-live \(stopped\)' -- "$bin" runs show "$live"

# kill -9 in the middle of a recorded run, then open what it left and resume it: the result must
# equal an uninterrupted run's bit for bit (deterministic mode).
flags=(--preset seed-reuters --dataset synthetic-text --train-size 2000 --val-size 200 --epochs 3
       --logical 2 --batch-size 32 --deterministic --sync-every 10)
whole=$("$bin" train "${flags[@]}" --json | tail -n 1 | sed -E 's/.*"param_l2_norm":([^,}]+).*/\1/')
killed="$tmp/run-killed"
"$bin" train "${flags[@]}" --run-dir "$killed" --checkpoint-every 10 --json >/dev/null 2>&1 &
pid=$!
# Kill it once a checkpoint exists and a few steps past it are on disk (polled, with a deadline).
for _ in $(seq 1 600); do
  if compgen -G "$killed/checkpoints/ckpt-*.pt" >/dev/null &&
     [[ $(grep -c '"type":"step"' "$killed/metrics.jsonl" 2>/dev/null) -ge 13 ]]; then break; fi
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$killed/run.json" && grep -q '"type":"step"' "$killed/metrics.jsonl"; then
  pass
else
  fail "killed run: run.json or metrics.jsonl unreadable"
fi
expect killed-is-interrupted 0 'run-killed \(interrupted\).*' -- "$bin" runs show "$killed"
expect killed-says-resume 0 'is gone; continue it with .mirrortrain train --resume' -- "$bin" runs show "$killed"
expect resume-after-kill 0 'Resuming .* from step [1-9]' -- "$bin" train --resume "$killed"
resumed=$(python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["final"]["param_l2_norm"]))' "$killed/run.json")
if [[ -n $whole && $(python3 -c "print(repr(float('$whole')))") == "$resumed" ]]; then
  pass
else
  fail "resumed run ends at L2 norm $resumed, uninterrupted at $whole"
fi
expect resume-nothing 2 'no run here' -- "$bin" train --resume "$tmp/no-such-run"

# Lessons: listed, run in order with the text printed, a failure the lesson means reported as such.
expect lesson-list 0 'broken-sync +Broken sync \(2 runs\)' -- "$bin" lesson
expect lesson-unknown 2 "no lesson named 'nope' \(known: why-not-2x, global-batch, tutorials-bug, broken-sync" -- "$bin" lesson nope
expect lesson-broken-sync 0 '2\. replica 1 nudged once after step 25: failed, as the lesson means it to: replicas out of sync after step 30: replica 1 differs' -- \
  "$bin" lesson broken-sync --max-steps 40 --run-dir "$tmp/lesson-sync"
# Keras' Reuters is not here: the tutorial's-bug lesson says so and trains on synthetic text.
expect lesson-missing-reuters 0 'Note: reuters is not on this machine .*synthetic-text' -- \
  "$bin" lesson tutorials-bug --max-steps 3 --run-dir "$tmp/lesson-bug"
# What the global-batch lesson says: its first three runs (global batch 32 on 1, 2 and 4 replicas)
# follow one trajectory; the next (32 per replica) does not.
expect lesson-global-batch 0 'global 128, learning rate' -- \
  "$bin" lesson global-batch --max-steps 15 --run-dir "$tmp/lesson-batch"
if python3 - "$tmp/lesson-batch" <<'PY'
import glob, json, sys
runs = sorted(glob.glob(sys.argv[1] + "/*-sweep-*"), key=lambda d: int(d.rsplit("-", 1)[1]))
loss = [[json.loads(l)["loss"] for l in open(d + "/metrics.jsonl") if '"type":"step"' in l] for d in runs]
assert len(runs) == 6 and all(len(l) == 15 for l in loss), [len(l) for l in loss]
for other in loss[1:3]:
    assert all(abs(a - b) <= 1e-5 * abs(a) for a, b in zip(loss[0], other)), (loss[0], other)
assert max(abs(a - b) for a, b in zip(loss[0], loss[3])) > 1e-3, "per-replica batch should change the curve"
PY
then
  pass
else
  fail "lesson global-batch: same global batch on 1, 2, 4 replicas should match to 1e-5"
fi

# Crafted JSON: nested 100,000 deep (each reader crashed with a stack overflow), a directory
# named run.json (runs list aborted), numbers past their field (2^32 + 1 epochs trained one).
crafted="$tmp/crafted"
mkdir -p "$crafted/lessons" "$crafted/lessons/dir.json" "$crafted/runs/a-deep" "$crafted/runs/b-dir/run.json" "$crafted/runs/c-pid"
cp -r "$tmp/run1" "$crafted/runs/d-good"
python3 - "$crafted" "$tmp/run1/run.json" <<'PY'
import json, socket, sys
out, n = sys.argv[1], 100000
nest = '{"a":' * n + "1" + "}" * n
model = '{"layers": [{"type": "Dense", "units": ' + nest + "}]}"
open(out + "/model.json", "w").write(model)
open(out + "/config.json", "w").write('{"config": {"model": ' + model + "}}")
open(out + "/runs/a-deep/run.json", "w").write(nest)
open(out + "/lessons/deep.json", "w").write('{"title": "t", "text": ["p"], "runs": [{"label": "a", "preset": "spirals-mlp", "set": ' + nest + "}]}")
json.dump({"title": "Good", "text": ["p"], "runs": [{"label": "a", "preset": "spirals-mlp"}]}, open(out + "/lessons/good.json", "w"))
run = json.load(open(sys.argv[2]))
json.dump({"status": "running", "host": socket.gethostname(), "pid": 2**40}, open(out + "/runs/c-pid/run.json", "w"))
run["config"]["epochs"] = 2**32 + 1
json.dump(run, open(out + "/epochs.json", "w"))
PY
expect deep-model-file 2 'model.json is nested 100,00[0-9] levels deep; the limit is 256' -- \
  "$bin" summary --model-file "$crafted/model.json" --dataset spirals
expect deep-config 2 'config.json is nested 100,00[0-9] levels deep; the limit is 256' -- "$bin" train --config "$crafted/config.json"
expect config-epochs-range 2 "epochs.json: 'epochs' is 4294967297, out of range" -- "$bin" train --config "$crafted/epochs.json"
expect deep-lesson 0 'deep.json is nested 100,00[0-9] levels deep.*good +Good \(1 run' -- \
  bash -c 'MIRROR_LESSONS_DIR="$1/lessons" "$0" lesson 2>&1 | tr "\n" " "' "$bin" "$crafted"
expect lesson-directory 0 'dir.json is a directory, not a lesson' -- env MIRROR_LESSONS_DIR="$crafted/lessons" "$bin" lesson
crafted_runs=$(MIRROR_RUNS_DIR="$crafted/runs" "$bin" runs list 2>&1)
crafted_rc=$?
if [[ $crafted_rc -eq 0 ]] && grep -qE '^a-deep .* unreadable' <<<"$crafted_runs" && grep -qE '^b-dir .* unreadable' <<<"$crafted_runs" &&
   grep -qE '^c-pid .* interrupted' <<<"$crafted_runs" && grep -qE '^d-good .* finished' <<<"$crafted_runs" &&
   grep -q "a-deep/run.json is nested 100,000 levels deep; the limit is 256" <<<"$crafted_runs" &&
   grep -q "b-dir/run.json is a directory, not a run.json" <<<"$crafted_runs" &&
   grep -q "run.json's pid 1099511627776 is out of range" <<<"$crafted_runs"; then
  pass
else
  failed=$((failed + 1)); printf 'FAIL runs list with crafted runs: exit %s, output:\n%s\n' "$crafted_rc" "$crafted_runs"
fi

# --print-config: the config the flags train, as --config reads it back; nothing trains or is recorded.
expect print-config-flags 0 '"nesterov": true' -- "$bin" train --preset spirals-mlp --optimizer sgd --momentum 0.9 --nesterov --print-config
expect print-config-round-trip 0 '^same$' -- bash -c '"$0" train --preset spirals-mlp --lr 0.05 --seed 7 --print-config > "$1/printed.json" &&
  "$0" train --config "$1/printed.json" --print-config | cmp - "$1/printed.json" && echo same' "$bin" "$tmp"
expect print-config-trains-nothing 0 '^absent$' -- bash -c '"$0" train --preset spirals-mlp --run-dir "$1/printed-run" --print-config >/dev/null &&
  { [[ -e "$1/printed-run" ]] && echo present || echo absent; }' "$bin" "$tmp"
expect print-config-bad-flag 2 'invalid learning rate: 0' -- "$bin" train --preset spirals-mlp --lr 0 --print-config
# predict RUN RUN: a scaling study's runs (one global batch on 1 and 2 replicas) fitted together, strong scaling.
"$bin" train --preset spirals-mlp --logical 1 --max-steps 30 --run-dir "$tmp/study-1" >/dev/null 2>&1
"$bin" train --preset spirals-mlp --logical 2 --max-steps 30 --run-dir "$tmp/study-2" >/dev/null 2>&1
expect predict-study 0 'What-if for a study of 2 runs.*strong scaling' -- bash -c '"$0" predict "$1/study-1" "$1/study-2" | tr "\n" " "' "$bin" "$tmp"
expect predict-one-run 0 'weak scaling' -- "$bin" predict "$tmp/study-2"
# --precision mixed-bf16 (Keras' mixed_bfloat16): where the CPU has AVX512_BF16/AMX-BF16 it trains
# 2 replicas, records the precision and learns; elsewhere it is refused before anything trains,
# saying why. The bfloat16 numbers themselves: core's Precision tests.
bf16=(train --preset seed-reuters --dataset synthetic-text --train-size 1024 --val-size 256 --epochs 2
      --logical 2 --batch-size 64 --precision mixed-bf16 --run-dir "$tmp/run-bf16" --json)
if grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo; then
  if "$bin" "${bf16[@]}" >"$tmp/bf16.jsonl" 2>&1 && python3 - "$tmp/bf16.jsonl" "$tmp/run-bf16/run.json" <<'PY'
import json, math, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
epochs = [e for e in events if e["type"] == "epoch"]
run = json.load(open(sys.argv[2]))
assert run["config"]["precision"] == "mixed-bf16", run["config"].get("precision")
assert len(epochs) == 2 and all(math.isfinite(e["loss"]) for e in epochs), epochs
assert epochs[1]["loss"] < epochs[0]["loss"], [e["loss"] for e in epochs]
assert events[-1]["status"] == "finished", events[-1]
PY
  then pass; else fail "mixed-bf16 run"; tail -n 3 "$tmp/bf16.jsonl"; fi
else
  expect bf16-refused 2 'cannot train in mixed-bf16 on cpu:0.*neither AVX512_BF16 nor AMX-BF16' -- "$bin" "${bf16[@]}"
fi
expect bf16-unknown 2 'precision: fp16 not in \{float32,mixed-bf16\}' -- "$bin" train --preset spirals-mlp --precision fp16

finish cli
