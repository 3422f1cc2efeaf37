#!/usr/bin/env python3
"""Throughput of the tutorial model (seed-reuters on synthetic-text): mirrortrain vs PyTorch.

Runs, in one script and on the same libtorch, at global batch 32 and 256:
  * mirror-1xT:   mirrortrain, 1 replica with T intra-op threads (--logical 1 --threads T), T = 1, 2
  * torch-T:      PyTorch in Python, one process with T threads (bench/pytorch_reference.py --mode single)
  * mirror-2:     mirrortrain, 2 replicas with 1 thread each (--logical 2)
  * torch-ddp-2:  PyTorch DistributedDataParallel over gloo, 2 processes x 1 thread
  * mirror-2proc: mirrortrain, 2 worker processes of 1 replica (--nproc 2, c10d over Gloo)
  * mirror-2proc-dense: the same with the embedding's gradient exchanged whole (--sparse-exchange off)
  * mirror-2proc-serial: the same with every gradient crossing after backward (--overlap off)
  * mirror-2x2:   mirrortrain, 2 worker processes of 2 replicas each
  * mirror-1xT-bf16: mirror-1xT in mixed-bf16 (--precision: bfloat16 layers, float32 weights and
                  loss; issue 50's target 1.4x float32 at batch 256)
  * keras-2:      the seed itself, Keras' MirroredStrategy over 2 logical CPU devices on TensorFlow
                  (bench/seed_keras.py; --keras-python, a venv made by scripts/setup-python.sh seed);
                  timed by its fit() alone (TensorFlow's import and start vary by seconds), the
                  marginal rate cancelling its tracing as it cancels our start-up
  * torch-compile-T: PyTorch with torch.compile, T threads (PyTorch 2.x: --python with today's torch)

How it measures, so that the numbers mean what they say:
  * wall clock of the whole process, at two step counts (--short and --long); the marginal rate
    (long - short) * batch / (T_long - T_short) cancels start-up (loading, the first steps, the
    process launch) for ours and PyTorch alike; worker processes' longer run is 4 times as long
    (their rendezvous varies by a second or so);
  * thread for thread: our 1 replica with T threads against PyTorch with T threads;
  * allocator for allocator: PyTorch's processes get tcmalloc preloaded, the allocator mirrortrain
    links (--torch-malloc glibc measures them with glibc's malloc instead);
  * repeats interleaved (every configuration once, then again), so that a busy moment of the
    machine hits all of them; medians are printed with the range, and every ratio is taken within
    one repeat, its median and range printed;
  * the fraction of peak: the model's training FLOPs per example (3 x the forward pass's
    multiply-adds x 2) times the rate, over a GEMM peak measured here with the same threads: the
    faster of LibTorch's mm (OpenBLAS) and oneDNN's sgemm (bench/kernel_bench, where built), so
    that our own kernels' faster GEMM does not flatter the fraction;
  * the step counts scale with 256 / batch (below 256), so that the timed difference is a few
    seconds at every batch, not a fraction of one at batch 32.

    python3 bench/reuters_throughput.py [--mirrortrain build/app/mirrortrain] [--repeats 3]
                                        [--kernel-bench build/bench/kernel_bench]

Not a test: numbers depend on the machine, and a shared 2-core machine moves by tens of percent
within minutes; read the ranges.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# (ours, reference, batch) -> the minimum ratio ours / reference (issue 16; issue 10 for 2proc).
TARGETS = {
    ("mirror-1x1", "torch-1", 32): 1.3, ("mirror-1x1", "torch-1", 256): 1.3,
    ("mirror-1x2", "torch-2", 32): 1.3, ("mirror-1x2", "torch-2", 256): 1.3,
    ("mirror-2", "torch-ddp-2", 32): 1.3, ("mirror-2", "torch-ddp-2", 256): 1.3,
    ("mirror-2proc", "torch-ddp-2", 32): 1.3, ("mirror-2proc", "torch-ddp-2", 256): 1.15,
    # The seed beside us (issue 49): Keras' MirroredStrategy on 2 logical CPU devices, and PyTorch
    # 2.x (--python with today's torch) eager and torch.compile.
    ("mirror-2", "keras-2", 32): 3.0, ("mirror-2", "keras-2", 256): 3.0,
    ("mirror-1x1", "torch-compile-1", 32): 1.0, ("mirror-1x1", "torch-compile-1", 256): 1.0,
    ("mirror-1x2", "torch-compile-2", 32): 1.0, ("mirror-1x2", "torch-compile-2", 256): 1.0,
    # bf16 the Keras way (issue 50): mixed-bf16 against float32 on this CPU, at batch 256.
    ("mirror-1x1-bf16", "mirror-1x1", 256): 1.4, ("mirror-1x2-bf16", "mirror-1x2", 256): 1.4,
}
# name -> (engine, options, CPU threads it uses in all)
CONFIGS = {
    "mirror-1x1": ("mirror", {"logical": 1, "threads": 1}, 1),
    "mirror-1x2": ("mirror", {"logical": 1, "threads": 2}, 2),
    "torch-1": ("torch", {"mode": "single", "threads": 1}, 1),
    "torch-2": ("torch", {"mode": "single", "threads": 2}, 2),
    "mirror-2": ("mirror", {"logical": 2, "threads": 1}, 2),
    "torch-ddp-2": ("torch", {"mode": "ddp", "threads": 1}, 2),
    "mirror-2proc": ("mirror", {"logical": 1, "nproc": 2}, 2),
    "mirror-2proc-dense": ("mirror", {"logical": 1, "nproc": 2, "sparse_exchange": "off"}, 2),
    "mirror-2proc-serial": ("mirror", {"logical": 1, "nproc": 2, "overlap": "off"}, 2),
    "mirror-2x2": ("mirror", {"logical": 2, "nproc": 2}, 2),
    "mirror-1x1-bf16": ("mirror", {"logical": 1, "threads": 1, "precision": "mixed-bf16"}, 1),
    "mirror-1x2-bf16": ("mirror", {"logical": 1, "threads": 2, "precision": "mixed-bf16"}, 2),
    "torch-compile-1": ("torch", {"mode": "single", "threads": 1, "compile": True}, 1),
    "torch-compile-2": ("torch", {"mode": "single", "threads": 2, "compile": True}, 2),
    "keras-2": ("keras", {"logical": 2, "threads": 1}, 2),
}

# Training FLOPs of one example of seed-reuters (Embedding 7 -> Conv1D(64, 5) -> pool 2 ->
# Conv1D(32, 3) -> pool 2 -> Dense(46) on length 300): the forward pass's multiply-adds are
# 296*64*(5*7) + 146*32*(3*64) + 2336*46 = 1,667,520; a multiply-add is 2 FLOPs, and the backward
# pass costs twice the forward (gradients for the inputs and for the weights).
FORWARD_MACS = 296 * 64 * 5 * 7 + 146 * 32 * 3 * 64 + 2336 * 46
TRAIN_FLOPS_PER_EXAMPLE = 3 * 2 * FORWARD_MACS

GEMM_PEAK = """
import sys, time, torch
torch.set_num_threads(int(sys.argv[1]))
a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
for _ in range(5): a @ b
best = 0.0
for _ in range(5):
    t = time.perf_counter()
    for _ in range(10): a @ b
    best = max(best, 10 * 2 * 1024 ** 3 / (time.perf_counter() - t))
