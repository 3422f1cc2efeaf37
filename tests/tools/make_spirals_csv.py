#!/usr/bin/env python3
"""Writes a 2-D spiral point set as a CSV table (x,y,arm), for training `--dataset table` on it.

Usage: make_spirals_csv.py OUT.csv [--points N] [--arms K] [--noise S] [--seed N] [--words]
Arms interleave like the built-in spirals set: radius grows with the angle. --words names the
classes ("arm a", "arm b", ...) instead of ids 0..K-1. Python's standard library only.
"""
import argparse
import csv
import math
import random


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--points", type=int, default=1500)
    p.add_argument("--arms", type=int, default=3)
    p.add_argument("--noise", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--words", action="store_true")
    a = p.parse_args()
    rng = random.Random(a.seed)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x", "y", "arm"])
        for i in range(a.points):
            arm = i % a.arms
            t = rng.random()
            angle = 2 * math.pi * 1.5 * t + 2 * math.pi * arm / a.arms
            r = 0.1 + 0.9 * t
            x = r * math.cos(angle) + a.noise * r * rng.gauss(0, 1)
            y = r * math.sin(angle) + a.noise * r * rng.gauss(0, 1)
            w.writerow([f"{x:.5f}", f"{y:.5f}", f"arm {chr(97 + arm)}" if a.words else arm])


if __name__ == "__main__":
    main()
