#pragma once
// The run most tests train, for the core and the ui tests alike: the spirals MLP on the blobs
// point set (2-D points of 3 classes), small enough to train in a moment. LibTorch-free.

#include <cstdint>

#include "mirror/train/config.h"

namespace mirror::testing {

// `epochs` of global batch `batch` over `logical` CPU replicas; the blobs set at its default sizes
// unless `train_size` / `val_size` are given (> 0).
inline TrainConfig points_run(int epochs, int64_t batch, int logical, int64_t train_size = 0, int64_t val_size = 0) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.dataset.name = "blobs";
  if (train_size > 0) c.dataset.train_size = train_size;
  if (val_size > 0) c.dataset.val_size = val_size;
  c.epochs = epochs;
  c.batch_size = batch;
  c.devices.logical = logical;
  return c;
}

}  // namespace mirror::testing
