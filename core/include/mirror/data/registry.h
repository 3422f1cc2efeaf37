#pragma once
// Finding and loading datasets by name.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_options.h"

namespace mirror {

struct DatasetDescription {
  std::string name;
  std::string summary;
  std::string default_dir;  // empty for synthetic sets
};

// Every dataset `load_dataset` knows. Pure.
std::vector<DatasetDescription> list_datasets();

// Whether `load_dataset(options)` would find the dataset's files here without downloading them
// (synthetic sets: always). When not, `why` says where they were looked for.
bool dataset_present(const DatasetOptions& options, std::string* why = nullptr);

// Loads or generates a dataset. Throws ConfigError for an unknown name or bad option, DataError
// for a missing or malformed file (the message says where the files were looked for).
std::shared_ptr<const Dataset> load_dataset(const DatasetOptions& options);

}  // namespace mirror
