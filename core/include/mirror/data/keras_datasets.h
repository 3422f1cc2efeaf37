#pragma once
// Keras' Reuters and IMDB datasets, from Keras' own .npz files (or the raw Reuters SGML), loaded
// with load_data's exact semantics and padded with pad_sequences.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirror/data/dataset.h"
#include "mirror/data/keras_text.h"

namespace mirror {

struct KerasDatasetOptions {
  std::string name = "reuters";      // reuters | imdb
  std::string data_dir;              // tried first; may hold the .npz or (Reuters) reut2-*.sgm
  KerasTextOptions load;             // load_data's arguments
  PadOptions pad{300};               // pad_sequences' arguments; the tutorial's MAX_LEN is 300
  int min_wires_per_topic = 15;      // raw Reuters SGML: Keras kept topics with >= 15 wires
  bool allow_download = true;
  std::string origin;                // download base URL; empty: the one Keras uses
};

// Where a Keras file is looked for, in order: `data_dir`, Keras' cache ($KERAS_HOME/datasets,
// else ~/.keras/datasets), then a download from `origin` + name into that cache, verified by
// SHA-256 (`sha256`, lower-case hex) with progress on stderr. Returns the file's path. Throws
// DataError saying where to put the file when it is nowhere and cannot be downloaded, and when a
// download's hash does not match (the partial file is removed).
std::string find_or_download(const std::string& file_name, const std::string& data_dir, const std::string& origin,
                             const std::string& sha256, bool allow_download);

// $KERAS_HOME/datasets, else ~/.keras/datasets (home_dir()). Throws ConfigError when there is no
// home folder.
std::string keras_cache_dir();

// Lower-case hex SHA-256 of a file. Throws DataError if it cannot be read.
std::string sha256_of_file(const std::string& path);

// Loads the dataset: train split = load_data's train, validation = its test split, inputs padded
// to pad.maxlen. The dataset's vocabulary maps ids back to words when a word index is available
// (reuters_word_index.json / imdb_word_index.json beside the .npz, or the SGML's own ranks).
// Throws DataError or ConfigError with a message that says what to do.
std::shared_ptr<const Dataset> load_keras_text_dataset(const KerasDatasetOptions& options);

// The 46 Reuters topic names in Keras' label order.
const std::vector<std::string>& reuters_topic_names();

// The words of a row of token ids, using the dataset's vocabulary ("?" where unknown; padding
// skipped).
std::string decode_tokens(const DatasetInfo& info, const std::vector<int64_t>& ids);

}  // namespace mirror
