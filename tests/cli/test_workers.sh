#!/usr/bin/env bash
# Training across worker processes over c10d/Gloo, as users launch it: --nproc, torchrun (when
# Debian's python3-torch is installed), and Slurm's srun (when a Slurm cluster answers).
# Usage: test_workers.sh path/to/mirrortrain
source "$(dirname "$0")/harness.sh" "$@"

# compare A B TOLERANCE NAME [steps]: every step both logs have, loss within TOLERANCE relative,
# and (unless "steps") the final parameter norms too. Prints the worst difference.
compare() {
  python3 - "$@" <<'PY'
import json, sys
def load(path):
    steps, final = {}, None
    for line in open(path):
        if line.startswith('{'):
            j = json.loads(line)
            if j['type'] == 'step': steps[j['global_step']] = j['loss']
            if j['type'] == 'final': final = j['param_l2_norm']
    return steps, final
(a, fa), (b, fb) = load(sys.argv[1]), load(sys.argv[2])
tol, name = float(sys.argv[3]), sys.argv[4]
common = sorted(set(a) & set(b))
if len(common) < 10 or fa is None or fb is None:
    print(f'FAIL {name}: {len(common)} common steps, finals {fa} {fb}'); sys.exit(1)
worst = max(abs(a[k] - b[k]) / abs(a[k]) for k in common)
final = abs(fa - fb) / abs(fa) if len(sys.argv) < 6 else 0.0
print(f'{name}: {len(common)} steps, worst loss difference {worst:.2e}, final norm difference {final:.2e}')
sys.exit(0 if worst <= tol and final <= tol else 1)
PY
}

spirals=(--preset spirals-mlp --dataset spirals --batch-size 31 --epochs 3 --max-steps 20 --json --no-record)
# W processes x M replicas at global batch B follow one replica at batch B (31: uneven shards).
for opt in "--optimizer sgd --momentum 0.9 --lr 0.05" "--optimizer nadam"; do
  # shellcheck disable=SC2086
  "$bin" train "${spirals[@]}" $opt --logical 1 >"$tmp/one.log" 2>&1 || fail "1x1 $opt"
  for layout in "2 1" "2 2" "3 1"; do
    set -- $layout
    # shellcheck disable=SC2086
    if "$bin" train "${spirals[@]}" $opt --nproc "$1" --logical "$2" >"$tmp/w.log" 2>&1 &&
        compare "$tmp/one.log" "$tmp/w.log" 1e-5 "${1}x${2} ${opt%% *} ${opt#* }"; then pass; else fail "${1}x$2 $opt"; tail -3 "$tmp/w.log"; fi
  done
done

# What the model learned (evaluations.jsonl) is the same whether 1 or 3 processes validate: the
# processes' shares of each validation batch differ in size (500 examples, batches of 256).
learned=(--preset spirals-mlp --dataset spirals --batch-size 31 --epochs 1)
"$bin" train "${learned[@]}" --logical 1 --run-dir "$tmp/learned1" >"$tmp/l1.log" 2>&1 || fail "learned 1x1"
"$bin" train "${learned[@]}" --logical 1 --nproc 3 --run-dir "$tmp/learned3" >"$tmp/l3.log" 2>&1 || fail "learned 3x1"
if python3 - "$tmp/learned1/evaluations.jsonl" "$tmp/learned3/evaluations.jsonl" <<'PY'; then pass; else fail "evaluations 3x1 = 1x1"; fi
import json, sys
a, b = ([json.loads(l) for l in open(p) if l.strip()] for p in sys.argv[1:3])
same = len(a) == len(b) == 1 and a[0]['confusion'] == b[0]['confusion'] and sum(map(sum, a[0]['confusion'])) == 500
same = same and [e['classes'] for e in a[0]['examples']] == [e['classes'] for e in b[0]['examples']]
same = same and a[0]['regions']['classes'] == b[0]['regions']['classes']
print(f"evaluations 3x1 = 1x1: {'same' if same else 'DIFFERENT'} confusion matrix, examples and regions")
sys.exit(0 if same else 1)
PY

# With dropout the replicas draw their own masks: 2 processes x 1 replica is exactly 1 x 2, and
# a run recorded as 2 x 1 resumes as 1 x 2 with the numbers of the uninterrupted run.
cat >"$tmp/dropout.json" <<'JSON'
{"name": "dropout_mlp", "layers": [{"type": "Dense", "units": 64, "activation": "relu"},
 {"type": "Dropout", "rate": 0.3}, {"type": "Dense", "units": "classes"}]}
