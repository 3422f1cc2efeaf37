#!/usr/bin/env bash
# Steps exported as a Chrome trace (Perfetto, chrome://tracing): `train --trace` on a run of
# 2 processes x 2 replicas and on one process, `mirrortrain trace RUN` on the recorded run, and
# the errors a person can make. The files are read back with Python's json and checked the way a
# viewer reads them: kinds, pids and tids, names, steps, flows, counters, nesting, time order.
# Usage: test_trace.sh path/to/mirrortrain   (MIRROR_EXPECT_C10D=OFF: no worker processes here)
source "$(dirname "$0")/harness.sh" "$@"

# check TRACE FIRST LAST PROCESSES REPLICAS_PER_PROCESS: the trace holds exactly steps FIRST..LAST
# of that layout, as a viewer needs it. Prints its size per step.
check() {
  python3 - "$@" <<'PY'
import json, sys
from collections import Counter, defaultdict
path, first, last, procs, per = sys.argv[1], *map(int, sys.argv[2:6])
doc = json.load(open(path))
events = doc['traceEvents']
problems = []
def need(ok, what):
    if not ok: problems.append(what)
need(doc.get('displayTimeUnit') in ('ms', 'ns'), 'displayTimeUnit')
kinds = Counter(e['ph'] for e in events)
need(set(kinds) == {'X', 'M', 's', 'f', 'C'}, f'event kinds {dict(kinds)}')
steps = set(range(first, last + 1))
replicas = procs * per
# pids: one per process; tids: 0 (trainer) and one per replica of that process
tids = defaultdict(set)
for e in events:
    if e['ph'] == 'X': tids[e['pid']].add(e['tid'])
want = {p + 1: {0} | {r + 1 for r in range(p * per, (p + 1) * per)} for p in range(procs)}
need(dict(tids) == want, f'pids/tids {dict(tids)} want {want}')
# metadata names every process and thread
names = {(e['name'], e['pid'], e['tid']): e['args'].get('name') for e in events if e['ph'] == 'M'}
for p in range(procs):
    need(str(names.get(('process_name', p + 1, 0), '')).startswith(f'rank {p}'), f'process {p} name')
for r in range(replicas):
    n = names.get(('thread_name', r // per + 1, r + 1), '')
    need(str(n).startswith(f'replica {r} · '), f'replica {r} name {n!r}')
# spans: the phases, each with its step, only the steps asked for
xs = [e for e in events if e['ph'] == 'X']
need({e['args'].get('step') for e in xs} == steps, f"steps {sorted({e['args'].get('step') for e in xs})}")
span_names = Counter(e['name'] for e in xs)
phases = ['copy', 'forward', 'backward', 'all-reduce', 'all-reduce transfer', 'update']
if procs > 1: phases.append('cross-process exchange')
for name in phases: need(span_names[name] > 0, f'no {name} span')
for name in ['copy', 'forward', 'backward', 'update']:
    need(span_names[name] == replicas * len(steps), f'{span_names[name]} {name} spans')
need(all(e['dur'] >= 0 for e in xs), 'negative duration')
# flows: one per replica per step, each "s" on a replica's thread paired with an "f" on its trainer
s = {e['id']: e for e in events if e['ph'] == 's'}
f = {e['id']: e for e in events if e['ph'] == 'f'}
need(len(s) == replicas * len(steps) and set(s) == set(f), f'{len(s)} flow starts, {len(f)} ends')
for i in s:
    if i in f:
        need(s[i]['pid'] == f[i]['pid'] and s[i]['tid'] != 0 and f[i]['tid'] == 0 and f[i]['ts'] >= s[i]['ts'],
             f'flow {i}')
# counters: loss at every step
need(Counter(e['name'] for e in events if e['ph'] == 'C')['loss'] == len(steps), 'loss counters')
# per thread: time runs forward in file order, and slices nest (a viewer drops what overlaps)
by_thread = defaultdict(list)
for e in events:
    if e['ph'] != 'M': by_thread[(e['pid'], e['tid'])].append(e)
for key, evs in by_thread.items():
    need(all(a['ts'] <= b['ts'] for a, b in zip(evs, evs[1:])), f'time order on {key}')
    stack = []
    for e in (e for e in evs if e['ph'] == 'X'):
        while stack and stack[-1] <= e['ts'] + 5e-4: stack.pop()  # 0.5 ns: the file's float rounding
        end = e['ts'] + e['dur']
        if stack and end > stack[-1] + 5e-4:
            problems.append(f'{e["name"]} of step {e["args"]["step"]} on {key} overlaps its parent by {end - stack[-1]:.3f} us')
        stack.append(end)
size = len(open(path, 'rb').read())
print(f'{path}: {len(events)} events, {size} bytes, {size / len(steps):.0f} bytes per step ({procs}x{per})')
for p in problems[:10]: print('  ' + p)
sys.exit(1 if problems else 0)
PY
}

# expect_error CODE TEXT COMMAND...: exits with CODE and says TEXT on stderr.
expect_error() {
  local code=$1 text=$2
  shift 2
  "$@" >"$tmp/err.out" 2>"$tmp/err.log"
  local rc=$?
  if [[ $rc -eq $code ]] && grep -qF -- "$text" "$tmp/err.log"; then pass; else fail "$* -> $rc: $(cat "$tmp/err.log")"; fi
}

spirals=(--preset spirals-mlp --dataset spirals --batch-size 32 --epochs 1)

# Mistakes are refused before anything trains.
expect_error 2 "the first step (5) is after the last (2)" "$bin" train "${spirals[@]}" --no-record --trace "$tmp/t.json" --trace-steps 5-2
expect_error 2 "steps count from 1" "$bin" train "${spirals[@]}" --no-record --trace "$tmp/t.json" --trace-steps 0-3
expect_error 2 "invalid step range 'x'" "$bin" train "${spirals[@]}" --no-record --trace "$tmp/t.json" --trace-steps x
expect_error 2 "the folder $tmp/missing does not exist" "$bin" train "${spirals[@]}" --no-record --trace "$tmp/missing/t.json"
expect_error 2 "is a folder" "$bin" train "${spirals[@]}" --no-record --trace "$tmp"
# A pipe, a link to one, a link to nothing: refused before anything trains, and left as they were
# (the atomic write would rename a regular file over them; as root it did so to /dev/full).
mkfifo "$tmp/pipe" && ln -s "$tmp/pipe" "$tmp/to-pipe" && ln -s "$tmp/nothing" "$tmp/dangling"
expect_error 2 "$tmp/pipe: is a named pipe, not a file a trace can replace" "$bin" train "${spirals[@]}" --no-record --max-steps 3 --trace "$tmp/pipe"
expect_error 2 "links to a named pipe" "$bin" train "${spirals[@]}" --no-record --max-steps 3 --trace "$tmp/to-pipe"
expect_error 2 "is a link to nothing" "$bin" train "${spirals[@]}" --no-record --max-steps 3 --trace "$tmp/dangling"
if [[ -p $tmp/pipe && -L $tmp/to-pipe && -L $tmp/dangling && ! -e $tmp/nothing ]]; then pass; else fail "a refused --trace target was replaced"; fi

# One process, 2 replicas, the default range (steps 1-20) of a 25-step run.
if "$bin" train "${spirals[@]}" --logical 2 --max-steps 25 --run-dir "$tmp/one" --trace "$tmp/one.json" >"$tmp/one.log" 2>&1 &&
    grep -q "^Trace: $tmp/one.json (20 steps, [0-9]* bytes" "$tmp/one.log" && check "$tmp/one.json" 1 20 1 2; then pass; else fail "1x2 --trace"; tail -3 "$tmp/one.log"; fi

if [[ ${MIRROR_EXPECT_C10D:-ON} != OFF ]]; then
  # 2 processes x 2 replicas: rank 0 writes the trace of every process's replicas.
  if "$bin" train "${spirals[@]}" --nproc 2 --logical 2 --max-steps 12 --run-dir "$tmp/two" --json \
        --trace "$tmp/two.json" --trace-steps 3-6 >"$tmp/two.log" 2>"$tmp/two.err" &&
      grep -q "^Trace: $tmp/two.json (4 steps" "$tmp/two.err" && ! grep -q Trace "$tmp/two.log" &&
      check "$tmp/two.json" 3 6 2 2; then pass; else fail "2x2 --trace"; tail -3 "$tmp/two.err"; fi

  # The same steps from the recorded run: the same spans on the same threads.
  if "$bin" trace "$tmp/two" --steps 3-6 --output "$tmp/two-recorded.json" >"$tmp/rec.log" 2>&1 &&
      check "$tmp/two-recorded.json" 3 6 2 2 &&
      python3 - "$tmp/two.json" "$tmp/two-recorded.json" <<'PY'; then pass; else fail "trace RUN"; cat "$tmp/rec.log"; fi
import json, sys
def spans(p):
    return sorted((e['name'], e['pid'], e['tid'], e['args']['step']) for e in json.load(open(p))['traceEvents'] if e['ph'] == 'X')
a, b = spans(sys.argv[1]), spans(sys.argv[2])
print('live and recorded spans agree' if a == b else f'live {len(a)} spans, recorded {len(b)}')
sys.exit(0 if a == b else 1)
PY
  # Its default output lands in the run folder.
  if "$bin" trace "$tmp/two" --steps 2-2 >"$tmp/rec2.log" 2>&1 && check "$tmp/two/trace-steps-2-2.json" 2 2 2 2; then pass; else fail "trace RUN default output"; cat "$tmp/rec2.log"; fi
fi

# `trace` on a run without timelines, on steps it did not record, into a missing folder.
cp -r "$tmp/one" "$tmp/old"
rm -f "$tmp/old/timeline.jsonl"
expect_error 2 "recorded before timelines existed" "$bin" trace "$tmp/old"
expect_error 2 "no timeline of steps 40-50: the run has timelines of steps 1-25" "$bin" trace "$tmp/one" --steps 40-50
expect_error 2 "the folder $tmp/missing does not exist" "$bin" trace "$tmp/one" --output "$tmp/missing/t.json"
expect_error 2 "--output $tmp/pipe: is a named pipe" "$bin" trace "$tmp/one" --output "$tmp/pipe"
expect_error 2 "no run here" "$bin" trace "$tmp/nothing"
# A stranger's run whose timeline.jsonl is a link to /dev/zero or a FIFO: refused at once (the
# link once kept `trace` reading for ever), within the 10 s that expect_error's timeout allows.
cp -r "$tmp/one" "$tmp/strange"
rm -f "$tmp/strange/timeline.jsonl"
ln -s /dev/zero "$tmp/strange/timeline.jsonl"
expect_error 2 "timeline.jsonl: the file is a character device, not a regular file" timeout 10 "$bin" trace "$tmp/strange"
rm -f "$tmp/strange/timeline.jsonl"
mkfifo "$tmp/strange/timeline.jsonl"
expect_error 2 "timeline.jsonl: the file is a FIFO, not a regular file" timeout 10 "$bin" trace "$tmp/strange"

finish trace
