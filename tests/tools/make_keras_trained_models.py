"""Writes .keras files as Keras 3 itself saves them (PyPI's keras on JAX), each model trained for one
epoch on random data with Adam, so that its weights are not an initialiser's and the file holds the
optimizer's variables too (which a reader must pass over). Mirror Workbench then opens each with
`mirrortrain evaluate --model-file`, and tests/tools/check_keras_export.py holds what it computes
against Keras' own predictions (tests/cli/test_keras_weights.sh).

  text-conv-flatten   Embedding, Conv1D, MaxPooling1D(3, "same"), Flatten, Dense, Dense: a Dense
                      after a Flatten of channels-last steps, which the engine holds channels first
  text-softmax        Embedding, Conv1D, GlobalMaxPooling1D, Dense(relu), Dropout, Dense(softmax)
  image-cnn           Conv2D, MaxPooling2D, Conv2D("same", no bias), Flatten, Dense (with --image)
  external-link       text-softmax with its first Dense's weights moved to another HDF5 file behind
                      an external link, which h5py would follow: Mirror Workbench must refuse it

Usage: make_keras_trained_models.py OUT_DIR --vocab V --seq-len L --classes C [--image H,W,CH,CLASSES]"""
import argparse
import os
import shutil
import zipfile

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import h5py  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers  # noqa: E402


def trained(model, x, classes, path):
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=model.layers[-1].activation
                                                                  is not keras.activations.softmax))
    y = np.random.default_rng(1).integers(0, classes, len(x))
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    model.save(path)
    with zipfile.ZipFile(path) as z, z.open("model.weights.h5") as f, h5py.File(f, "r") as h5:
        if "optimizer" not in h5:
            raise SystemExit(f"FAIL: Keras saved no optimizer variables in {path}; the test meant to have them")
    print(f"wrote {path}: {len(model.layers)} layers, {model.count_params()} weights")


def external_link(source, folder):
    """`source` with layers/dense moved out to elsewhere.h5 behind an external link."""
    os.makedirs(folder, exist_ok=True)
    with zipfile.ZipFile(source) as z:
        members = {name: z.read(name) for name in z.namelist()}
    original = os.path.join(folder, "original.weights.h5")
    with open(original, "wb") as f:
        f.write(members["model.weights.h5"])
    elsewhere = os.path.abspath(os.path.join(folder, "elsewhere.h5"))
    linked = os.path.join(folder, "model.weights.h5")
    with h5py.File(original, "r") as src, h5py.File(elsewhere, "w") as out, h5py.File(linked, "w") as dst:
        src.copy("layers/dense", out, name="dense")
        for key in src:
            if key != "layers":
                src.copy(key, dst)
        group = dst.create_group("layers")
        for key in src["layers"]:
            if key == "dense":
                group[key] = h5py.ExternalLink(elsewhere, "/dense")
            else:
                src.copy(f"layers/{key}", group)
    with open(linked, "rb") as f:
        members["model.weights.h5"] = f.read()
    with zipfile.ZipFile(os.path.join(folder, "model.keras"), "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    os.remove(original)
    os.remove(linked)
    print(f"wrote {folder}/model.keras: layers/dense behind an external link to {elsewhere}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--seq-len", type=int, required=True)
    ap.add_argument("--classes", type=int, required=True)
    ap.add_argument("--image", help="H,W,CHANNELS,CLASSES of the image model; none without it")
    a = ap.parse_args()
    keras.utils.set_random_seed(3)
    tokens = np.random.default_rng(0).integers(0, a.vocab, (64, a.seq_len)).astype("int32")

    trained(keras.Sequential([keras.Input((a.seq_len,), dtype="int32"), layers.Embedding(a.vocab, 8),
                              layers.Conv1D(6, 5, activation="relu"), layers.MaxPooling1D(3, padding="same"),
                              layers.Flatten(), layers.Dense(12, activation="tanh"), layers.Dense(a.classes)],
                             name="text_conv_flatten"),
            tokens, a.classes, f"{a.out}/text-conv-flatten/model.keras")
    softmax = f"{a.out}/text-softmax/model.keras"
    trained(keras.Sequential([keras.Input((a.seq_len,), dtype="int32"), layers.Embedding(a.vocab, 8),
                              layers.Conv1D(16, 5, activation="relu"), layers.GlobalMaxPooling1D(),
                              layers.Dense(16, activation="relu"), layers.Dropout(0.5),
                              layers.Dense(a.classes, activation="softmax")], name="text_softmax"),
            tokens, a.classes, softmax)
    external_link(softmax, f"{a.out}/external-link")
    if a.image:
        h, w, ch, classes = (int(v) for v in a.image.split(","))
        images = np.random.default_rng(2).random((64, h, w, ch)).astype("float32")
        trained(keras.Sequential([keras.Input((h, w, ch)), layers.Conv2D(4, 3, activation="relu"),
                                  layers.MaxPooling2D(2), layers.Conv2D(6, (3, 2), padding="same", use_bias=False),
                                  layers.Flatten(), layers.Dense(classes)], name="image_cnn"),
                images, classes, f"{a.out}/image-cnn/model.keras")
    shutil.rmtree(f"{a.out}/__pycache__", ignore_errors=True)


if __name__ == "__main__":
    main()
