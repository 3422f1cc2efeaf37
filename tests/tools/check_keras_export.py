"""Opens model.keras from `mirrortrain export --format keras` with Keras 3's own loader (PyPI's
keras, on its JAX backend, safe_mode on) and checks its predictions on sample_input.npy against
sample_output.npy, what Mirror Workbench computed: they must agree to 1e-5 of the outputs' scale.
Also checks that the file is laid out as Keras itself lays out what it saves: the members, the
weights' groups and their "name" attributes.

Usage: check_keras_export.py EXPORT_DIR...   (the project venv's Python: scripts/setup-python.sh keras)"""
import json
import os
import sys
import zipfile

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import h5py  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
from sample_agreement import agree, sample  # noqa: E402


def layout(folder, model):
    with zipfile.ZipFile(f"{folder}/model.keras") as z:
        names = [i.filename for i in z.infolist()]
        if sorted(names) != ["config.json", "metadata.json", "model.weights.h5"]:
            raise SystemExit(f"FAIL: {folder}: model.keras holds {names}")
        meta = json.loads(z.read("metadata.json"))
        if not meta.get("keras_version", "").startswith("3."):
            raise SystemExit(f"FAIL: {folder}: metadata.json says {meta}")
        with z.open("model.weights.h5") as f, h5py.File(f, "r") as h5:
            for layer, path in zip(model.layers, keras_paths(model.layers)):
                group = h5[f"layers/{path}/vars"]
                # HDF5 strings end at a NUL (h5py refuses to write one; Keras could not save such a name).
                if group.attrs["name"] != layer.name.split("\0")[0]:
                    raise SystemExit(f"FAIL: {folder}: {path}/vars is named {group.attrs['name']!r}, the layer {layer.name!r}")
                if len(group) != len(layer.weights):
                    raise SystemExit(f"FAIL: {folder}: {path} holds {len(group)} variables, Keras' {layer.name} has {len(layer.weights)}")


def keras_paths(layers):
    """layers/<snake_case class>[_N]: Keras numbers the layers of one class in order."""
    seen = {}
    for layer in layers:
        base = keras.src.utils.naming.to_snake_case(type(layer).__name__)
        n = seen.get(base, 0)
        seen[base] = n + 1
        yield base if n == 0 else f"{base}_{n}"


def check(folder):
    x, want = sample(folder)
    model = keras.models.load_model(f"{folder}/model.keras", compile=False, safe_mode=True)
    layout(folder, model)
    got = model.predict(x.astype(np.int32) if x.dtype == np.int64 else x, verbose=0)
    agree(folder, f"keras {keras.__version__} ({keras.backend.backend()})", got, want, f", {len(model.layers)} layers")


for folder in sys.argv[1:]:
    check(folder)
