"""Loads an export of a Keras model file as a PyTorch user would (`from model import Model`, the
export folder on sys.path) and checks that the names survived as data: LAYER_NAMES gives back
every layer name of the file in order, TITLE holds the model's name, and model.pt's keys are
"<attribute>.<parameter>" for attributes that LAYER_NAMES lists.

Usage: check_export_names.py KERAS_JSON EXPORT_DIR
Run it in an empty folder: a name that ran as code would leave files there (see
make_hostile_keras_fixtures.py), which the caller looks for."""
import json
import sys

import torch

keras_file, folder = sys.argv[1], sys.argv[2]
sys.path.insert(0, folder)
from model import LAYER_NAMES, TITLE, Model  # noqa: E402  (the import under test)

with open(keras_file, encoding="utf-8") as f:
    config = json.load(f)["config"]
names = [layer["config"]["name"] for layer in config["layers"] if layer["class_name"] != "InputLayer"]
assert list(LAYER_NAMES.values()) == names, f"LAYER_NAMES {list(LAYER_NAMES.values())!r} != the file's {names!r}"
assert config["name"] in TITLE, f"TITLE {TITLE!r} lacks the model name {config['name']!r}"
state = torch.load(f"{folder}/model.pt")
attributes = {key.split(".")[0] for key in state}
assert attributes <= set(LAYER_NAMES), f"model.pt keys of no layer: {attributes - set(LAYER_NAMES)}"
Model().load_state_dict(state)
print(f"{folder}: names: {len(names)} layer names and the model name kept as data, {len(state)} tensors")
