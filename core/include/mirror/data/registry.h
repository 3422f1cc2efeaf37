#pragma once
// Finding and loading datasets by name.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirror/data/dataset.h"

namespace mirror {

struct DatasetOptions {
  std::string name = "fashion-mnist";
  std::string data_dir;     // empty: the dataset's default location
  uint64_t seed = 42;       // synthetic sets only
  int64_t train_size = 0;   // synthetic sets only; 0: the set's default
  int64_t val_size = 0;     // synthetic sets only; 0: the set's default
  int64_t classes = 0;      // spirals/blobs only; 0: the set's default
  double noise = -1;        // 2-D sets only; <0: the set's default
  // Keras text datasets (reuters, imdb): load_data's num_words / skip_top / maxlen (0: None),
  // and the pad_sequences length (0: 300 for reuters, 500 for imdb).
  int64_t num_words = 0;
  int64_t skip_top = 0;
  int64_t maxlen = 0;
  int64_t sequence_length = 0;
  int64_t min_wires_per_topic = 0;  // raw Reuters SGML; 0: Keras' 15
  double test_split = -1;           // Reuters: load_data's test_split (the validation share); <0: 0.2
};

struct DatasetDescription {
  std::string name;
  std::string summary;
  std::string default_dir;  // empty for synthetic sets
};

// Every dataset `load_dataset` knows. Pure.
std::vector<DatasetDescription> list_datasets();

// Loads or generates a dataset. Throws ConfigError for an unknown name or bad option, DataError
// for a missing or malformed file (the message says where the files were looked for).
std::shared_ptr<const Dataset> load_dataset(const DatasetOptions& options);

}  // namespace mirror
