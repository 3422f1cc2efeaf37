#pragma once
// Deterministic synthetic datasets: the same seed gives the same bytes on every machine.

#include <cstdint>
#include <memory>
#include <string>

namespace mirror {

class Dataset;

struct PointSetOptions {
  std::string kind = "spirals";  // spirals | blobs | xor | circles
  uint64_t seed = 42;
  int64_t train_size = 2000;
  int64_t val_size = 500;
  int64_t classes = 3;           // spirals and blobs; xor and circles have 2
  double noise = 0.1;
};

// 2-D point classification sets for classroom demos. Throws ConfigError on bad options.
std::shared_ptr<const Dataset> make_point_set(const PointSetOptions& options);

struct SyntheticTextOptions {
  uint64_t seed = 42;
  int64_t train_size = 8982;
  int64_t val_size = 2246;
  int64_t vocab_size = 30982;    // token ids 1..vocab_size-1; 0 pads
  int64_t classes = 46;
  int64_t sequence_length = 300;
};

// Newswire-like token sequences with the shapes of Keras' Reuters after pad_sequences(maxlen=300):
// Zipf-distributed common words plus topic words that make the class learnable, pre-padded with
// zeros, imbalanced classes. The largest token id always occurs in the training split, so
// max(x_train) + 1 == vocab_size as in the tutorial. Throws ConfigError on bad options.
std::shared_ptr<const Dataset> make_synthetic_text(const SyntheticTextOptions& options);

}  // namespace mirror
