#!/usr/bin/python3
"""The what-if checked against real runs: `mirrortrain predict` beside measured step times.

Measures one model (a wide MLP, 1.06 M parameters, so that a slow link makes its 4.2 MB
all-reduce the bulk of a step) at a fixed global batch (strong scaling) on:
  * 1, 2 and 4 logical CPU devices in one process (shared-memory all-reduce);
  * 2 and 3 worker processes over loopback (`--nproc`, c10d over Gloo);
  * 2 processes in two network namespaces joined by a veth pair whose both ends are shaped with
    `tc qdisc ... tbf rate R` to 1 Gbit/s, 200 Mbit/s and 50 Mbit/s (needs root, `ip netns add`
    and `ip netns exec`; skipped, with the reason, where either fails).

and predicts each with `mirrortrain predict`:
  * logical devices: fitted on that repeat's 2-logical-device run (its own all-reduce link);
  * processes over loopback: fitted on that repeat's 2-process run (the loopback link);
  * shaped links: the same 2-process fit, with `--link latency=A,bandwidth=R`: A is the α fitted
    on loopback (this kernel has tbf and htb but no netem, so latency cannot be shaped here and
    only the bandwidth is the link's), R the tbf rate.

How it measures:
  * a step's time is rank 0's `step_seconds` in metrics.jsonl, median over the steps after the
    first few (start-up, first touches of memory); the terms beside it are the medians of the
    slowest replica's compute, the first-to-leave replica's all-reduce (the transfer, not the
    wait for a straggler) and the mean update;
  * every configuration once per repeat, in a rotated order, repeated (default 3): a busy moment
    of a shared machine hits different configurations each time; the table gives the median of
    the repeats and their range;
  * each repeat predicts from its own reference runs; the prediction shown is the median of
    those, its error (predicted - measured) / measured against the measured median.

    sudo /usr/bin/python3 bench/whatif_validate.py [--mirrortrain build/app/mirrortrain]
                                                   [--repeats 3] [--markdown FILE]

About 3 minutes with 3 repeats on the 2-core development machine. Not a test: figures depend on
the machine; read the spread.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

GLOBAL_BATCH = 1024
WARMUP_STEPS = 4
MODEL = {"name": "wide_mlp", "layers": [
    {"type": "Dense", "units": 1024, "activation": "relu"},
    {"type": "Dense", "units": 1024, "activation": "relu"},
    {"type": "Dense", "units": "classes"}]}
RATES = ["1gbit", "200mbit", "50mbit"]
# Steps per run: enough timed steps after the warm-up for a median, few enough that the slowest
# link's run stays near 10 s.
STEPS = {"logical": 36, "loopback": 36, "1gbit": 28, "200mbit": 18, "50mbit": 12}


OVERLAP = "on"  # --overlap of every run (main's --overlap)


def common_args(model_file, steps):
    return ["train", "--preset", "spirals-mlp", "--model-file", model_file, "--batch-size", str(GLOBAL_BATCH),
            "--train-size", str(GLOBAL_BATCH * (steps + 2)), "--val-size", "256", "--epochs", "1",
            "--max-steps", str(steps), "--threads", "1", "--optimizer", "sgd", "--lr", "0.01",
            "--checkpoint-every", "0", "--timeout", "120", "--overlap", OVERLAP]


def run(cmd, env=None, timeout=600, **kw):
    r = subprocess.run(cmd, env=env, timeout=timeout, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-600:]}")
    return r


# ---- measuring -------------------------------------------------------------------------------

def measured(run_dir):
    """Median step time and its terms (ms) over the steps after the warm-up."""
    rows = []
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        for line in f:
            j = json.loads(line)
            if j.get("type") == "step":
                rows.append(j)
    rows = rows[WARMUP_STEPS:]
    if not rows:
        raise RuntimeError(f"{run_dir}: no steps after the warm-up")
    med = statistics.median
    return {
        "step": med(r["step_seconds"] * 1e3 for r in rows),
        "compute": med(max(p["compute_ms"] for p in r["replicas"]) for r in rows),
        "allreduce": med(min(p["allreduce_ms"] for p in r["replicas"]) for r in rows),
        "update": med(statistics.fmean(p["update_ms"] for p in r["replicas"]) for r in rows),
        "replicas": len(rows[0]["replicas"]),
        "steps": len(rows),
    }


class Namespaces:
    """Two network namespaces joined by a veth pair: rank 0 at 10.213.9.1, rank 1 at .2."""

    def __init__(self):
        tag = str(os.getpid() % 100000)
        self.a, self.b = f"mwv-a-{tag}", f"mwv-b-{tag}"
        self.dev_a, self.dev_b = f"mwva{tag}", f"mwvb{tag}"
        self.addr_a, self.addr_b = "10.213.9.1", "10.213.9.2"
        self.made = []

    @staticmethod
    def probe():
        """None when `ip netns add` and `ip netns exec` both work here, else why not."""
        if os.geteuid() != 0:
            return "needs root (ip netns)"
        if not shutil.which("ip") or not shutil.which("tc"):
            return "needs iproute2 (ip, tc)"
        name = f"mwv-probe-{os.getpid()}"
        r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
        if r.returncode != 0:
            return f"`ip netns add` fails here: {r.stderr.strip()}"
        try:
            r = subprocess.run(["ip", "netns", "exec", name, "true"], capture_output=True, text=True)
            if r.returncode != 0:
                return f"`ip netns exec` fails here (/ must be a mount point; a plain chroot is not): {r.stderr.strip()}"
        finally:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        return None

    def __enter__(self):
        ip = lambda *a: run(["ip", *a])
        ip("netns", "add", self.a)
        self.made.append(self.a)
        ip("netns", "add", self.b)
        self.made.append(self.b)
        ip("link", "add", self.dev_a, "type", "veth", "peer", "name", self.dev_b)
        ip("link", "set", self.dev_a, "netns", self.a)
        ip("link", "set", self.dev_b, "netns", self.b)
        ip("-n", self.a, "addr", "add", f"{self.addr_a}/24", "dev", self.dev_a)
        ip("-n", self.b, "addr", "add", f"{self.addr_b}/24", "dev", self.dev_b)
        for ns, dev in ((self.a, self.dev_a), (self.b, self.dev_b)):
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        return self

    def __exit__(self, *exc):
        for ns in self.made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def shape(self, rate):
        """Both directions limited to `rate` by a token bucket (tbf); the bucket holds 1 ms of it."""
        bits = parse_rate(rate)
        burst = max(16 * 1024, int(bits / 8 / 1000))
        for ns, dev in ((self.a, self.dev_a), (self.b, self.dev_b)):
            run(["ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate,
                 "burst", str(burst), "latency", "100ms"])

    def goodput(self, mbytes=8):
        """TCP goodput from b to a, Mbit/s: 8 MB sent, timed until a's one-byte answer."""
        server = subprocess.Popen(["ip", "netns", "exec", self.a, sys.executable, __file__, "--tcp-sink",
                                   self.addr_a, str(mbytes)], stdout=subprocess.PIPE, text=True)
        try:
            r = run(["ip", "netns", "exec", self.b, sys.executable, __file__, "--tcp-source", self.addr_a, str(mbytes)])
            return float(r.stdout.strip())
        finally:
            server.wait(timeout=60)

    def train(self, mirrortrain, args, run_dir, port):
        env = dict(os.environ, WORLD_SIZE="2", MASTER_ADDR=self.addr_a, MASTER_PORT=str(port))
        rank1 = subprocess.Popen(["ip", "netns", "exec", self.b, "env", "RANK=1", mirrortrain, *args, "--no-record"],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            run(["ip", "netns", "exec", self.a, "env", "RANK=0", mirrortrain, *args, "--run-dir", run_dir], env=env)
        finally:
            _, err = rank1.communicate(timeout=120)
        if rank1.returncode != 0:
            raise RuntimeError(f"rank 1 exited {rank1.returncode}: {err.strip()[-400:]}")


def tcp_sink(host, mbytes):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, 5999))
    s.listen(1)
    c, _ = s.accept()
    want, got = mbytes << 20, 0
    while got < want:
        b = c.recv(1 << 20)
        if not b:
            break
        got += len(b)
    c.sendall(b"k")
    c.close()


