#!/usr/bin/env python3
"""GPU throughput of the tutorial model (seed-reuters on synthetic-text): mirrortrain vs PyTorch.

In one script, on one GPU, at global batch 32 and 256:
  * mirrortrain with 1 replica on cuda:0 and with 2 logical GPUs carved from cuda:0,
  * PyTorch eager in Python on cuda:0 (bench/pytorch_reference.py --mode single --device cuda),
then prints ms/step, samples/s, where replica 0's step goes (CUDA events) and the ratios.

    python3 bench/gpu_throughput.py --mirrortrain build-gpu/app/mirrortrain [--steps 200]

Not a test: numbers depend on the machine. Configurations alternate over `--repeats` rounds; the
best round counts and the spread is printed.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reuters_throughput import run_mirror, run_torch  # noqa: E402

TARGETS = {  # (ours, reference, batch) -> minimum ratio ours / reference (issue: H200 targets)
    ("mirror-2logical", "torch-eager", 32): 1.5,
}
MAX_MS = {("mirror-2logical", 32): 2.0}  # ms per step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrortrain", default=os.path.join(HERE, "..", "build-gpu", "app", "mirrortrain"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=int(os.environ.get("REPEATS", 3)))
    ap.add_argument("--batches", default="32,256")
    args = ap.parse_args()

    rates, parts = {}, {}
    for batch in [int(b) for b in args.batches.split(",")]:
        for _ in range(args.repeats):
            for name, logical in (("mirror-1gpu", 1), ("mirror-2logical", 2)):
                rate, p = run_mirror(args.mirrortrain, logical, batch, args.warmup, args.steps, device="cuda:0")
                rates.setdefault((name, batch), []).append(rate)
                if rate >= max(rates[(name, batch)]):
                    parts[(name, batch)] = p
            rate = run_torch(args.python, "single", batch, args.warmup, args.steps, device="cuda")
            rates.setdefault(("torch-eager", batch), []).append(rate)

    print(f"{'configuration':<17}{'batch':>6}{'ms/step':>9}{'samples/s':>11}{'spread':>9}"
          "   replica-0 ms: compute / all-reduce / update (CUDA events)")
    best = {k: max(v) for k, v in rates.items()}
    for (name, batch), runs in sorted(rates.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        rate = max(runs)
        spread = (max(runs) - min(runs)) / rate * 100
        extra = ""
        if (name, batch) in parts:
            p = parts[(name, batch)]
            extra = f"   {p['compute_ms']:.3f} / {p['allreduce_ms']:.3f} / {p['update_ms']:.3f}"
        print(f"{name:<17}{batch:>6}{1000 * batch / rate:>9.3f}{rate:>11.0f}{spread:>8.0f}%{extra}")
    print()
    for (ours, ref, batch), target in TARGETS.items():
        if (ours, batch) in best and (ref, batch) in best:
            ratio = best[(ours, batch)] / best[(ref, batch)]
            print(f"{ours} / {ref} @{batch}: {ratio:.2f}x (target >= {target}x) {'ok' if ratio >= target else 'MISSED'}")
    for (name, batch), limit in MAX_MS.items():
        if (name, batch) in best:
            ms = 1000 * batch / best[(name, batch)]
            print(f"{name} @{batch}: {ms:.3f} ms/step (target <= {limit} ms) {'ok' if ms <= limit else 'MISSED'}")
    for batch in sorted({b for _, b in best}):
        if ("mirror-1gpu", batch) in best and ("torch-eager", batch) in best:
            print(f"mirror-1gpu / torch-eager @{batch}: {best[('mirror-1gpu', batch)] / best[('torch-eager', batch)]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
