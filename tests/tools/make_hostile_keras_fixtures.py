#!/usr/bin/env python3
"""Writes the hostile Keras model files of tests/fixtures/keras_models/ (model.to_json() output,
tf.keras 2.x layout, as tutorial_keras2.json), whose model and layer names try to run code in an
exported model.py. Each payload creates a file named pwned_by_* in the current folder when it
runs, so a test runs Python in an empty folder and then looks for such files.

  hostile_names.json       every kind of hostile name: newlines and quotes with Python after
                           them, keywords, nn.Module attributes, dunder names, non-ASCII (é, 中文,
                           RTL marks, U+2028), NUL and ESC, 10,000 characters, names equal after
                           sanitising ("a b" and "a_b").
  comment_injection.json   only names that earlier versions wrote raw into '#' comments (the
                           title at import, a pooling layer in every forward()), so their model.py
                           still parsed, and ran them.

Layer sizes fit the synthetic-text dataset (sequences of 300 ids, 30,982 words, 46 topics).
Deterministic; rerun from the repository root: python3 tests/tools/make_hostile_keras_fixtures.py
"""
import json
import os

OUT = "tests/fixtures/keras_models"


def run(marker):
    """A payload: Python that creates pwned_by_<marker> in the current folder."""
    return f"open('pwned_by_{marker}', 'w')"


def layer(cls, name, **config):
    return {"class_name": cls, "config": {"name": name, "trainable": True, "dtype": "float32", **config}}


def model(name, layers):
    first = {"class_name": "InputLayer",
             "config": {"batch_input_shape": [None, 300], "dtype": "float32", "name": "input\n" + run("input")}}
    return {"class_name": "Sequential", "config": {"name": name, "layers": [first] + layers},
            "keras_version": "2.15.0", "backend": "tensorflow"}


def conv(name, filters, kernel, activation="linear"):
    return layer("Conv1D", name, filters=filters, kernel_size=[kernel], strides=[1], padding="valid",
                 data_format="channels_last", dilation_rate=[1], groups=1, activation=activation, use_bias=True)


hostile = model("hostile\n" + run("model_name") + "\n#", [
    layer("Embedding", "emb\n" + run("embedding") + "\n#", input_dim=30982, output_dim=4),
    conv('"); ' + run("quote").replace("'", '"') + ' #', 4, 3, "relu"),
    layer("MaxPooling1D", "class", pool_size=[2], strides=[2], padding="valid", data_format="channels_last"),
    layer("Dropout", "forward", rate=0.1),
    conv("__class__", 4, 2),
    layer("GlobalMaxPooling1D", "_modules\n" + run("pool"), data_format="channels_last"),
    layer("Dense", "training", units=8, activation="relu"),
    layer("Activation", "\u00e9 \u4e2d\u6587 \u200f\u202e\u2028" + run("unicode_line_separator"), activation="gelu"),
    layer("Dense", "a b", units=5),
    layer("Dense", "a_b", units=5),
    layer("Dropout", "eval", rate=0.1),
    layer("Activation", "\u0000\u001b[31mnul esc\u007f", activation="tanh"),
    layer("Dropout", "lambda", rate=0.0),
    layer("Activation", "def\r\n" + run("crlf"), activation="tanh"),
    layer("Flatten", "type", data_format="channels_last"),
    layer("Dense", "z" * 4970 + "\n" + run("long_name") + "\n" + "z" * (10000 - 4971 - len(run("long_name")) - 1),
          units=46, activation="softmax"),
])

comment_injection = model("m\n" + run("title") + "\n#", [
    layer("Embedding", "embedding", input_dim=30982, output_dim=4),
    # Indented as forward()'s body, so the injected line runs on every call.
    layer("GlobalAveragePooling1D", "pool\n        " + run("forward_comment") + "  #", data_format="channels_last"),
    layer("Dense", "dense", units=46, activation="softmax"),
])

for file, m in (("hostile_names.json", hostile), ("comment_injection.json", comment_injection)):
    with open(os.path.join(OUT, file), "w", encoding="ascii") as f:
        json.dump(m, f, ensure_ascii=True)
        f.write("\n")
