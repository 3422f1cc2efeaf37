#!/usr/bin/env bash
# Names mirrortrain did not write (a model's name in a downloaded model file, a run's name and
# status in run.json) become a folder inside the runs root, a terminal line without control
# characters, and CSV fields a spreadsheet reads back as they were.
# Usage: test_untrusted_names.sh path/to/mirrortrain
source "$(dirname "$0")/harness.sh" "$@"
check() {  # check NAME CONDITION-STATUS [DETAIL]
  if [[ $2 -eq 0 ]]; then pass; else fail "$(printf '%s\n%s' "$1" "${3:-}")"; fi
}
esc=$'\e'

# A model named to climb out of the runs root: <root>/<time>-../../../escaped/x is $tmp/escaped/x
# (the folder "<time>-.." is made on the way). Ours and Keras' model files both.
printf '{"name": "../../../escaped/x", "layers": [{"type": "Dense", "units": 8, "activation": "relu"}, {"type": "Dense", "units": "classes"}]}' \
  >"$tmp/ours.json"
cat >"$tmp/keras.json" <<'EOF'
{"class_name": "Sequential", "config": {"name": "../../../escaped/keras", "layers": [
  {"class_name": "Dense", "config": {"name": "d", "units": 8, "activation": "relu", "batch_input_shape": [null, 2]}},
  {"class_name": "Dense", "config": {"name": "out", "units": 3, "activation": "softmax"}}]}}
EOF
for model in ours keras; do
  out=$("$bin" train --model-file "$tmp/$model.json" --dataset blobs --epochs 1 --max-steps 2 2>&1)
  rc=$?
  check "train-$model" $rc "$out"
  dir=$(sed -n 's/^Recording to //p' <<<"$out")
  [[ $(dirname "$dir") == "$tmp/runs" && -f "$dir/run.json" ]]
  check "run-dir-inside-root-$model" $? "recorded in '$dir'"
done
[[ ! -e "$tmp/escaped" && $(find "$tmp" -name run.json | xargs -n1 dirname | xargs -n1 dirname | sort -u) == "$tmp/runs" ]]
check "nothing-outside-root" $? "$(find "$tmp" -name run.json)"
ls "$tmp/runs" | grep -qE '^[0-9]{8}-[0-9]{6}-escaped-x$' && ls "$tmp/runs" | grep -qE '^[0-9]{8}-[0-9]{6}-escaped-keras$'
check "folder-named-by-slug" $? "$(ls "$tmp/runs")"

# Training a model whose name holds terminal escapes prints them as text.
printf '{"name": "m\\u001b]0;owned\\u0007\\u001b[2Jx", "layers": [{"type": "Dense", "units": "classes"}]}' >"$tmp/ansi.json"
out=$("$bin" train --model-file "$tmp/ansi.json" --dataset blobs --epochs 1 --max-steps 2 2>&1)
check "train-ansi" $? "$out"
! grep -q "$esc" <<<"$out" && grep -qF 'Training m\x1b]0;owned\x07\x1b[2Jx on' <<<"$out"
check "train-no-control-characters" $? "$(cat -v <<<"$out")"

