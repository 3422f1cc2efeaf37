#!/usr/bin/env bash
# One writer per run (core/include/mirror/runs/run_lock.h), as users race it: 8 resumes of one
# run started at once, 10 times over. Every time exactly one trains, the others end at once with
# exit 1 naming the process that holds the run (or, arriving after it ended, find nothing left to
# train), and metrics.jsonl and timeline.jsonl parse line by line with every step once, in order.
# (Before the lock, 2 to 4 of 8 trained together: 68-94 unparsable lines, ~1,800 duplicated steps.)
# Then kill -9 of a writer mid-run: the next resume starts at once.
# Usage: test_one_writer.sh path/to/mirrortrain
source "$(dirname "$0")/harness.sh" "$@"
cd "$tmp"

# A run whose steps take a while (a simulated link of 20 ms), so that resumes started together overlap.
run=$tmp/run
"$bin" train --preset spirals-mlp --link latency=20ms --max-steps 4 --run-dir "$run" >/dev/null 2>&1 ||
  { echo "FAIL the first run did not train"; exit 1; }

# Every step line parses, and global steps go 1, 2, ... each once (a resume continues after the
# checkpoint it stopped at, so nothing is trained twice).
check_records() {
  python3 - "$run" "$1" <<'PY'
import json, sys
run, last = sys.argv[1], int(sys.argv[2])
for name, key in (("metrics.jsonl", "global_step"), ("timeline.jsonl", "step")):
    steps = []
    for number, line in enumerate(open(f"{run}/{name}"), 1):
        if not line.strip():
            continue
        try:
            j = json.loads(line)
        except ValueError:
            sys.exit(f"{name} line {number} does not parse: {line[:80]!r}")
        if name == "metrics.jsonl" and j.get("type") != "step":
            continue
        steps.append(j[key])
    if steps != list(range(steps[0], last + 1)) or (name == "metrics.jsonl" and steps[0] != 1):
        sys.exit(f"{name}: steps {steps[:3]}...{steps[-3:]} ({len(steps)}), not each step once up to {last}")
PY
}

target=4
for round in $(seq 10); do
  target=$((target + 20))
  for i in $(seq 8); do
    ("$bin" train --resume "$run" --max-steps "$target" >"out.$i" 2>&1; echo $? >"rc.$i") &
  done
  wait
  trained=0 refused=0 late=0 other=""
  for i in $(seq 8); do
    rc=$(cat "rc.$i")
    if [[ $rc == 0 ]] && grep -q "^Finished: [1-9][0-9]* steps this session" "out.$i"; then
      trained=$((trained + 1))
    elif [[ $rc == 0 ]] && grep -q "^Finished: 0 steps this session" "out.$i"; then
      late=$((late + 1))
    elif [[ $rc == 1 ]] && grep -q "is being written by process [0-9]* on host" "out.$i"; then
      refused=$((refused + 1))
    else
      other="$other [rc $rc: $(tail -n 1 "out.$i")]"
    fi
  done
  if [[ $trained == 1 && -z $other ]] && problem=$(check_records "$target" 2>&1); then
    pass
  else
    fail "round $round: $trained trained, $refused refused, $late late$other ${problem:-}"
  fi
done
echo "8 resumes at once, 10 rounds: $passed rounds with exactly one writer and intact records"

# kill -9 of the writer: the kernel drops its lock, and the next resume starts at once.
"$bin" train --resume "$run" --max-steps 100000 >killed.out 2>&1 &
writer=$!
for _ in $(seq 100); do grep -q "is being written" <("$bin" train --resume "$run" --max-steps 1 2>&1) && break; sleep 0.1; done
kill -9 "$writer"
wait "$writer" 2>/dev/null
start=$(date +%s.%N)
if "$bin" train --resume "$run" --max-steps $((target + 20)) >after.out 2>&1 &&
   grep -q "to step $((target + 20))" after.out; then
  pass
  echo "after kill -9 the next resume started in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s (training included)"
else
  fail "a resume after kill -9 of the writer: $(tail -n 2 after.out)"
fi
finish test_one_writer