print(best / 1e9)
"""


# mirrortrain links tcmalloc; PyTorch's processes get it preloaded (--torch-malloc), so that the
# comparison is of the training step and not of the allocator: on a VM where page faults are dear,
# glibc's malloc made PyTorch's batch-256 step 4x slower (1,022 against 4,067 samples/s).
TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"


def with_threads(threads):
    """The environment for a process that should use `threads` threads: OpenBLAS keeps its own pool,
    which torch.set_num_threads does not size (mirrortrain sizes it itself)."""
    return dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))


def timed(cmd, env=None):
    """Runs `cmd`; returns (wall seconds, stdout)."""
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - t, out


def dnnl_peak(kernel_bench, threads):
    """oneDNN's sgemm GFLOP/s on a 1024-cube product, from bench/kernel_bench; 0 if not built."""
    if not kernel_bench or not os.access(kernel_bench, os.X_OK):
        return 0.0
    with tempfile.NamedTemporaryFile(suffix=".json") as report_file:
        subprocess.run([kernel_bench, "--threads", str(threads), "--benchmark_filter=gemm_1024/kernel",
                        "--benchmark_min_time=0.5", "--benchmark_out=" + report_file.name,
                        "--benchmark_out_format=json"], check=True, capture_output=True)
        report = json.load(open(report_file.name))
    return max(b.get("items_per_second", 0.0) for b in report["benchmarks"]) / 1e9


