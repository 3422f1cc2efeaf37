"""What an exported model computed on sample_input.npy, held against sample_output.npy (what Mirror
Workbench computed): the checks of check_onnx_runtime.py and check_keras_export.py share it."""
import numpy as np

TOLERANCE = 1e-5


def sample(folder):
    """The export's sample inputs and our outputs for them."""
    return (np.load(f"{folder}/sample_input.npy", allow_pickle=False),
            np.load(f"{folder}/sample_output.npy", allow_pickle=False))


def agree(folder, who, got, want, about=""):
    """Exits with FAIL unless `got` has `want`'s shape and agrees to 1e-5 of the outputs' scale;
    else prints the difference found. `who` names the other program, `about` what it ran."""
    got = np.asarray(got)
    if got.shape != want.shape:
        raise SystemExit(f"FAIL: {folder}: {who}'s output shape {got.shape}, ours {want.shape}")
    diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if want.size else 0.0
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    print(f"{folder}: {who}{about}: {want.shape[0]} examples, max |difference| {diff:.2e} (outputs up to {scale:.3g})")
    if not diff <= TOLERANCE * scale:
        raise SystemExit(f"FAIL: {folder}: {who}'s outputs differ from ours by {diff}")
