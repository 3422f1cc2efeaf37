#!/usr/bin/env python3
"""Throughput of the tutorial model (seed-reuters on synthetic-text): mirrortrain vs PyTorch.

Runs, in one script and on the same libtorch:
  * mirrortrain with 1 and 2 logical CPU devices,
  * PyTorch in Python, single process with 1 thread (bench/pytorch_reference.py --mode single),
  * mirrortrain with 2 worker processes (--nproc 2, c10d over Gloo) of 1 and 2 replicas each,
  * PyTorch DistributedDataParallel over gloo with 2 processes (--mode ddp --procs 2),
at global batch 32 and 256, then prints samples/s and the ratios against the targets.

    python3 bench/reuters_throughput.py [--mirrortrain build/app/mirrortrain] [--steps 60]

Not a test: numbers depend on the machine. Each configuration runs `--repeats` times and the
best run counts, which damps noise from other processes.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = {  # (ours, reference, batch) -> minimum ratio ours / reference
    ("mirror-1", "torch-single", 32): 1.15,
    ("mirror-1", "torch-single", 256): 1.15,
    ("mirror-2", "torch-ddp-2", 32): 1.30,
    ("mirror-2", "torch-ddp-2", 256): 1.15,
    ("mirror-2proc", "torch-ddp-2", 32): 1.30,
    ("mirror-2proc", "torch-ddp-2", 256): 1.15,
}


def run_mirror(binary, logical, batch, warmup, steps, device="cpu", nproc=1):
    cmd = [binary, "train", "--preset", "seed-reuters", "--dataset", "synthetic-text", "--devices", device,
           "--logical", str(logical), "--batch-size", str(batch), "--epochs", "1000",
           "--max-steps", str(warmup + steps), "--sync-every", "0", "--json", "--no-record"]
    if nproc > 1:
        cmd += ["--nproc", str(nproc)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    timed = [e for e in events if e["type"] == "step"][warmup:]
    # Breakdown of where replica 0's time goes, averaged over the timed steps.
    parts = {k: sum(e["replicas"][0][k] for e in timed) / len(timed) for k in ("compute_ms", "allreduce_ms", "update_ms")}
    rate = sum(e["samples"] for e in timed) / sum(e["step_seconds"] for e in timed)
    return rate, parts


def run_torch(python, mode, batch, warmup, steps, device="cpu"):
    cmd = [python, os.path.join(HERE, "pytorch_reference.py"), "--mode", mode, "--procs", "2",
           "--batch-size", str(batch), "--warmup", str(warmup), "--steps", str(steps), "--device", device]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["samples_per_sec"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrortrain", default=os.path.join(HERE, "..", "build", "app", "mirrortrain"))
    ap.add_argument("--python", default="/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                    help="interpreter with Debian's python3-torch (the same libtorch as mirrortrain)")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--batches", default="32,256")
    args = ap.parse_args()
    if not os.access(args.mirrortrain, os.X_OK):
        sys.exit(f"error: {args.mirrortrain} is not built; run ./scripts/build.sh first")

    rates, breakdown = {}, {}
    for batch in [int(b) for b in args.batches.split(",")]:
        for rep in range(args.repeats):
            for name, logical, nproc in (("mirror-1", 1, 1), ("mirror-2", 2, 1), ("mirror-2proc", 1, 2),
                                         ("mirror-2x2", 2, 2)):
                rate, parts = run_mirror(args.mirrortrain, logical, batch, args.warmup, args.steps, nproc=nproc)
                key = (name, batch)
                if rate > rates.get(key, 0):
                    rates[key], breakdown[key] = rate, parts
            for name, mode in (("torch-single", "single"), ("torch-ddp-2", "ddp")):
                rate = run_torch(args.python, mode, batch, args.warmup, args.steps)
                rates[(name, batch)] = max(rate, rates.get((name, batch), 0))

    print(f"{'configuration':<16}{'batch':>6}{'samples/s':>12}   replica-0 ms/step: compute / all-reduce / update"
          " (all-reduce share)")
    for (name, batch), rate in sorted(rates.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        extra = ""
        if (name, batch) in breakdown:
            p = breakdown[(name, batch)]
            total = p['compute_ms'] + p['allreduce_ms'] + p['update_ms']
            extra = (f"   {p['compute_ms']:.2f} / {p['allreduce_ms']:.2f} / {p['update_ms']:.2f}"
                     f" ({100 * p['allreduce_ms'] / total:.0f}%)")
        print(f"{name:<16}{batch:>6}{rate:>12.0f}{extra}")
    print()
    print(f"{'ratio':<34}{'value':>8}{'target':>8}")
    misses = 0
    for (ours, ref, batch), target in TARGETS.items():
        if (ours, batch) not in rates or (ref, batch) not in rates:
            continue
        ratio = rates[(ours, batch)] / rates[(ref, batch)]
        ok = ratio >= target
        misses += not ok
        print(f"{ours + ' / ' + ref + ' @' + str(batch):<34}{ratio:>8.2f}{target:>7.2f}x {'ok' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