JSON
drop=(--preset spirals-mlp --model-file "$tmp/dropout.json" --batch-size 32 --epochs 5 --json)
"$bin" train "${drop[@]}" --logical 2 --max-steps 30 --no-record >"$tmp/d12.log" 2>&1 || fail "dropout 1x2"
"$bin" train "${drop[@]}" --logical 1 --nproc 2 --max-steps 15 --run-dir "$tmp/d21" >"$tmp/d21.log" 2>&1 || fail "dropout 2x1"
if compare "$tmp/d12.log" "$tmp/d21.log" 0 "dropout 2x1 = 1x2" steps; then pass; else fail "dropout 2x1 vs 1x2"; fi
if "$bin" train --resume "$tmp/d21" --logical 2 --max-steps 30 --json >"$tmp/d21r.log" 2>&1 &&
    compare "$tmp/d12.log" "$tmp/d21r.log" 0 "resumed 2x1 as 1x2"; then pass; else fail "resume 2x1 as 1x2"; tail -3 "$tmp/d21r.log"; fi
if python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['workers']; sys.exit(0 if w['world_size']==2 and len(w['hosts'])==2 else 1)" "$tmp/d21/run.json"; then
  pass; else fail "run.json names the workers"; fi

# A worker killed with kill -9: the others stop with one line naming it, the run reads failed.
"$bin" train --preset spirals-mlp --epochs 500 --nproc 2 --timeout 10 --run-dir "$tmp/killed" >"$tmp/k.log" 2>&1 &
launcher=$!
for _ in $(seq 100); do grep -q "Epoch 2/" "$tmp/k.log" 2>/dev/null && break; sleep 0.2; done
for p in $(pgrep -P "$launcher"); do
  if tr '\0' '\n' <"/proc/$p/environ" | grep -qx "RANK=1"; then kill -9 "$p"; fi
done
start=$SECONDS
wait "$launcher"
rc=$?
if [[ $rc -eq 1 && $((SECONDS - start)) -le 15 ]] && grep -q "lost worker rank 1 on .*continue the run with --resume" "$tmp/k.log" &&
    grep -q '"status": *"failed"' "$tmp/killed/run.json"; then pass; else fail "kill -9 rank 1: exit $rc after $((SECONDS - start)) s"; tail -3 "$tmp/k.log"; fi

# SIGTERM to one worker stops every worker after the same step, with a checkpoint.
"$bin" train --preset spirals-mlp --epochs 500 --nproc 2 --timeout 10 --run-dir "$tmp/stopped" >"$tmp/s.log" 2>&1 &
launcher=$!
for _ in $(seq 100); do grep -q "Epoch 2/" "$tmp/s.log" 2>/dev/null && break; sleep 0.2; done
for p in $(pgrep -P "$launcher"); do
  if tr '\0' '\n' <"/proc/$p/environ" | grep -qx "RANK=1"; then kill -TERM "$p"; fi
done
wait "$launcher"
rc=$?
steps=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['final']['steps'])" "$tmp/stopped/run.json" 2>/dev/null)
if [[ $rc -eq 143 ]] && grep -q '"status": *"stopped"' "$tmp/stopped/run.json" && [[ -n $steps && -e "$tmp/stopped/checkpoints/ckpt-$steps.pt" ]] &&
    grep -q "stopped after $steps steps" "$tmp/s.log"; then pass; else fail "SIGTERM to rank 1: exit $rc, steps '$steps'"; tail -3 "$tmp/s.log"; fi

# A worker stopped (SIGSTOP): rank 0 gives up at --timeout, and the launcher does not wait for the
# stopped one: it is sent SIGTERM and SIGCONT, then SIGKILL, and the workers' folder is removed,
# within seconds of rank 0's failure (it waited for as long as the worker stayed stopped).
"$bin" train --preset spirals-mlp --epochs 500 --nproc 2 --timeout 5 --no-record >"$tmp/p.log" 2>&1 &
launcher=$!
for _ in $(seq 100); do grep -q "Epoch 2/" "$tmp/p.log" 2>/dev/null && break; sleep 0.2; done
store=""
paused=""
for p in $(pgrep -P "$launcher"); do
  if tr '\0' '\n' <"/proc/$p/environ" | grep -qx "RANK=1"; then
    store=$(tr '\0' '\n' <"/proc/$p/environ" | sed -n 's/^MIRROR_STORE_DIR=//p')
    paused=$p
    kill -STOP "$p"
  fi
