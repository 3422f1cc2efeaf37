#pragma once
// The datasets this build knows, one entry each: what `mirrortrain datasets`, --dataset's
// completion, the Data tab and lessons read. Light: no torch (the ui includes it); `Dataset` is
// only declared here, include mirror/data/dataset.h (or registry.h) to use what load_dataset gives.
//
// A new dataset is one file of core/src/data/ defining its entry (see keras_entries.cpp), plus
// its line in the list of dataset_registry.cpp, which fixes the order datasets are shown in.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mirror/data/dataset_options.h"

namespace mirror {

class Dataset;

// Which members of DatasetOptions a dataset reads (besides `name`); the others are ignored for
// it. The Data tab enables its fields from this.
struct UsedDatasetOptions {
  bool data_dir = false;
  bool seed = false;
  bool train_size = false;
  bool val_size = false;
  bool classes = false;
  bool noise = false;
  bool num_words = false;
  bool skip_top = false;
  bool maxlen = false;
  bool sequence_length = false;
  bool min_wires_per_topic = false;
  bool test_split = false;
  bool validation_split = false;
  bool image_size = false;          // image_height and image_width
  bool color_mode = false;
  bool crop_to_aspect_ratio = false;
  bool follow_links = false;
  bool label_column = false;
};

struct DatasetEntry {
  std::string name;         // what --dataset, run.json and the Data tab say: "reuters"
  std::string summary;      // one line for a person: what it holds
  std::string default_dir;  // where its files are looked for, as a person writes it; empty: generated
  UsedDatasetOptions uses;
  // Why `load` would not find the dataset's files here without downloading them, in words that
  // say where they were looked for; empty when it would. Null for a generated set (always here).
  // Must not throw.
  std::function<std::string(const DatasetOptions&)> missing;
  // The dataset trained instead when this one is missing ("synthetic-text" for reuters, the rule
  // the built-in lesson and the window use); empty: none, the loader reports what is missing.
  std::string stand_in;
  // Loads or generates the dataset. Throws ConfigError for a bad option, DataError for a missing
  // or malformed file (the message says where the files were looked for).
  std::function<std::shared_ptr<const Dataset>(const DatasetOptions&)> load;
};

// Every dataset, in display order. The list is built once and never changes: thread-safe.
const std::vector<DatasetEntry>& dataset_entries();

// The entry called `name`; nullptr when there is none. Thread-safe.
const DatasetEntry* find_dataset(const std::string& name);

// Whether `load_dataset(options)` would find the dataset's files here without downloading them
// (generated sets: always). When not, `why` says where they were looked for, or that no dataset
// has that name. Never throws. Thread-safe.
bool dataset_present(const DatasetOptions& options, std::string* why = nullptr);

// What to load on this machine for a run that asks for `wanted`.
struct DatasetChoice {
  DatasetOptions options;  // `wanted`, or its stand-in when `wanted` is missing here
  std::string note;        // when the stand-in was chosen, why, in words; else empty
};

// `wanted` when it is here, when it has no stand-in or when no dataset has its name (loading
// then reports the problem); else `wanted` with the stand-in's name and no data_dir (the folder
// was the missing set's). Never throws. Thread-safe.
DatasetChoice resolve_dataset(const DatasetOptions& wanted);

// Loads or generates a dataset. Throws ConfigError for an unknown name (listing the known ones)
// or a bad option, DataError for a missing or malformed file (the message says where the files
// were looked for).
std::shared_ptr<const Dataset> load_dataset(const DatasetOptions& options);

}  // namespace mirror
