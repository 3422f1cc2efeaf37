"""Checks model.onnx from `mirrortrain export --format onnx` with ONNX's own checker (full check,
with shape inference) and that it declares opset 13 or newer.

Usage: check_onnx_export.py EXPORT_DIR..."""
import sys

import onnx

def check(folder):
    model = onnx.load(f"{folder}/model.onnx")
    onnx.checker.check_model(model, full_check=True)
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    assert opsets.get("ai.onnx", 0) >= 13, f"opset {opsets}"
    ops = sorted({n.op_type for n in model.graph.node})
    print(f"{folder}: onnx checker: ok, IR {model.ir_version}, opset {opsets['ai.onnx']}, "
          f"{len(model.graph.node)} nodes ({', '.join(ops)}), {len(model.graph.initializer)} initializers")


for folder in sys.argv[1:]:
    check(folder)
