#!/usr/bin/env bash
# Where the workers meet and who can reach it: a local --nproc run listens on no address of the
# network; a worker that finds something else at MASTER_ADDR:MASTER_PORT stops within --timeout
# with one clear line; two local runs given one MASTER_PORT do not meet; a rank 0 whose port is
# taken says so at once.
# Usage: test_worker_store.sh path/to/mirrortrain
source "$(dirname "$0")/harness.sh" "$@"
port=$((20000 + RANDOM % 20000))

# listening PID...: the TCP sockets in LISTEN state that these processes hold, one "pid address" a line.
listening() {
  python3 - "$@" <<'PY'
import os, socket, struct, sys
inodes = {}
for pid in sys.argv[1:]:
    try:
        for fd in os.listdir(f'/proc/{pid}/fd'):
            link = os.readlink(f'/proc/{pid}/fd/{fd}')
            if link.startswith('socket:['): inodes[link[8:-1]] = pid
    except OSError:
        pass
for table, family in (('/proc/net/tcp', socket.AF_INET), ('/proc/net/tcp6', socket.AF_INET6)):
    for row in open(table).readlines()[1:]:
        f = row.split()
        if f[3] != '0A' or f[9] not in inodes: continue  # 0A: LISTEN
        addr, port = f[1].split(':')
        raw = bytes.fromhex(addr)
        raw = b''.join(struct.pack('<I', w) for w in struct.unpack(f'>{len(raw) // 4}I', raw))
        print(inodes[f[9]], f'{socket.inet_ntop(family, raw)}:{int(port, 16)}')
PY
}

# 1. A local --nproc 2 run: neither the launcher nor a worker listens beyond loopback.
"$bin" train --preset spirals-mlp --epochs 500 --nproc 2 --timeout 20 --no-record >"$tmp/local.log" 2>&1 &
launcher=$!
for _ in $(seq 150); do grep -q "Epoch 2/" "$tmp/local.log" 2>/dev/null && break; sleep 0.2; done
# shellcheck disable=SC2046
socks=$(listening "$launcher" $(pgrep -P "$launcher"))
kill -TERM "$launcher"
wait "$launcher"
open=$(grep -v -E ' (127\.[0-9.]+|::1|::ffff:127\.[0-9.]+):[0-9]+$' <<<"$socks")
if grep -q "Epoch 2/" "$tmp/local.log" && [[ -z $open ]]; then pass; else fail "local run listens beyond loopback: ${open:-no epoch 2}"; fi

# A listener on MASTER_PORT that is not a store: one that talks as soon as it accepts (garbage,
# the way a greeting server would), one that waits 1.5 s and then sends garbage (built against
# LibTorch 1.13 the worker aborted with SIGABRT once c10d read it), an HTTP server (it answers the
# store's first query), and one that accepts and stays silent. Writes its port to FILE once it listens.
foreign() {
  if [[ $1 == http ]]; then
    exec python3 -u -c 'import http.server as h, os, sys
s = h.HTTPServer(("127.0.0.1", 0), h.SimpleHTTPRequestHandler)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_port)); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()' "$2" 2>/dev/null
  fi
  exec python3 - "$1" "$2" <<'PY'
