"""Loads an export made by `mirrortrain export --format pt` the way a PyTorch user would
(torch.load of model.pt into the generated model.py's Model) and checks that it computes what
Mirror Workbench computed for the same inputs (sample_input.npy -> sample_output.npy).

Usage: check_pytorch_export.py EXPORT_DIR...   (outputs must agree to 1e-5 of their scale)"""
import importlib.util
import sys
import warnings

import numpy as np
import torch

TOLERANCE = 1e-5
# Said by PyTorch 1.13 for every "same" convolution with an even kernel; true, and not our concern.
warnings.filterwarnings("ignore", message="Using padding='same' with even kernel")


def check(folder):
    spec = importlib.util.spec_from_file_location("exported_model", f"{folder}/model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.Model()
    state = torch.load(f"{folder}/model.pt")
    assert isinstance(state, dict), f"model.pt holds {type(state).__name__}, expected a state dict"
    model.load_state_dict(state)  # strict: every name and shape must match
    model.eval()
    x = np.load(f"{folder}/sample_input.npy")
    want = np.load(f"{folder}/sample_output.npy")
    with torch.no_grad():
        got = model(torch.from_numpy(x)).numpy()
    assert got.shape == want.shape, f"output shape {got.shape}, ours {want.shape}"
    diff = float(np.abs(got - want).max())
    scale = max(1.0, float(np.abs(want).max()))
    print(f"{folder}: pytorch: {len(state)} tensors, {x.shape[0]} examples, max |difference| {diff:.2e} (outputs up to {scale:.3g})")
    assert diff <= TOLERANCE * scale, f"PyTorch's outputs differ from ours by {diff} (> {TOLERANCE} x {scale})"


for folder in sys.argv[1:]:
    check(folder)
