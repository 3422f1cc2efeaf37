#!/usr/bin/env bash
# Faults a user meets, met through mirrortrain as a user runs it: SIGTERM and Ctrl+C in the middle
# of a run, a newest checkpoint cut short, and a disk that fills up while a run is recorded. Each
# must stop the run with the right exit code and a message saying what happened, lose nothing
# written before, and resume to the same numbers as a run that was never interrupted.
# Usage: test_faults.sh path/to/mirrortrain
source "$(dirname "$0")/harness.sh" "$@"
small="$tmp/small"
before_cleanup() { mountpoint -q "$small" 2>/dev/null && umount "$small"; }

final_norm() { python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["final"]["param_l2_norm"]))' "$1/run.json"; }
run_field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r.get(sys.argv[2], ""))' "$1/run.json" "$2"; }
# Waits (up to 120 s: a sanitizer build on two busy cores is slow to start) until run $1 has at least $2 checkpoints and $3 steps on disk.
wait_for() {
  for _ in $(seq 1 2400); do
    local ckpts steps
    ckpts=$(find "$1/checkpoints" -name 'ckpt-*.pt' 2>/dev/null | wc -l)
    steps=$(grep -c '"type":"step"' "$1/metrics.jsonl" 2>/dev/null)
    [[ $ckpts -ge $2 && ${steps:-0} -ge $3 ]] && return 0
    sleep 0.05
  done
  return 1
}

# Deterministic, so that a resumed run must end bit for bit where an uninterrupted one does.
flags=(--preset seed-reuters --dataset synthetic-text --train-size 2000 --val-size 200 --epochs 3
       --logical 2 --batch-size 32 --deterministic --sync-every 10 --checkpoint-every 10)
"$bin" train "${flags[@]}" --run-dir "$tmp/whole" >/dev/null 2>&1
whole=$(final_norm "$tmp/whole")

# SIGTERM (a scheduler ending a job) and SIGINT (Ctrl+C): stop after the step in progress, with a
# checkpoint, status "stopped", exit 128 + the signal. Then resume: SIGINT's run as it is; SIGTERM's
# with its newest checkpoint cut in half, which resuming must pass over for the one before it.
for sig in TERM INT; do
  run="$tmp/sig-$sig"
  "$bin" train "${flags[@]}" --run-dir "$run" >"$run.log" 2>&1 &
  pid=$!
  wait_for "$run" 2 25 || fail "$sig: the run never reached 2 checkpoints"
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$([[ $sig == TERM ]] && echo 143 || echo 130)
  steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["final"]["steps"])' "$run/run.json" 2>/dev/null)
  if [[ $rc -eq $want && $(run_field "$run" status) == stopped && -n $steps && -e "$run/checkpoints/ckpt-$steps.pt" ]]; then
    pass
  else
    fail "SIG$sig: exit $rc (wanted $want), status '$(run_field "$run" status)', steps '$steps'"; tail -3 "$run.log"
  fi
  [[ -n $steps ]] || continue
  if [[ $sig == TERM ]]; then
    newest="$run/checkpoints/ckpt-$steps.pt"
    truncate -s $(($(stat -c %s "$newest") / 2)) "$newest"
    out=$("$bin" train --resume "$run" 2>&1)
    rc=$?
    if [[ $rc -eq 0 ]] && grep -q "warning: passed over a damaged checkpoint: $newest" <<<"$out" &&
       grep -qE "^Resuming .* from step [0-9]+ \(.*ckpt-[0-9]+\.pt\)" <<<"$out" && [[ -e "$newest.unreadable" ]]; then
      pass
    else
      fail "resume past a damaged checkpoint: exit $rc"; printf '%s\n' "$out" | head -5
    fi
  else
    "$bin" train --resume "$run" >"$run.resume.log" 2>&1 || fail "resume after SIGINT: exit $?"
  fi
  resumed=$(final_norm "$run")
  if [[ -n $whole && $(python3 -c "print(repr(float('$whole')))") == "$resumed" ]]; then
    pass
  else
    fail "SIG$sig then resume ends at L2 norm $resumed, the uninterrupted run at $whole"
  fi
done

# A full disk while a run is recorded: an 8 MiB tmpfs (room for the resumed run's checkpoints,
# metrics and timeline.jsonl, ~0.2 KB a step), filled once the first checkpoint is written.
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP disk-full: mounting a small tmpfs needs root (CI runs as root)"
elif ! mkdir -p "$small" || ! mount -t tmpfs -o size=8m tmpfs "$small" 2>/dev/null; then
  echo "SKIP disk-full: this system lets no one mount a tmpfs here (a container without CAP_SYS_ADMIN)"