def cpu_has_bf16():
    """True where mirrortrain accepts --precision mixed-bf16 on the CPU (model/precision.h)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def mirror_cmd(binary, options, batch, steps):
    cmd = [binary, "train", "--preset", "seed-reuters", "--dataset", "synthetic-text", "--devices", "cpu",
           "--logical", str(options["logical"]), "--batch-size", str(batch), "--epochs", "1000",
           "--max-steps", str(steps), "--sync-every", "0", "--json", "--no-record"]
    if "threads" in options:
        cmd += ["--threads", str(options["threads"])]
    if options.get("nproc", 1) > 1:
        cmd += ["--nproc", str(options["nproc"])]
    if "sparse_exchange" in options:
        cmd += ["--sparse-exchange", options["sparse_exchange"]]
    if "overlap" in options:
        cmd += ["--overlap", options["overlap"]]
    if "precision" in options:
        cmd += ["--precision", options["precision"]]
    return cmd


def torch_cmd(python, options, batch, steps):
    return [python, os.path.join(HERE, "pytorch_reference.py"), "--mode", options["mode"], "--procs", "2",
            "--batch-size", str(batch), "--warmup", "0", "--steps", str(steps), "--threads", str(options["threads"])] + \
           (["--compile"] if options.get("compile") else [])


def keras_cmd(python, data, options, batch, steps):
    """The seed's own program (bench/seed_keras.py) on TensorFlow, on the Keras-format file `data`."""
    return [python, os.path.join(HERE, "seed_keras.py"), "--data", data, "--logical", str(options["logical"]),
            "--threads", str(options["threads"]), "--batch-size", str(batch), "--steps", str(steps)]


