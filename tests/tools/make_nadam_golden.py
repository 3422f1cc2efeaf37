#!/usr/bin/env python3
"""Generates tests/core/optim/nadam_golden.h: golden values for the Keras-semantics
Nadam optimizer test.

The trajectory comes from torch.optim.NAdam on float32 parameters. Its maths
equals Keras' Nadam (momentum cache with momentum_decay=0.004, eps added to
sqrt(v_hat)); to show the golden values carry Keras semantics, the script
asserts that an independent float64 implementation of the Keras formulas
reproduces torch's trajectory.

Caveat: before torch 2.0 the default (for-loop) NAdam path computed
mu_product_{t+1} as mu_product_t * mu_t * mu_{t+1}, counting mu_t twice
(fixed by pytorch/pytorch#92699). The foreach path was already correct, so
this script forces foreach=True; the assertions below catch any regression.

    /usr/bin/python3 tests/tools/make_nadam_golden.py > tests/core/optim/nadam_golden.h
"""
import math
import os
import sys

try:
    import numpy as np
    import torch
except ImportError as exc:
    sys.stderr.write(
        f"error: {exc}. Needs PyTorch and NumPy (Debian: python3-torch, "
        "python3-numpy; run with /usr/bin/python3).\n")
    sys.exit(2)

P0 = [0.5, -1.2, 3.0, 0.0, -0.01, 2.5, 1e-3, -4.0]
W = [1.0, 2.0, 0.5, 3.0, 1.0, 0.25, 10.0, 0.1]
C = [1.0, 0.0, -1.0, 2.0, 0.5, 2.5, 0.0, -3.0]
LR, BETA1, BETA2, EPS, MOMENTUM_DECAY = 0.01, 0.9, 0.999, 1e-7, 0.004
NUM_STEPS = 25
CHECK_STEPS = [1, 2, 5, 10, 25]


def torch_trajectory(dtype, foreach=True):
    """Parameters after every step (index t-1 = after step t), via torch NAdam.

    Loss is sum_i w_i*(p_i - c_i)^2; its gradient comes from autograd."""
    # torch keeps mu_product as a tensor of the default dtype; make it match
    # the parameters so a float64 run really is float64 throughout.
    saved_default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        # Start from the float32-rounded P0 in every precision (as the C++
        # test and the Keras reference do).
        p = torch.tensor(np.float32(P0), dtype=dtype, requires_grad=True)
        w = torch.tensor(W, dtype=dtype)
        c = torch.tensor(C, dtype=dtype)
        opt = torch.optim.NAdam([p], lr=LR, betas=(BETA1, BETA2), eps=EPS,
                                momentum_decay=MOMENTUM_DECAY, weight_decay=0,
                                foreach=foreach)
        out = []
        for _ in range(NUM_STEPS):
            opt.zero_grad()
            (w * (p - c) ** 2).sum().backward()
            opt.step()
            out.append(p.detach().clone().numpy())
    finally:
        torch.set_default_dtype(saved_default)
    return np.array(out)


def keras_nadam_trajectory():
    """Hand-written float64 Nadam following Keras' update rule."""
    p = np.array(P0, dtype=np.float32).astype(np.float64)  # same start as torch
    w, c = np.array(W), np.array(C)
    m, v = np.zeros_like(p), np.zeros_like(p)
    u_product = 1.0
    out = []
    for t in range(1, NUM_STEPS + 1):
        g = 2.0 * w * (p - c)
        u_t = BETA1 * (1.0 - 0.5 * 0.96 ** (MOMENTUM_DECAY * t))
        u_t1 = BETA1 * (1.0 - 0.5 * 0.96 ** (MOMENTUM_DECAY * (t + 1)))
        u_product_t = u_product * u_t
        u_product_t1 = u_product_t * u_t1
        u_product = u_product_t
        m = BETA1 * m + (1.0 - BETA1) * g
        v = BETA2 * v + (1.0 - BETA2) * g * g
        m_hat = u_t1 * m / (1.0 - u_product_t1) + (1.0 - u_t) * g / (1.0 - u_product_t)
        v_hat = v / (1.0 - BETA2 ** t)
        p = p - LR * m_hat / (np.sqrt(v_hat) + EPS)
        out.append(p.copy())
    return np.array(out)