else
  run="$small/run"
  "$bin" train --preset spirals-mlp --train-size 20000 --batch-size 16 --epochs 3 --checkpoint-every 50 \
    --run-dir "$run" >"$tmp/full.log" 2>&1 &
  pid=$!
  wait_for "$run" 1 60 || fail "disk-full: the run never wrote a checkpoint"
  dd if=/dev/zero of="$small/filler" bs=64k 2>/dev/null  # until the disk is full
  wait "$pid"
  rc=$?
  if [[ $rc -eq 1 ]] && grep -qE "run failed: cannot write .*$small/run.*the disk holding $small.* is full: [0-9]+ KiB free" "$tmp/full.log"; then
    pass
  else
    fail "disk-full: exit $rc (wanted 1)"; tail -3 "$tmp/full.log"
  fi
  # What was written before stays readable: run.json, the metrics, the last checkpoint.
  if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$run/run.json" &&
     "$bin" runs show "$run" >"$tmp/show.log" 2>&1 && grep -qE '^steps recorded: [1-9]' "$tmp/show.log"; then
    pass
  else
    fail "disk-full: the record is no longer readable"; tail -3 "$tmp/show.log"
  fi
  rm -f "$small/filler"
  if "$bin" train --resume "$run" >"$tmp/full-resume.log" 2>&1 && [[ $(run_field "$run" status) == finished ]]; then
    pass
  else
    fail "disk-full: resuming once there is room: exit $?"; tail -3 "$tmp/full-resume.log"
  fi
fi

# The run folder deleted while the run trains: the run stops saying so (exit 1), and neither the
# metrics nor the next checkpoint bring the folder back as an empty twin.
gone="$tmp/gone-run"
"$bin" train --preset spirals-mlp --train-size 20000 --batch-size 16 --epochs 3 --checkpoint-every 50 \
  --run-dir "$gone" >"$tmp/gone.log" 2>&1 &
pid=$!
wait_for "$gone" 1 60 || fail "deleted-folder: the run never wrote a checkpoint"
# A checkpoint written while rm walks the folder can make rm's first pass fail: rm again.
for _ in 1 2 3; do rm -rf "$gone" 2>/dev/null && break; done
wait "$pid"
rc=$?
if [[ $rc -eq 1 ]] && grep -qE "(the run folder $gone|$gone/metrics.jsonl) was deleted" "$tmp/gone.log" && [[ ! -e $gone ]]; then
  pass
else
  fail "deleted-folder: exit $rc (wanted 1), folder there again: $([[ -e $gone ]] && echo yes || echo no)"
  tail -3 "$tmp/gone.log"
fi

# No HOME and no home in the password database: runs never go to a folder every user shares
# (they went to /tmp/.local/...); the command says what to set. Needs root, to be a user without one.
nobody_uid=54321
abs_bin=$(readlink -f "$bin")
if [[ $(id -u) -ne 0 ]] || ! command -v setpriv >/dev/null || getent passwd "$nobody_uid" >/dev/null; then
  echo "faults: skipped no-home (needs root, setpriv and uid $nobody_uid without a passwd entry)"
elif ! setpriv --reuid="$nobody_uid" --regid="$nobody_uid" --clear-groups test -x "$abs_bin"; then
  echo "faults: skipped no-home (uid $nobody_uid cannot run $bin from here)"
else
  shared=/tmp/.local/share/mirror-workbench/runs
  before=$(ls "$shared" 2>/dev/null | wc -l)
  out=$(cd / && env -u HOME -u XDG_DATA_HOME -u MIRROR_RUNS_DIR setpriv --reuid="$nobody_uid" --regid="$nobody_uid" \
        --clear-groups "$abs_bin" train --preset spirals-mlp --dataset blobs --epochs 1 2>&1)
  rc=$?
  if [[ $rc -eq 2 ]] && grep -q "HOME is not set and user $nobody_uid has no home folder" <<<"$out" &&
     [[ $(ls "$shared" 2>/dev/null | wc -l) -eq $before ]]; then
    pass
  else
    fail "no-home: exit $rc (wanted 2): $out"
  fi
  # Listing runs and lessons says the same, where it once aborted on the uncaught error.
  for cmd in "runs list" "lesson"; do
    # shellcheck disable=SC2086
    out=$(cd / && env -u HOME -u XDG_DATA_HOME -u MIRROR_RUNS_DIR -u MIRROR_LESSONS_DIR setpriv --reuid="$nobody_uid" \
          --regid="$nobody_uid" --clear-groups "$abs_bin" $cmd 2>&1)
    rc=$?
    if [[ $rc -eq 2 ]] && grep -q "^mirrortrain: error: HOME is not set" <<<"$out"; then pass; else fail "no-home $cmd: exit $rc: $out"; fi
  done
fi

finish faults
