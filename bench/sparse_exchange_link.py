#!/usr/bin/python3
"""The seed (seed-reuters on synthetic-text, batch 32) trained by 2 worker processes in three ways:
the embedding's gradient exchanged as the rows a step touched and the last layers' gradients
crossing during backward (`rows+overlap`: --sparse-exchange on --overlap on, the defaults), the
rows alone (`rows`: --overlap off), and everything whole after backward (`whole`: both off, as
before issue 50): over loopback (--nproc 2), and between two network namespaces joined by a veth pair shaped with
`tc ... tbf` to each --rates (default 1 Gbit/s), as on two machines (needs root, `ip netns add`
and `ip netns exec`; that part is skipped with the reason where either fails).

The what-if beside them: each repeat's loopback run of each way predicts the shaped link's step
(`mirrortrain predict RUN --devices 2 --link latency=0us,bandwidth=RATE`); the table gives the
median of those predictions and their error against the measured median.

A step is rank 0's `step_seconds` in metrics.jsonl, median over the steps after the first 4;
bytes are rank 0's `exchange_bytes`, median. Every configuration runs once per repeat in a rotated
order; the table gives the median of the repeats with their range, and each way's ratio to
`whole` per repeat.

    sudo /usr/bin/python3 bench/sparse_exchange_link.py [--mirrortrain build/app/mirrortrain] [--repeats 3]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whatif_validate as wv  # noqa: E402  (its namespaces, runs and step medians)

BATCH = 32
STEPS = 40


# way -> (--sparse-exchange, --overlap)
WAYS = {"rows+overlap": ("on", "on"), "rows": ("on", "off"), "whole": ("off", "off")}


def args_for(way, steps=STEPS):
    sparse, overlap = WAYS[way]
    return ["train", "--preset", "seed-reuters", "--dataset", "synthetic-text", "--batch-size", str(BATCH),
            "--epochs", "1", "--max-steps", str(steps), "--logical", "1", "--threads", "1", "--sync-every", "0",
            "--checkpoint-every", "0", "--timeout", "120", "--sparse-exchange", sparse, "--overlap", overlap]


def bytes_of(run_dir):
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        rows = [json.loads(line) for line in f if '"type":"step"' in line]
    return statistics.median(r.get("exchange_bytes", 0) for r in rows[wv.WARMUP_STEPS:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrortrain", default=os.path.join(os.path.dirname(__file__), "..", "build", "app", "mirrortrain"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rates", default="1gbit", help="tbf rates of the shaped links, comma-separated")
    a = ap.parse_args()
    binary = os.path.abspath(a.mirrortrain)
    why_not = wv.Namespaces.probe()
    links = ["loopback"] + ([] if why_not else a.rates.split(","))
    if why_not:
        print(f"shaped links skipped: {why_not}")
    configs = [(link, way) for link in links for way in WAYS]
    results = {c: [] for c in configs}
    tmp = tempfile.mkdtemp(prefix="mirror-sparse-")
    port = 29700 + os.getpid() % 200
    for rep in range(a.repeats):
        order = configs[rep % len(configs):] + configs[:rep % len(configs)]
        for link, way in order:
            run_dir = os.path.join(tmp, f"{link}-{way}-{rep}")
            if link == "loopback":
                wv.run([binary, *args_for(way), "--nproc", "2", "--run-dir", run_dir])
            else:
                with wv.Namespaces() as ns:
                    ns.shape(link)
                    port += 1
                    ns.train(binary, args_for(way), run_dir, port)
            m = wv.measured(run_dir)
            results[(link, way)].append((BATCH / (m["step"] / 1e3), m["step"], bytes_of(run_dir), run_dir))
        print(f"repeat {rep + 1}/{a.repeats} done", file=sys.stderr)
    print(f"seed-reuters, batch {BATCH}, 2 processes x 1 replica, 1 thread each; median [min-max] of {a.repeats} repeats\n")
    print(f"{'link':10} {'exchange':13} {'samples/s':>22} {'step ms':>8} {'bytes/step':>12}")
    for link, way in configs:
        r = results[(link, way)]
        rates = [x[0] for x in r]
        print(f"{link:10} {way:13} {statistics.median(rates):>9.0f} "
              f"[{min(rates):.0f}-{max(rates):.0f}]".ljust(48) +
              f"{statistics.median(x[1] for x in r):>8.2f} {statistics.median(x[2] for x in r):>12,.0f}")
    print()
    for link in links:
        for way in ("rows+overlap", "rows"):
            ratios = sorted(s[0] / d[0] for s, d in zip(results[(link, way)], results[(link, "whole")]))
            bytes_ratio = statistics.median(x[2] for x in results[(link, "whole")]) / statistics.median(
                x[2] for x in results[(link, way)])
            print(f"{link}: {way} / whole {statistics.median(ratios):.2f} [{ratios[0]:.2f}-{ratios[-1]:.2f}] "
                  f"samples/s, {bytes_ratio:.2f}x fewer bytes")
    if len(links) > 1:
        print("\nthe what-if from each loopback run: step ms predicted, median [range], against measured")
    for link in links[1:]:
        bandwidth = f"{wv.parse_rate(link) / 8e6:g}MB"
        for way in WAYS:
            predicted = [wv.predict(binary, r[3], [2], link=f"latency=0us,bandwidth={bandwidth}")[0][2]["step"]
                         for r in results[("loopback", way)]]
            measured_ms = statistics.median(x[1] for x in results[(link, way)])
            error = (statistics.median(predicted) - measured_ms) / measured_ms
            print(f"{link}: {way:13} {wv.fmt_range(predicted, 2)} against {measured_ms:.2f}: {100 * error:+.0f}%")


if __name__ == "__main__":
    main()