done
start=$SECONDS
for _ in $(seq 150); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$launcher" 2>/dev/null; then
  fail "a stopped worker held the launcher for $((SECONDS - start)) s"; kill -CONT "$paused"; kill -9 "$launcher" "$paused"
fi
wait "$launcher"
rc=$?
if [[ -n $paused && $rc -ne 0 && $((SECONDS - start)) -le 25 && -n $store && ! -e $store ]] && ! kill -0 "$paused" 2>/dev/null; then
  pass; else fail "stopped rank 1: exit $rc after $((SECONDS - start)) s, folder '$store' $( [[ -e $store ]] && echo left)"; tail -3 "$tmp/p.log"; fi

# The killed run continues from its last checkpoint with both workers.
if "$bin" train --resume "$tmp/killed" --epochs 3 --nproc 2 --timeout 10 >"$tmp/kr.log" 2>&1 &&
    grep -q '"status": *"finished"' "$tmp/killed/run.json"; then pass; else fail "resume after kill -9"; tail -3 "$tmp/kr.log"; fi

# Workers started with different settings are refused, naming the setting.
port=$((20000 + RANDOM % 20000))
common=(WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port)
env "${common[@]}" RANK=0 "$bin" train --preset spirals-mlp --epochs 1 --lr 0.01 --timeout 10 --no-record >"$tmp/m0.log" 2>&1 &
env "${common[@]}" RANK=1 "$bin" train --preset spirals-mlp --epochs 1 --lr 0.02 --timeout 10 --no-record >"$tmp/m1.log" 2>&1
rc1=$?
wait $!
rc0=$?
if [[ $rc0 -eq 2 && $rc1 -eq 2 ]] && grep -q 'differs from rank 0.s at `"learning_rate": 0.02`' "$tmp/m0.log" "$tmp/m1.log"; then
  pass; else fail "different configs: exits $rc0 $rc1"; cat "$tmp/m0.log"; fi

# A master that never comes, a worker that never comes: one clear line within the timeout.
start=$SECONDS
out=$(env "${common[@]}" MASTER_PORT=$((port + 1)) RANK=1 "$bin" train --preset spirals-mlp --timeout 3 2>&1)
rc=$?
if [[ $rc -eq 1 && $((SECONDS - start)) -le 8 && $out == *"could not reach rank 0's store"* ]]; then pass; else fail "no master: $rc $out"; fi
start=$SECONDS
out=$(env "${common[@]}" MASTER_PORT=$((port + 2)) RANK=0 "$bin" train --preset spirals-mlp --timeout 3 2>&1)
rc=$?
if [[ $rc -eq 1 && $((SECONDS - start)) -le 8 && $out == *"rank 1 of 2 never came"* ]]; then pass; else fail "missing worker: $rc $out"; fi

out=$(python3 - "$bin" $((port + 4)) <<'PY'
import os, socket, subprocess, sys
taken = socket.socket(); taken.bind(("127.0.0.1", int(sys.argv[2]))); taken.listen()
env = dict(os.environ, WORLD_SIZE="2", RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[2])
r = subprocess.run([sys.argv[1], "train", "--preset", "spirals-mlp", "--timeout", "3"], env=env, capture_output=True, text=True)
print(r.returncode, r.stderr.strip())
PY
)
if [[ $out == "1 "*"port $((port + 4)) on 127.0.0.1 is already in use"* ]]; then pass; else fail "port in use: $out"; fi

