#!/usr/bin/env python3
"""The seed itself: the Keras tutorial's Reuters program (TensorFlow 2.x + Keras 3, MirroredStrategy
over logical CPU devices), on a Keras-format reuters.npz, for bench/seed_side_by_side.sh and
bench/reuters_throughput.py (configuration keras-2).

As the tutorial has it: MAX_LEN 300, pad_sequences, tf.data shuffle(1000).batch().prefetch().cache(),
Embedding(MAX_WORDS, 7), Conv1D(64, 5, relu), MaxPool1D(2), Conv1D(32, 3, relu), MaxPool1D(2),
Flatten, Dense(CAT_NUM), Nadam, SparseCategoricalCrossentropy(from_logits=True), accuracy and
top-5. --as-published keeps the tutorial's softmax on the Dense; without it the Dense gives logits,
which is what the loss expects. (Keras 3 on TensorFlow, given a softmax's output with
from_logits=True, takes the logits the softmax was computed from and warns: today's Keras does not
reproduce the tutorial's mistake, and both variants train alike. bench/README.md.)

The data: keras.datasets.reuters.load_data checks the file's SHA-256 against the real
reuters.npz and would download the real one over any other file; a file of ours (mirrortrain
inspect --dataset synthetic-text --write-keras-npz FILE) is read here by load_data's own steps
(numpy load, shuffle with seed 113, start mark 1, ranks + 3, test split 0.2, the largest id out
of vocabulary when num_words is not given), which mirrortrain's reader follows too. The real file
goes through load_data itself.

    .venv-seed/bin/python bench/seed_keras.py --data reuters.npz --epochs 3 [--as-published]
    .venv-seed/bin/python bench/seed_keras.py --data reuters.npz --steps 200 --batch-size 256

With --epochs: one JSON line per epoch (loss, accuracy, val_loss, val_accuracy, seconds). With
--steps: trains that many steps (one pass over as many batches, no validation) and prints one JSON
line {"steps", "batch", "seconds"}, for marginal rates. Diagnostics go to stderr.
"""
import argparse
import hashlib
import json
import os
import sys
import time

REAL_REUTERS_SHA256 = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"


def load_reuters(path):
    import numpy as np
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest == REAL_REUTERS_SHA256:
        from keras.datasets import reuters
        return reuters.load_data(path=os.path.abspath(path))
    with np.load(path, allow_pickle=True) as f:  # a file we wrote: load_data's steps, as written
        xs, labels = f["x"], f["y"]
    rng = np.random.RandomState(113)
    indices = np.arange(len(xs))
    rng.shuffle(indices)
    xs, labels = xs[indices], labels[indices]
    xs = [[1] + [w + 3 for w in x] for x in xs]
    num_words = max(max(x) for x in xs)
    xs = [[w if w < num_words else 2 for w in x] for x in xs]
    idx = int(len(xs) * 0.8)
    return (np.array(xs[:idx], dtype="object"), np.array(labels[:idx])), \
           (np.array(xs[idx:], dtype="object"), np.array(labels[idx:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="a Keras-format reuters.npz")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=0)
    ap.add_argument("--steps", type=int, default=0, help="train this many steps, time them, no validation")
    ap.add_argument("--logical", type=int, default=2, help="logical CPU devices for MirroredStrategy")
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads (each replica's)")
    ap.add_argument("--as-published", action="store_true", help="the tutorial's softmax on the output")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if (args.epochs > 0) == (args.steps > 0):
        sys.exit("seed_keras.py: give --epochs or --steps")

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow import keras
    from keras import layers, losses, metrics, models, optimizers
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(max(2, args.logical))
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * args.logical)
    keras.utils.set_random_seed(args.seed)

    (x_train, y_train), (x_test, y_test) = load_reuters(args.data)
    pad = keras.preprocessing.sequence.pad_sequences if hasattr(keras, "preprocessing") else keras.utils.pad_sequences
    x_train, x_test = pad(x_train, maxlen=300), pad(x_test, maxlen=300)
    max_words, cat_num = int(x_train.max()) + 1, int(y_train.max()) + 1
    batch = args.batch_size
    ds_train = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(buffer_size=1000).batch(batch) \
        .prefetch(tf.data.AUTOTUNE).cache()
    ds_test = tf.data.Dataset.from_tensor_slices((x_test, y_test)).shuffle(buffer_size=1000).batch(batch) \
        .prefetch(tf.data.AUTOTUNE).cache()

    strategy = tf.distribute.MirroredStrategy([d.name for d in tf.config.list_logical_devices("CPU")])
    with strategy.scope():
        model = models.Sequential([
            keras.Input(shape=(300,)),
            layers.Embedding(max_words, 7),
            layers.Conv1D(filters=64, kernel_size=5, activation="relu"),
            layers.MaxPool1D(2),
            layers.Conv1D(filters=32, kernel_size=3, activation="relu"),
            layers.MaxPool1D(2),
            layers.Flatten(),
            layers.Dense(cat_num, activation="softmax" if args.as_published else None),
        ])
        model.compile(optimizer=optimizers.Nadam(),
                      loss=losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=[metrics.SparseCategoricalAccuracy(), metrics.SparseTopKCategoricalAccuracy(5)])
    print(f"seed_keras.py: TensorFlow {tf.__version__}, Keras {keras.__version__}, {strategy.num_replicas_in_sync} "
          f"replicas, {len(x_train)} / {len(x_test)} examples, vocabulary {max_words}, {cat_num} classes",
          file=sys.stderr)

    if args.steps:
        ds = ds_train.repeat()
        t = time.perf_counter()
        model.fit(ds, steps_per_epoch=args.steps, epochs=1, verbose=0)
        print(json.dumps({"steps": args.steps, "batch": batch, "seconds": time.perf_counter() - t}))
        return 0

    class EpochLines(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.t = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            logs = logs or {}
            print(json.dumps({"epoch": epoch + 1, "loss": logs.get("loss"),
                              "accuracy": logs.get("sparse_categorical_accuracy"),
                              "val_loss": logs.get("val_loss"),
                              "val_accuracy": logs.get("val_sparse_categorical_accuracy"),
                              "seconds": time.perf_counter() - self.t}), flush=True)

    model.fit(ds_train, validation_data=ds_test, epochs=args.epochs, verbose=0, callbacks=[EpochLines()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
