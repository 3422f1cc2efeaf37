"""Runs model.onnx from `mirrortrain export --format onnx` in ONNX Runtime (PyPI's onnxruntime, CPU)
on sample_input.npy and checks the outputs against sample_output.npy, what Mirror Workbench
computed: they must agree to 1e-5 of the outputs' scale.

Usage: check_onnx_runtime.py EXPORT_DIR...   (the project venv's Python: scripts/setup-python.sh)"""
import sys

import onnxruntime as ort

from sample_agreement import agree, sample


def check(folder):
    x, want = sample(folder)
    session = ort.InferenceSession(f"{folder}/model.onnx", providers=["CPUExecutionProvider"])
    (got,) = session.run(["output"], {"input": x})
    agree(folder, f"onnxruntime {ort.__version__}", got, want)


for folder in sys.argv[1:]:
    check(folder)
