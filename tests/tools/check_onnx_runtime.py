"""Runs model.onnx from `mirrortrain export --format onnx` in ONNX Runtime (PyPI's onnxruntime, CPU)
on sample_input.npy and checks the outputs against sample_output.npy, what Mirror Workbench
computed: they must agree to 1e-5 of the outputs' scale.

Usage: check_onnx_runtime.py EXPORT_DIR...   (the project venv's Python: scripts/setup-python.sh)"""
import sys

import numpy as np
import onnxruntime as ort

TOLERANCE = 1e-5


def check(folder):
    x = np.load(f"{folder}/sample_input.npy", allow_pickle=False)
    want = np.load(f"{folder}/sample_output.npy", allow_pickle=False)
    session = ort.InferenceSession(f"{folder}/model.onnx", providers=["CPUExecutionProvider"])
    (got,) = session.run(["output"], {"input": x})
    if got.shape != want.shape:
        raise SystemExit(f"FAIL: {folder}: output shape {got.shape}, ours {want.shape}")
    diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if want.size else 0.0
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    print(f"{folder}: onnxruntime {ort.__version__}: {x.shape[0]} examples, "
          f"max |difference| {diff:.2e} (outputs up to {scale:.3g})")
    if not diff <= TOLERANCE * scale:
        raise SystemExit(f"FAIL: {folder}: ONNX Runtime's outputs differ from ours by {diff}")


for folder in sys.argv[1:]:
    check(folder)