# A run whose name, model and status hold terminal escapes, CSV separators and a formula.
run=$(ls -d "$tmp"/runs/*-m*)  # the run of the model named with escapes
python3 - "$run" <<'EOF'
import json, sys
run = sys.argv[1]
with open(run + "/run.json") as f:
    j = json.load(f)
j["status"] = "fin,ished\r"
j["config"]["model"]["name"] = "model\x1b]0;owned\x07\x1b[2J\u202eevil"
with open(run + "/run.json", "w") as f:
    json.dump(j, f)
with open(run + "/meta.json", "w") as f:
    json.dump({"name": "=HYPERLINK(\"http://x\",\"a, \"\"b\"\"\")", "tags": []}, f)
EOF
out=$("$bin" runs list 2>&1)
check "list-table" $?
if grep -q "$esc" <<<"$out" || grep -q $'\r' <<<"$out" || grep -q $'\u202e' <<<"$out"; then
  check "list-no-control-characters" 1 "$(cat -v <<<"$out")"
else
  grep -qF 'model\x1b]0;owned\x07\x1b[2J\u202eevil' <<<"$out"
  check "list-shows-escapes" $? "$out"
fi
out=$("$bin" runs show "$run" 2>&1)
! grep -q "$esc" <<<"$out" && grep -qF 'fin,ished\r' <<<"$out"
check "show-no-control-characters" $? "$(cat -v <<<"$out")"

"$bin" runs --csv list >"$tmp/runs.csv" 2>&1
check "list-csv" $?
python3 - "$tmp/runs.csv" <<'EOF'
import csv, sys
with open(sys.argv[1], newline="") as f:
    rows = list(csv.reader(f))
assert rows[0][:5] == ["name", "dataset", "model", "replicas", "status"], rows[0]
row = next(r for r in rows[1:] if "HYPERLINK" in r[0])
assert len(row) == len(rows[0]), row
assert row[0] == "'=HYPERLINK(\"http://x\",\"a, \"\"b\"\"\")", row[0]  # shown as text, not run
assert row[2] == "model\x1b]0;owned\x07\x1b[2J\u202eevil", row[2]      # data, exact
assert row[4] == "fin,ished\r", row[4]                                   # the status quoted too
EOF
check "list-csv-fields" $? "$(cat -v "$tmp/runs.csv")"

# The same CSV on a terminal (script(1) gives it one): exact data would drive the terminal there,
# so the control characters are shown as escapes, still one quoted field each.
if command -v script >/dev/null; then
  out=$(script -qec "$(printf '%q ' "$bin" runs --csv list)" /dev/null 2>&1)
  ! grep -q "$esc" <<<"$out" && grep -qF 'model\x1b]0;owned\x07\x1b[2J\u202eevil' <<<"$out"
  check "list-csv-on-a-terminal" $? "$(cat -v <<<"$out")"
fi

# Your own data: a CSV table whose labels are markup, a path, a line break with a command and
# terminal escapes. They are class names: `inspect` prints them with escapes shown as text, a run
# keeps them exactly in run.json, its folder is named from the preset, and nothing printed drives
# the terminal.
hostile_labels='["<b>bold</b>", "../../etc", "a\nb; rm -rf /", "\u001b]0;owned\u0007\u001b[2J"]'
python3 - "$tmp/hostile.csv" "$hostile_labels" <<'EOF'
import csv, json, math, sys
labels = json.loads(sys.argv[2])
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["x", "y", "label"])
    for i in range(160):
        k = i % len(labels)
        w.writerow([f"{math.cos(k * 1.6) + (i % 7) * 0.01:.3f}", f"{math.sin(k * 1.6) - (i % 5) * 0.01:.3f}", labels[k]])
EOF
out=$("$bin" inspect --dataset table --data-dir "$tmp/hostile.csv" 2>&1)
check "inspect-hostile-labels" $? "$out"
! grep -q "$esc" <<<"$out" && grep -qF '\x1b]0;owned\x07\x1b[2J' <<<"$out" && grep -qF 'a\nb; rm -rf /' <<<"$out" && grep -qF '<b>bold</b>' <<<"$out"
check "inspect-hostile-labels-shown-as-escapes" $? "$(cat -v <<<"$out")"
out=$("$bin" train --dataset table --data-dir "$tmp/hostile.csv" --preset spirals-mlp --epochs 1 2>&1)
check "train-hostile-labels" $? "$out"
! grep -q "$esc" <<<"$out"
check "train-hostile-labels-no-control-characters" $? "$(cat -v <<<"$out")"
dir=$(sed -n 's/^Recording to //p' <<<"$out")
[[ $(dirname "$dir") == "$tmp/runs" && -f "$dir/run.json" && ! -e "$tmp/etc" && ! -e "$tmp/runs/etc" ]]
check "hostile-labels-run-dir-inside-root" $? "recorded in '$dir'; $(ls "$tmp" "$tmp/runs")"
python3 - "$dir/run.json" "$hostile_labels" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    names = json.load(f)["class_names"]
assert sorted(names) == sorted(json.loads(sys.argv[2])), names
EOF
check "hostile-labels-kept-as-data" $? "$(head -c 2000 "$dir/run.json" 2>&1)"
out=$("$bin" runs show "$dir" 2>&1)
check "show-hostile-labels" $? "$out"
! grep -q "$esc" <<<"$out"
check "show-hostile-labels-no-control-characters" $? "$(cat -v <<<"$out")"
# A path asked to write to that does not exist: named in one line, its newline and escape shown.
out=$("$bin" inspect --dataset synthetic-text --write-keras-npz "$tmp/no"$'\n'"mirrortrain: done$esc[2J/r.npz" 2>&1)
[[ $? -eq 2 && $(wc -l <<<"$out") -eq 1 ]] && ! grep -q "$esc" <<<"$out" && grep -qF 'no\nmirrortrain: done\x1b[2J' <<<"$out"
check "write-keras-npz-hostile-path-one-line" $? "$(cat -v <<<"$out")"

finish "untrusted names"
