#!/usr/bin/env python3
"""Plain-PyTorch throughput reference for the "seed-reuters" model.

Trains the Keras-tutorial Reuters Conv1D classifier on synthetic data and
reports training throughput, as the baseline the Mirror Workbench C++ engine
is compared against.

    python3 bench/pytorch_reference.py --mode single --batch-size 32
    python3 bench/pytorch_reference.py --mode ddp --procs 2 --batch-size 256
    python3 bench/pytorch_reference.py --mode single --device cuda --batch-size 32

Exactly one JSON line is written to stdout; all diagnostics go to stderr.
"""
import argparse
import json
import os
import socket
import sys
import time

try:
    import numpy as np
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as exc:  # give a clear hint instead of a bare traceback
    sys.stderr.write(
        f"error: {exc}. This benchmark needs PyTorch and NumPy; on Debian "
        "install python3-torch and python3-numpy and run it with the system "
        "interpreter (/usr/bin/python3).\n")
    sys.exit(2)

VOCAB = 30982        # Embedding rows (token ids 0..30981, 0 = padding)
EMBED_DIM = 7
SEQ_LEN = 300
NUM_CLASSES = 46
EXPECTED_PARAMS = 332_856
DATA_SEED = 1234     # fixed numpy seed for the synthetic data
POOL_BATCHES = 4     # distinct global batches generated, then cycled


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


class SeedReuters(nn.Module):
    """Embedding -> Conv1D(64,5) -> Pool2 -> Conv1D(32,3) -> Pool2 -> Dense(46)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED_DIM)
        self.conv1 = nn.Conv1d(EMBED_DIM, 64, kernel_size=5)  # 300 -> 296
        self.conv2 = nn.Conv1d(64, 32, kernel_size=3)         # 148 -> 146
        self.fc = nn.Linear(32 * 73, NUM_CLASSES)             # 2336 -> 46 logits

    def forward(self, tokens):
        x = self.embed(tokens).transpose(1, 2)        # (B,300,7) -> (B,7,300)
        x = F.max_pool1d(F.relu(self.conv1(x)), 2)    # (B,64,148)
        x = F.max_pool1d(F.relu(self.conv2(x)), 2)    # (B,32,73)
        # Flatten is channel-major here (Keras flattens (B,73,32) time-major);
        # the ordering only permutes fc weights and does not affect cost.
        return self.fc(x.flatten(1))


def make_data(batch_size):
    """Synthetic Reuters-shaped data, Keras-style pre-padded with zeros."""
    rng = np.random.RandomState(DATA_SEED)
    n = POOL_BATCHES * batch_size
    tokens = rng.randint(1, VOCAB, size=(n, SEQ_LEN)).astype(np.int64)
    lengths = rng.randint(20, SEQ_LEN + 1, size=n)
    for i, length in enumerate(lengths):
        tokens[i, :SEQ_LEN - length] = 0       # padding goes in front
    labels = rng.randint(0, NUM_CLASSES, size=n).astype(np.int64)
    return torch.from_numpy(tokens), torch.from_numpy(labels)


def shard_bounds(batch_size, rank, procs):
    """[lo, hi) of this rank's shard; shard sizes differ by at most one."""
    base, extra = divmod(batch_size, procs)
    lo = rank * base + min(rank, extra)
    return lo, lo + base + (1 if rank < extra else 0)


def set_threads(threads):
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError as exc:  # only allowed before any inter-op work
        log(f"note: set_num_interop_threads(1) refused: {exc}")