def tcp_source(host, mbytes):
    for _ in range(100):
        try:
            c = socket.create_connection((host, 5999))
            break
        except OSError:
            time.sleep(0.05)
    data = b"x" * (mbytes << 20)
    t = time.perf_counter()
    c.sendall(data)
    c.recv(1)
    print(f"{len(data) * 8 / (time.perf_counter() - t) / 1e6:.1f}")


def parse_rate(rate):
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    for u, f in units.items():
        if rate.endswith(u):
            return float(rate[: -len(u)]) * f
    raise ValueError(rate)


# ---- predicting ------------------------------------------------------------------------------

def predict(mirrortrain, run_dirs, devices, link=None):
    """`mirrortrain predict --json` of one run (a folder) or a study (a list of folders):
    {devices: {step, compute, comm, update, overhead} in ms}, the document."""
    run_dirs = [run_dirs] if isinstance(run_dirs, str) else run_dirs
    cmd = [mirrortrain, "predict", *run_dirs, "--scaling", "strong", "--devices", ",".join(map(str, devices)), "--json"]
    if link:
        cmd += ["--link", link]
    out = json.loads(run(cmd).stdout)
    points = {}
    for p in out["points"]:
        points[p["devices"]] = {"step": p["step_ms"], "compute": p["compute_ms"], "comm": p["allreduce_ms"],
                                "update": p["update_ms"], "overhead": p["overhead_ms"]}
    return points, out


