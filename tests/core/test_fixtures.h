#pragma once
// Small datasets and models that several core test files train on.

#include <memory>

#include "mirror/data/synthetic.h"
#include "mirror/model/presets.h"

namespace mirror::testing {

// A small token dataset: 600 training and 50 validation sequences of 24 tokens, 5 classes.
inline std::shared_ptr<const Dataset> small_text() {
  SyntheticTextOptions o;
  o.vocab_size = 300;
  o.sequence_length = 24;
  o.classes = 5;
  o.train_size = 600;
  o.val_size = 50;
  return make_synthetic_text(o);
}

// The tutorial's layers (Embedding, Conv1D, pooling, Dense), small; no dropout.
inline ModelSpec small_text_model() {
  ModelSpec m = find_preset("seed-reuters").model;
  m.layers[1].kernel = {3};
  m.layers[1].units = 8;
  m.layers[3].units = 6;
  return m;
}

// The blobs point set: 600 training and 200 validation points.
inline std::shared_ptr<const Dataset> blobs() {
  PointSetOptions o;
  o.kind = "blobs";
  o.train_size = 600;
  o.val_size = 200;
  return make_point_set(o);
}

}  // namespace mirror::testing