def train(rank, procs, args, port, results):
    """Runs warmup + timed steps; rank 0 puts its result in `results`."""
    device = torch.device(args.device)
    if device.type == "cpu":
        set_threads(args.threads)
    distributed = args.mode == "ddp"
    if distributed:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                                rank=rank, world_size=procs)

    torch.manual_seed(0)  # identical initial weights on every rank
    model = SeedReuters().to(device)
    n_params = sum(p.numel() for p in model.parameters())
    assert n_params == EXPECTED_PARAMS, f"param count {n_params} != {EXPECTED_PARAMS}"
    if distributed:
        model = nn.parallel.DistributedDataParallel(model)
    # foreach=True: before torch 2.0 the default for-loop NAdam counted mu_t
    # twice in mu_product_{t+1} (pytorch/pytorch#92699); the foreach path has
    # Keras' Nadam maths, like the C++ engine. Per-element cost is the same.
    opt = torch.optim.NAdam(model.parameters(), lr=1e-3, eps=1e-7, foreach=True)

    B = args.batch_size
    tokens, labels = make_data(B)
    lo, hi = shard_bounds(B, rank, procs)
    # DDP averages gradients over ranks, so scaling the local summed loss by
    # procs / B yields exactly the gradient of the mean loss over the global
    # batch, even when the shards are uneven.
    scale = procs / B
    batches = [(tokens[k * B + lo:k * B + hi], labels[k * B + lo:k * B + hi])
               for k in range(POOL_BATCHES)]
    if device.type == "cuda":
        # Like the engine: each step's shard comes from pinned host memory, copied asynchronously.
        batches = [(x.pin_memory(), y.pin_memory()) for x, y in batches]
    if rank == 0:
        log(f"[{args.mode}] procs={procs} global_batch={B} shard0={hi - lo} "
            f"params={n_params} threads={torch.get_num_threads()} "
            f"interop={torch.get_num_interop_threads()}")

    forward, update = model, opt.step
    if args.compile:
        # PyTorch's strongest single-GPU setting: the model compiled with CUDA graphs
        # ("reduce-overhead") and the optimizer step compiled too (its own recipe); both compile
        # during the warm-up steps.
        forward = torch.compile(model, mode="reduce-overhead")
        update = torch.compile(opt.step, mode="reduce-overhead")

    def step(k):
        x, y = batches[k % POOL_BATCHES]
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        opt.zero_grad(set_to_none=not args.compile)
        loss = F.cross_entropy(forward(x), y, reduction="sum") * scale
        loss.backward()
        update()
        return loss

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for k in range(args.warmup):
        step(k)
    sync()
    if distributed:
        dist.barrier()  # all ranks start the clock together
    t0 = time.perf_counter()
    for k in range(args.steps):
        loss = step(args.warmup + k)
    sync()
    if distributed:
        dist.barrier()  # wait until every rank has finished its last step
    elapsed = time.perf_counter() - t0

    if rank == 0:
        log(f"[{args.mode}] last loss (rank-0 contribution) {loss.item():.4f}, "
            f"{elapsed:.3f} s for {args.steps} steps")
        results.put(elapsed)
    if distributed:
        dist.destroy_process_group()


def free_port():
    """Asks the OS for an unused loopback TCP port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=["single", "ddp"], default="single")
    ap.add_argument("--procs", type=int, default=2, help="processes (ddp only)")
    ap.add_argument("--batch-size", type=int, default=32, help="global batch")
    ap.add_argument("--steps", type=int, default=60, help="timed steps")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (single mode only)")
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads per process (CPU)")
    ap.add_argument("--compile", action="store_true",
                    help='torch.compile(mode="reduce-overhead") for the model and the optimizer step (torch >= 2.0)')
    args = ap.parse_args()
    if args.compile and not hasattr(torch, "compile"):
        ap.error(f"--compile needs torch >= 2.0 (this is {torch.__version__})")
    if args.device != "cpu" and (args.mode != "single" or not torch.cuda.is_available()):
        ap.error("--device cuda needs --mode single and a GPU that torch can use")
    procs = args.procs if args.mode == "ddp" else 1
    if procs < 1 or args.batch_size < procs or args.steps < 1 or args.warmup < 0:
        ap.error("need procs >= 1, batch-size >= procs, steps >= 1, warmup >= 0")

    ctx = mp.get_context("spawn")
    results = ctx.SimpleQueue()
    if args.mode == "single":
        train(0, 1, args, None, results)
    else:
        # Keep gloo on loopback: this machine may have no usable network.
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        mp.spawn(train, args=(procs, args, free_port(), results),
                 nprocs=procs, join=True)
    elapsed = results.get()

    print(json.dumps({
        "mode": args.mode,
        "procs": procs,
        "batch_size": args.batch_size,
        "steps": args.steps,
        "samples_per_sec": args.batch_size * args.steps / elapsed,
        "step_ms": 1000.0 * elapsed / args.steps,
        "torch": torch.__version__,
        "device": args.device,
        "compiled": args.compile,
    }), flush=True)


if __name__ == "__main__":
    main()