def max_rel_err(a, b, floor=1e-30):
    """Max of |a-b| / max(|b|, floor), b being the float64 reference."""
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), floor)))


def f32_literal(x):
    """C++ float literal with 9 significant digits (round-trips float32)."""
    x = np.float32(x)
    s = f"{float(x):.9g}"
    assert np.float32(s) == x, (s, x)
    if "." not in s and "e" not in s and "n" not in s:
        s += ".0"  # "3" -> "3.0" so that the f suffix is legal C++
    return s + "f"


def array_row(values):
    return "{" + ", ".join(f32_literal(x) for x in values) + "}"


def main():
    keras64 = keras_nadam_trajectory()

    # 1) torch in float64 vs the Keras formulas: identical maths, so the
    #    agreement must be at round-off level. Errors are measured relative
    #    to max(|p|, lr): p[6] oscillates around its target 0 (|p| down to
    #    ~2e-6), where a pure relative error only measures round-off noise.
    err64 = max_rel_err(torch_trajectory(torch.float64), keras64, floor=LR)
    assert err64 < 1e-12, f"torch float64 NAdam differs from Keras Nadam: {err64}"
    # Diagnostic only: does this torch's default for-loop path agree too?
    loop64 = max_rel_err(torch_trajectory(torch.float64, foreach=False), keras64,
                         floor=LR)
    if loop64 > 1e-12:
        sys.stderr.write(f"note: torch {torch.__version__} for-loop NAdam is not "
                         f"Keras Nadam (max rel diff {loop64:.3g}); using foreach\n")

    # 2) the float32 trajectory used for the golden values agrees with the
    #    float64 Keras reference to 1e-5 relative (same scale floor).
    traj32 = torch_trajectory(torch.float32)
    err32 = max_rel_err(traj32.astype(np.float64), keras64, floor=LR)
    assert err32 < 1e-5, f"torch float32 NAdam differs from Keras Nadam: {err32}"
    sys.stderr.write(f"max rel err vs Keras float64: torch f64 {err64:.3g}, "
                     f"torch f32 {err32:.3g}\n")

    script = os.path.relpath(os.path.abspath(__file__),
                             os.path.join(os.path.dirname(__file__), "..", ".."))
    lines = [
        "// Generated by " + script + " -- do not edit by hand.",
        f"// torch {torch.__version__}, numpy {np.__version__}: "
        "torch.optim.NAdam(foreach=True) on float32 parameters,",
        f"// lr={LR}, betas=({BETA1}, {BETA2}), eps={EPS}, "
        f"momentum_decay={MOMENTUM_DECAY}, weight_decay=0.",
        "// Loss per step: sum_i w_i * (p_i - c_i)^2, gradient 2 * w * (p - c).",
        "// Checked in the generator against a float64 implementation of Keras'",
        f"// Nadam formulas: max |diff| / max(|p|, lr) = {err32:.2g}.",
        "#pragma once",
        "",
        "namespace mirror::testing {",
        "",
        f"constexpr float kNadamLr = {LR!r}f;",
        f"constexpr float kNadamBeta1 = {BETA1!r}f;",
        f"constexpr float kNadamBeta2 = {BETA2!r}f;",
        f"constexpr float kNadamEps = {EPS!r}f;",
        f"constexpr float kNadamMomentumDecay = {MOMENTUM_DECAY!r}f;",
        "",
        f"constexpr float kNadamP0[8] = {array_row(P0)};",
        f"constexpr float kNadamW[8] = {array_row(W)};",
        f"constexpr float kNadamC[8] = {array_row(C)};",
        "",
        "// Step numbers (1-based) at which kNadamAfterStep rows are taken.",
        f"constexpr int kNadamCheckSteps[{len(CHECK_STEPS)}] = "
        "{" + ", ".join(str(s) for s in CHECK_STEPS) + "};",
        "",
        "// Parameters after steps 1, 2, 5, 10 and 25.",
        f"constexpr float kNadamAfterStep[{len(CHECK_STEPS)}][8] = {{",
    ]
    lines += [f"    {array_row(traj32[s - 1])},  // step {s}" for s in CHECK_STEPS]
    lines += ["};", "", "}  // namespace mirror::testing", ""]
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