# Two "machines": two network namespaces joined by a veth pair, the master the other's address,
# so nothing assumes localhost (needs root and iproute2).
if [[ $(id -u) -eq 0 ]] && command -v ip >/dev/null && ip netns add mw-a-$$ 2>/dev/null; then
  a=mw-a-$$ b=mw-b-$$
  ip netns add $b && ip link add mwa$$ type veth peer name mwb$$ && ip link set mwa$$ netns $a && ip link set mwb$$ netns $b &&
    ip -n $a addr add 10.213.7.1/24 dev mwa$$ && ip -n $b addr add 10.213.7.2/24 dev mwb$$ &&
    ip -n $a link set mwa$$ up && ip -n $b link set mwb$$ up && ip -n $a link set lo up && ip -n $b link set lo up
  two=(WORLD_SIZE=2 MASTER_ADDR=10.213.7.1 MASTER_PORT=$((port + 5)))
  ip netns exec $a env "${two[@]}" RANK=0 "$bin" train "${spirals[@]}" --optimizer nadam --logical 2 --timeout 20 >"$tmp/ns.log" 2>&1 &
  ip netns exec $b env "${two[@]}" RANK=1 "$bin" train "${spirals[@]}" --optimizer nadam --logical 2 --timeout 20 >/dev/null 2>&1
  rc1=$?
  wait $!
  rc0=$?
  "$bin" train "${spirals[@]}" --optimizer nadam --logical 2 --nproc 2 >"$tmp/np.log" 2>&1
  if [[ $rc0 -eq 0 && $rc1 -eq 0 ]] && compare "$tmp/np.log" "$tmp/ns.log" 0 "two namespaces = --nproc"; then pass; else fail "namespaces: exits $rc0 $rc1"; tail -3 "$tmp/ns.log"; fi
  ip netns del $a; ip netns del $b
else
  echo "SKIP two network namespaces: needs root and iproute2"
fi

# The reference the launchers below must equal: --nproc 2 x 2 replicas.
"$bin" train "${spirals[@]}" --optimizer nadam --logical 2 --nproc 2 >"$tmp/np.log" 2>&1 || fail "--nproc 2 reference"

# torchrun, as Debian 12's needs it (--redirects/--tee/--log_dir work around its Python 3.11 crash).
torchrun=${MIRROR_TORCHRUN:-torchrun}  # the torchrun of the LibTorch built against (ctest sets it)
if command -v "$torchrun" >/dev/null; then
  out=$(cd "$tmp" && timeout 180 "$torchrun" --nproc_per_node 2 --master_port $((port + 3)) --no_python --redirects 1 --tee 1 \
    --log_dir "$tmp/torchrun" "$bin" train "${spirals[@]}" --optimizer nadam 2>&1)
  rc=$?
  grep '^\[default0\]:{' <<<"$out" | sed 's/^\[default0\]://' >"$tmp/tr.log"
  if [[ $rc -eq 0 ]] && compare "$tmp/np.log" "$tmp/tr.log" 0 "torchrun = --nproc"; then pass; else fail "torchrun: exit $rc"; tail -5 <<<"$out"; fi
else
  echo "SKIP torchrun: not installed (Debian's python3-torch provides it)"
fi

# The embedding's gradient crossing as the rows a step touched (--sparse-exchange on, the default)
# between 2 real processes over Gloo: every step's loss and the final weights exactly as the whole
# table gives them (a + b either way), in fewer bytes, which every step records.
text=(--preset seed-reuters --dataset synthetic-text --train-size 640 --val-size 64 --batch-size 32 --epochs 1
      --max-steps 12 --json --no-record --nproc 2 --logical 1)
# (--overlap off: here the step's one exchange carries every gradient.)
if "$bin" train "${text[@]}" --overlap off --sparse-exchange on >"$tmp/sparse.log" 2>&1 &&
   "$bin" train "${text[@]}" --overlap off --sparse-exchange off >"$tmp/dense.log" 2>&1 &&
   python3 - "$tmp/sparse.log" "$tmp/dense.log" <<'PY'
import json, sys
def load(path):
    lines = [json.loads(l) for l in open(path) if l.startswith('{')]
    steps = [j for j in lines if j['type'] == 'step']
    final = [j for j in lines if j['type'] == 'final']
    return steps, final[0]['param_l2_norm'] if final else None
(s, fs), (d, fd) = load(sys.argv[1]), load(sys.argv[2])
if len(s) != 12 or len(d) != 12 or fs is None:
    sys.exit(f'{len(s)} and {len(d)} steps, final norm {fs}')
if [j['loss'] for j in s] != [j['loss'] for j in d] or fs != fd:
    sys.exit(f'rows and whole table differ: losses {[j["loss"] for j in s][:3]}... against {[j["loss"] for j in d][:3]}..., norms {fs} {fd}')
sb, db = [j.get('exchange_bytes', 0) for j in s], [j.get('exchange_bytes', 0) for j in d]
# The first step sends the table whole with the 2 processes' message lengths (the slots' size is
# not known yet); every later one less than half of it.
if sb[0] != db[0] + 16 or not all(0 < a and 2 * a < b for a, b in zip(sb[1:], db[1:])):
    sys.exit(f'bytes a step: rows {sb}, whole table {db}')