def breakdown(stdout):
    """Replica 0's ms per step in compute / all-reduce / update, over the second half of the steps."""
    steps = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    steps = [e for e in steps if e.get("type") == "step"]
    steps = steps[len(steps) // 2:]
    if not steps:
        return None
    return {k: sum(e["replicas"][0][k] for e in steps) / len(steps) for k in ("compute_ms", "allreduce_ms", "update_ms")}


def spread(values, fmt):
    """Median [min-max] of the values that are numbers; a repeat whose longer run did not take
    longer than its shorter one (noise larger than the work) is left out and counted."""
    ok = [v for v in values if v == v]
    if not ok:
        return "n/a"
    lost = f" ({len(values) - len(ok)} lost)" if len(ok) < len(values) else ""
    return f"{fmt.format(statistics.median(ok))} [{fmt.format(min(ok))}-{fmt.format(max(ok))}]{lost}"


def median(values):
    ok = [v for v in values if v == v]
    return statistics.median(ok) if ok else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrortrain", default=os.path.join(HERE, "..", "build", "app", "mirrortrain"))
    ap.add_argument("--python", default="/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                    help="interpreter with Debian's python3-torch (the same libtorch as mirrortrain)")
    ap.add_argument("--short", type=int, default=20, help="steps of the shorter run")
    ap.add_argument("--long", type=int, default=80, help="steps of the longer run")
    ap.add_argument("--kernel-bench", default=os.path.join(HERE, "..", "build", "bench", "kernel_bench"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--torch-malloc", choices=["tcmalloc", "glibc"], default="tcmalloc",
                    help="PyTorch's allocator: tcmalloc preloaded, as mirrortrain links it (default), or glibc's")
    ap.add_argument("--batches", default="32,256")
    ap.add_argument("--configs", default=",".join(n for n in CONFIGS if n.startswith(("mirror", "torch-1", "torch-2",
                                                                                      "torch-ddp"))
                                                  and (cpu_has_bf16() or not n.endswith("-bf16"))),
                    help="which of: " + ", ".join(CONFIGS) + " (keras-2 and torch-compile-* only when named; "
                         "*-bf16 where the CPU has AVX512_BF16 or AMX-BF16)")
    ap.add_argument("--keras-python", default=os.path.join(HERE, "..", ".venv-seed", "bin", "python"),
                    help="interpreter with TensorFlow for keras-2 (MIRROR_VENV=.venv-seed scripts/setup-python.sh seed)")
    args = ap.parse_args()
    if not os.access(args.mirrortrain, os.X_OK):
        sys.exit(f"error: {args.mirrortrain} is not built; run ./scripts/build.sh first")
    names = [n for n in args.configs.split(",") if n]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown or args.long <= args.short:
        sys.exit(f"error: unknown configurations {unknown}" if unknown else "error: --long must exceed --short")
    batches = [int(b) for b in args.batches.split(",")]
    keras_data = None
    if any(CONFIGS[n][0] == "keras" for n in names):
        if not os.access(args.keras_python, os.X_OK):
            sys.exit(f"error: no TensorFlow interpreter at {args.keras_python}: MIRROR_VENV=.venv-seed scripts/setup-python.sh seed")
        # The tutorial's data as Keras keeps it, from the same generator mirrortrain trains on here.
        keras_dir = tempfile.mkdtemp(prefix="mirror-seed-")
        keras_data = os.path.join(keras_dir, "reuters.npz")
        subprocess.run([args.mirrortrain, "inspect", "--dataset", "synthetic-text", "--samples", "0",
                        "--write-keras-npz", keras_data], check=True, capture_output=True)

    torch_malloc = {}
    if args.torch_malloc == "tcmalloc":
        if not os.path.exists(TCMALLOC):
            sys.exit(f"error: {TCMALLOC} not found (apt install libgoogle-perftools-dev), or pass --torch-malloc glibc")
        torch_malloc = {"LD_PRELOAD": TCMALLOC}
    threads = sorted({CONFIGS[n][2] for n in names})
    blas_peaks = {t: float(subprocess.run([args.python, "-c", GEMM_PEAK, str(t)], check=True, capture_output=True,
                                          text=True, env=with_threads(t)).stdout) for t in threads}
    onednn_peaks = {t: dnnl_peak(args.kernel_bench, t) for t in threads}
    peaks = {t: max(blas_peaks[t], onednn_peaks[t]) for t in threads}
    rates, parts = {}, {}  # (name, batch) -> [marginal samples/s per repeat]; -> breakdown of the last long run
    for rep in range(args.repeats):
        for batch in batches:
            for name in names:
                engine, options, _ = CONFIGS[name]
                if engine == "mirror":
                    make = lambda s: mirror_cmd(args.mirrortrain, options, batch, s)  # noqa: E731
                elif engine == "keras":
                    make = lambda s: keras_cmd(args.keras_python, keras_data, options, batch, s)  # noqa: E731
                else:
                    make = lambda s: torch_cmd(args.python, options, batch, s)  # noqa: E731
                env = dict(with_threads(options["threads"]), **torch_malloc) if engine == "torch" else \
                    with_threads(options["threads"]) if engine == "keras" else None
                # Worker processes meet over a TCP store first, which takes a second or so, give or
                # take: their longer run is 4 times as long, so that this noise does not swamp it.
                per_batch = max(1, 256 // batch)
                short = args.short * per_batch
                long = short + per_batch * (4 if options.get("nproc", 1) > 1 else 1) * (args.long - args.short)
                t_short, out_short = timed(make(short), env)
                t_long, out = timed(make(long), env)
                if engine == "keras":  # TensorFlow's import and start vary by seconds: its own fit time
                    t_short, t_long = json.loads(out_short.splitlines()[-1])["seconds"], json.loads(out.splitlines()[-1])["seconds"]
                rate = (long - short) * batch / (t_long - t_short) if t_long > t_short else float("nan")
                rates.setdefault((name, batch), []).append(rate)
                if engine == "mirror":
                    parts[(name, batch)] = breakdown(out)
        print(f"repeat {rep + 1}/{args.repeats} done", file=sys.stderr, flush=True)

    print(f"PyTorch's allocator: {args.torch_malloc}" + (" (preloaded, as mirrortrain links it)" if torch_malloc else ""))
    print("GEMM peak (1024x1024 float32), LibTorch mm / oneDNN sgemm: " +
          ", ".join(f"{t} thread{'s' if t > 1 else ''} {blas_peaks[t]:.1f} / {onednn_peaks[t]:.1f} GFLOP/s"
                    for t in threads) + "; the fraction of peak is over the faster")
    print(f"training FLOPs per example: {TRAIN_FLOPS_PER_EXAMPLE / 1e6:.2f} M; marginal rates over steps "
          f"{args.short}..{args.long} at batch 256, times 256/batch below it (times 4 more with worker processes), "
          f"median [min-max] of {args.repeats} interleaved repeats\n")
    print(f"{'configuration':<14}{'batch':>6}  {'samples/s':<24}{'% of peak':>10}   replica-0 ms/step: compute / "
          f"all-reduce / update (all-reduce share)")
    for batch in batches:
        for name in names:
            r = rates[(name, batch)]
            peak = peaks[CONFIGS[name][2]] * 1e9
            line = f"{name:<14}{batch:>6}  {spread(r, '{:.0f}'):<24}{100 * median(r) * TRAIN_FLOPS_PER_EXAMPLE / peak:>9.1f}%"
            p = parts.get((name, batch))
            if p:
                total = p["compute_ms"] + p["allreduce_ms"] + p["update_ms"]
                line += (f"   {p['compute_ms']:.2f} / {p['allreduce_ms']:.2f} / {p['update_ms']:.2f}"
                         f" ({100 * p['allreduce_ms'] / total:.0f}%)")
            print(line)
    print(f"\n{'ratio (per repeat)':<36}{'median [min-max]':<22}{'target':>7}")
    for (ours, ref, batch), target in TARGETS.items():
        if (ours, batch) not in rates or (ref, batch) not in rates:
            continue
        ratios = [a / b for a, b in zip(rates[(ours, batch)], rates[(ref, batch)])]
        verdict = "ok" if median(ratios) >= target else "MISSED"
        print(f"{ours + ' / ' + ref + ' @' + str(batch):<36}{spread(ratios, '{:.2f}'):<22}{target:>6.2f}x {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
