#!/usr/bin/env python3
"""Which files Keras' image_dataset_from_directory (and text_dataset_from_directory) puts in the
training and the validation subset of a folder, for a seed and a validation_split.

A reimplementation, with numpy only (no TensorFlow or Keras needed), of the rule in Keras 3's
keras/src/utils/dataset_utils.py: index_directory (labels="inferred"), iter_valid_files,
index_subdirectory and get_training_or_validation_split. The core tests compare the workbench's
split with what this prints.

    python3 tests/tools/keras_directory_split.py "SEED SPLIT FOLLOW_LINKS EXTS DIR"
      EXTS: comma-separated, e.g. .bmp,.gif,.jpeg,.jpg,.png ; FOLLOW_LINKS: 0 or 1

Prints "class NAME" per class in label order, then "train PATH LABEL" and "validation PATH LABEL"
lines in Keras' order.
"""
import os
import sys

import numpy as np


def class_folders(directory):
    # Subfolders (os.path.isdir follows links) not starting with ".", by sorted name.
    names = []
    for name in sorted(os.listdir(directory)):
        if os.path.isdir(os.path.join(directory, name)) and not name.startswith("."):
            names.append(name)
    return names


def files_of_class(directory, name, follow_links, extensions):
    # os.walk of the class folder; folders in order of their path, files by name; the match is
    # on the lower-cased name's ending.
    top = os.path.join(directory, name)
    found = []
    for root, _dirs, files in sorted(os.walk(top, followlinks=follow_links), key=lambda entry: entry[0]):
        for fname in sorted(files):
            if fname.lower().endswith(extensions):
                relative = os.path.join(name, os.path.relpath(os.path.join(root, fname), top))
                found.append(relative)
    return found


def split(directory, seed, validation_split, follow_links, extensions):
    classes = class_folders(directory)
    paths, labels = [], []
    for label, name in enumerate(classes):
        for relative in files_of_class(directory, name, follow_links, extensions):
            paths.append(os.path.join(directory, relative))
            labels.append(label)
    labels = np.array(labels, dtype="int32")
    # The same seed shuffles the paths and, with a new generator, the labels.
    np.random.RandomState(seed).shuffle(paths)
    np.random.RandomState(seed).shuffle(labels)
    if not validation_split:
        return classes, list(zip(paths, labels)), []
    held_out = int(validation_split * len(paths))
    pairs = list(zip(paths, labels))
    return classes, pairs[:-held_out], pairs[-held_out:]


def main():
    seed, share, follow, extensions, directory = sys.argv[1].split(" ", 4)
    classes, train, validation = split(directory, int(seed), float(share), follow == "1",
                                       tuple(extensions.split(",")))
    for name in classes:
        print("class", name)
    for path, label in train:
        print("train", path, int(label))
    for path, label in validation:
        print("validation", path, int(label))


if __name__ == "__main__":
    main()