print(f'sparse exchange: 12 steps as the dense one, bit for bit; {sorted(sb)[6]:,} bytes a step against {sorted(db)[6]:,}')
PY
then pass; else fail "--sparse-exchange"; tail -n 3 "$tmp/sparse.log" "$tmp/dense.log"; fi

# The last layers' gradients crossing while backward runs (--overlap on, the default) over real
# Gloo: the same losses and weights bit for bit and the same bytes as --overlap off, and the
# timeline of every step after the first shows, for both processes, the buckets' all-reduce
# beginning inside backward (after forward, before the gradients were all ready).
overlap=()
for a in "${text[@]}"; do [[ $a == --no-record ]] || overlap+=("$a"); done
if "$bin" train "${overlap[@]}" --overlap on --run-dir "$tmp/ov-on" >"$tmp/ov-on.log" 2>&1 &&
   "$bin" train "${text[@]}" --overlap off >"$tmp/ov-off.log" 2>&1 &&
   python3 - "$tmp/ov-on.log" "$tmp/ov-off.log" "$tmp/ov-on/timeline.jsonl" <<'PY'
import json, sys
def load(path):
    lines = [json.loads(l) for l in open(path) if l.startswith('{')]
    steps = [j for j in lines if j['type'] == 'step']
    final = [j for j in lines if j['type'] == 'final']
    return steps, final[0]['param_l2_norm'] if final else None
(a, fa), (b, fb) = load(sys.argv[1]), load(sys.argv[2])
if len(a) != 12 or len(b) != 12 or fa is None:
    sys.exit(f'{len(a)} and {len(b)} steps, final norm {fa}')
if [j['loss'] for j in a] != [j['loss'] for j in b] or fa != fb:
    sys.exit(f'overlapped and not differ: losses {[j["loss"] for j in a][:3]}... against {[j["loss"] for j in b][:3]}..., norms {fa} {fb}')
if [j.get('exchange_bytes') for j in a] != [j.get('exchange_bytes') for j in b]:
    sys.exit(f'bytes differ: {[j.get("exchange_bytes") for j in a]} against {[j.get("exchange_bytes") for j in b]}')
inside = 0
for line in open(sys.argv[3]):
    t = json.loads(line)
    marks = {r[1]: r for r in t['replicas']}  # process -> [replica, process, shard, started, copied, forward_done, ready, ...]
    for p in t['processes']:
        if len(p) != 7:
            sys.exit(f'step {t["step"]}: process {p[0]} has no overlapped all-reduce: {p}')
        forward_done, ready = marks[p[0]][5], marks[p[0]][6]
        if not (forward_done - 1 <= p[5] < ready and p[5] <= p[6]):
            sys.exit(f'step {t["step"]}: process {p[0]} began its buckets at {p[5]} us, outside backward [{forward_done}, {ready}]')
        inside += 1
if inside < 2 * 10:
    sys.exit(f'only {inside} process-steps in the timeline')
print(f'overlap: 12 steps as without it, bit for bit; buckets began inside backward in {inside} process-steps')
PY
then pass; else fail "--overlap"; tail -n 3 "$tmp/ov-on.log" "$tmp/ov-off.log"; fi

# Slurm: srun -n 2 on a cluster that answers; scripts/slurm-local.sh starts a one-node one where
# it can (root or sudo, Debian's slurm-wlm and munge, no other cluster configured).
slurm_up() { command -v srun >/dev/null && timeout 10 srun -n 1 true 2>/dev/null; }
slurm_up || "$(dirname "$0")/../../scripts/slurm-local.sh" || true
if slurm_up; then
  out=$(timeout 180 srun -n 2 "$bin" train "${spirals[@]}" --optimizer nadam 2>"$tmp/srun.err")
  rc=$?
  printf '%s\n' "$out" >"$tmp/srun.log"
  if [[ $rc -eq 0 ]] && compare "$tmp/np.log" "$tmp/srun.log" 0 "srun -n 2 = --nproc 2"; then pass; else fail "srun: exit $rc"; tail -5 "$tmp/srun.err"; fi
else
  echo "SKIP srun: no Slurm answers here and scripts/slurm-local.sh could not start one"
fi

finish test_workers