import os, socket, sys, threading, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 0)); s.listen(16)
open(sys.argv[2] + '.tmp', 'w').write(str(s.getsockname()[1])); os.rename(sys.argv[2] + '.tmp', sys.argv[2])
def serve(c):
    try:
        while True:
            if sys.argv[1] == 'talks': c.sendall(b'HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\n\r\nbad request' * 64)
            if sys.argv[1] == 'waits':  # past the look for a greeting, then bytes that are no store's
                time.sleep(1.5); c.sendall(b'\xff' * 4096)
            if not c.recv(65536): break
    except OSError:
        pass
    time.sleep(600)  # keep the connection open: a silent peer never closes it either
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
}
for kind in talks waits http silent; do
  rm -f "$tmp/fport"
  foreign "$kind" "$tmp/fport" &
  server=$!
  for _ in $(seq 100); do [[ -s $tmp/fport ]] && break; sleep 0.1; done
  fport=$(cat "$tmp/fport")
  start=$SECONDS
  out=$(env WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$fport" timeout 60 "$bin" train --preset spirals-mlp \
    --timeout 5 --no-record 2>&1)
  rc=$?
  took=$((SECONDS - start))
  kill "$server"
  wait "$server" 2>/dev/null
  echo "a listener that $kind: exit $rc after $took s"
  if [[ $rc -eq 1 && $took -le 8 && $out == *"the process at 127.0.0.1:$fport is not a mirrortrain store"* ]]; then pass
  else fail "a listener that $kind: exit $rc after $took s: $(tail -c 300 <<<"$out")"; fi
done

# Two local runs given the same MASTER_PORT, the second started while the first trains: each
# trains on its own, as one process would.
spirals=(--preset spirals-mlp --dataset spirals --batch-size 31 --json --no-record --timeout 20)
"$bin" train "${spirals[@]}" --max-steps 20 >"$tmp/one.log" 2>&1 || fail "one process"
MASTER_PORT=$port "$bin" train "${spirals[@]}" --epochs 500 --nproc 2 >"$tmp/a.log" 2>&1 &
first=$!
for _ in $(seq 150); do grep -q '"type": *"step"' "$tmp/a.log" 2>/dev/null && break; sleep 0.2; done
MASTER_PORT=$port "$bin" train "${spirals[@]}" --max-steps 20 --nproc 2 >"$tmp/b.log" 2>&1
rcb=$?
overlap=$(kill -TERM "$first" 2>/dev/null && echo yes)  # still training: the runs overlapped
wait "$first"
rca=$?
[[ $rca -eq 143 ]] && rca=0  # stopped by the SIGTERM above
# same ONE OTHER: OTHER has ONE's 20 steps, with ONE's losses (2 processes x 1 replica = 1 replica).
same() {
  python3 - "$@" <<'PY'
import json, sys
def losses(path):
    return {j['global_step']: j['loss'] for j in (json.loads(l) for l in open(path) if l.startswith('{')) if j['type'] == 'step'}
a, b = losses(sys.argv[1]), losses(sys.argv[2])
sys.exit(0 if len(a) == 20 and a.keys() <= b.keys() and all(abs(a[k] - b[k]) <= 1e-5 * abs(a[k]) for k in a) else 1)
PY
}
if [[ $overlap == yes && $rca -eq 0 && $rcb -eq 0 ]] && same "$tmp/one.log" "$tmp/a.log" && same "$tmp/one.log" "$tmp/b.log"; then pass
else fail "two local runs on port $port: exits $rca $rcb, overlapping: ${overlap:-no}"; tail -n 2 "$tmp/a.log" "$tmp/b.log"; fi

# Rank 0 started by hand on a port something else holds: refused at once, not after --timeout.
out=$(python3 - "$bin" $((port + 1)) <<'PY'
import os, socket, subprocess, sys, time
taken = socket.socket(); taken.bind(("127.0.0.1", int(sys.argv[2]))); taken.listen()
env = dict(os.environ, WORLD_SIZE="2", RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[2])
start = time.monotonic()
r = subprocess.run([sys.argv[1], "train", "--preset", "spirals-mlp", "--timeout", "60"], env=env, capture_output=True,
                   text=True, timeout=120)
print(r.returncode, f"{time.monotonic() - start:.1f}", r.stderr.strip())
PY
)
echo "rank 0 on a taken port: ${out%% port*}"
read -r rc took _ <<<"$out"
if [[ $rc == 1 && ${took%.*} -lt 5 && $out == *"port $((port + 1)) on 127.0.0.1 is already in use"* ]]; then pass
else fail "rank 0 on a taken port: $out"; fi

finish test_worker_store