def loopback_alpha(mirrortrain, two_dir, three_dir):
    """α (seconds) of the ring formula T(n) = 2(n-1)/n · bytes/bw + 2(n-1) · α as `mirrortrain
    predict` fits it to the 2- and 3-process loopback runs together (one replica count gives β only):
    its link times count what backward hid of the exchange (--overlap) as the link's too."""
    _, out = predict(mirrortrain, [two_dir, three_dir], [2])
    return max(0.0, out["model"]["measured_link"]["latency_s"])


# ---- the table -------------------------------------------------------------------------------

def fmt_range(values, digits=1):
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirrortrain", default=os.path.join(os.path.dirname(__file__), "..", "build", "app", "mirrortrain"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--markdown", help="also write the table here")
    ap.add_argument("--overlap", choices=["on", "off"], default="on",
                    help="buckets during backward between processes (train --overlap; default on, as train)")
    ap.add_argument("--keep", help="keep the runs in this folder (default: a temporary one, removed)")
    ap.add_argument("--tcp-sink", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--tcp-source", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.tcp_sink:
        return tcp_sink(a.tcp_sink[0], int(a.tcp_sink[1]))
    if a.tcp_source:
        return tcp_source(a.tcp_source[0], int(a.tcp_source[1]))

    global OVERLAP
    OVERLAP = a.overlap
    mirrortrain = os.path.realpath(a.mirrortrain)
    root = a.keep or tempfile.mkdtemp(prefix="whatif-")
    os.makedirs(root, exist_ok=True)
    model_file = os.path.join(root, "wide-mlp.json")
    with open(model_file, "w") as f:
        json.dump(MODEL, f)
    env = dict(os.environ, MIRROR_RUNS_DIR=os.path.join(root, "runs"))

    why_no_ns = Namespaces.probe()
    configs = [("logical", n) for n in (1, 2, 4)] + [("loopback", n) for n in (2, 3)]
    if why_no_ns is None:
        configs += [(rate, 2) for rate in RATES]
    else:
        print(f"SKIP shaped links: {why_no_ns}", file=sys.stderr)

    results = {c: [] for c in configs}     # config -> [measured dict per repeat]
    refs = {"logical": [], "loopback": [], "loopback3": []}  # reference run dirs per repeat
    loads = []
    goodput = {}
    port = 29500 + os.getpid() % 1000
    ns = Namespaces() if why_no_ns is None else None
    started = time.time()
    try:
        if ns:
            ns.__enter__()
            for rate in RATES:
                ns.shape(rate)
                goodput[rate] = ns.goodput()
        for rep in range(a.repeats):
            order = configs[rep % len(configs):] + configs[: rep % len(configs)]
            loads.append(os.getloadavg()[0])
            for kind, n in order:
                run_dir = os.path.join(root, f"r{rep}-{kind}-{n}")
                shutil.rmtree(run_dir, ignore_errors=True)
                args = common_args(model_file, STEPS[kind])
                if kind == "logical":
                    run([mirrortrain, *args, "--logical", str(n), "--run-dir", run_dir], env=env)
                elif kind == "loopback":
                    run([mirrortrain, *args, "--logical", "1", "--nproc", str(n), "--run-dir", run_dir], env=env)
                else:
                    ns.shape(kind)
                    port += 1
                    ns.train(mirrortrain, args + ["--logical", "1"], run_dir, port)
                m = measured(run_dir)
                results[(kind, n)].append(m)
                if (kind, n) in (("logical", 2), ("loopback", 2)):
                    refs[kind].append(run_dir)
                if (kind, n) == ("loopback", 3):
                    refs["loopback3"].append(run_dir)
                print(f"repeat {rep + 1}: {kind} x{n}: step {m['step']:.1f} ms (compute {m['compute']:.1f}, "
                      f"all-reduce {m['allreduce']:.1f}, update {m['update']:.2f})", file=sys.stderr, flush=True)
            loads.append(os.getloadavg()[0])
    finally:
        if ns:
            ns.__exit__(None, None, None)
    measure_s = time.time() - started

    # Predictions: each repeat's reference run, the median over repeats.
    preds = {c: [] for c in configs}
    alphas = []
    for rep in range(a.repeats):
        p, _ = predict(mirrortrain, refs["logical"][rep], [1, 2, 4])
        for n in (1, 2, 4):
            preds[("logical", n)].append(p[n])
        p, _ = predict(mirrortrain, refs["loopback"][rep], [2, 3])
        for n in (2, 3):
            preds[("loopback", n)].append(p[n])
        alpha = loopback_alpha(mirrortrain, refs["loopback"][rep], refs["loopback3"][rep])
        alphas.append(alpha)
        if ns:
            for rate in RATES:
                bw = rate.replace("gbit", "Gbit").replace("mbit", "Mbit")
                p, _ = predict(mirrortrain, refs["loopback"][rep], [2], link=f"latency={alpha * 1e6:.3f}us,bandwidth={bw}")
                preds[(rate, 2)].append(p[2])

    def label(kind, n):
        if kind == "logical":
            return f"{n} logical device{'s' if n > 1 else ''}, 1 process"
        if kind == "loopback":
            return f"{n} processes, loopback"
        return f"2 processes, veth shaped to {kind} (TCP {goodput[kind]:.0f} Mbit/s)"

    in_sample = {("logical", 2), ("loopback", 2)}
    cores = os.cpu_count()
    lines = ["| configuration | measured step ms, median [range] | spread | predicted ms | error | "
             "measured compute / all-reduce / rest ms | predicted compute / all-reduce / rest ms | off most in |",
             "|---|---|---|---|---|---|---|---|"]
    errors, own_core_errors = [], []
    for c in configs:
        ms = [m["step"] for m in results[c]]
        med = statistics.median(ms)
        pred = {k: statistics.median(p[k] for p in preds[c]) for k in ("step", "compute", "comm", "update", "overhead")}
        err = (pred["step"] - med) / med
        own_core = c[1] <= cores  # one intra-op thread per replica: a core each, or shared
        if c not in in_sample:
            errors.append(abs(err))
            if own_core:
                own_core_errors.append(abs(err))
        mt = {k: statistics.median(m[k] for m in results[c]) for k in ("compute", "allreduce", "update")}
        measured_rest = med - mt["compute"] - mt["allreduce"]
        predicted_rest = pred["update"] + pred["overhead"]
        # The term whose prediction is furthest from its measure, in ms (signed: predicted - measured).
        gaps = {"compute": pred["compute"] - mt["compute"], "all-reduce": pred["comm"] - mt["allreduce"],
                "update and the rest": predicted_rest - measured_rest}
        worst = max(gaps, key=lambda k: abs(gaps[k]))
        off = f"{worst} ({gaps[worst]:+.1f} ms)" if abs(err) > 0.05 else "-"
        shared = "" if own_core else f", {c[1]} replicas on {cores} cores"
        lines.append(f"| {label(*c)}{shared}{' (fitted on it)' if c in in_sample else ''} | {fmt_range(ms)} | "
                     f"{100 * (max(ms) - min(ms)) / med:.0f}% | {pred['step']:.1f} | {100 * err:+.0f}% | "
                     f"{mt['compute']:.1f} / {mt['allreduce']:.1f} / {measured_rest:.1f} | "
                     f"{pred['compute']:.1f} / {pred['comm']:.1f} / {predicted_rest:.1f} | {off} |")
    summary = (f"Out-of-sample predictions: median absolute error {100 * statistics.median(errors):.0f}%, "
               f"worst {100 * max(errors):.0f}% (target 15% / 30%); where every replica had a core of its own: "
               f"median {100 * statistics.median(own_core_errors):.0f}%, worst {100 * max(own_core_errors):.0f}%. "
               f"α fitted on loopback: "
               f"{fmt_range([x * 1e6 for x in alphas], 0)} µs. Load average during the runs: "
               f"{min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} cores; {a.repeats} repeats, "
               f"{measure_s:.0f} s of measuring.")
    if why_no_ns:
        summary += f" Shaped links skipped: {why_no_ns}."
    table = "\n".join(lines) + "\n\n" + summary + "\n"
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table)
    if not a.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
