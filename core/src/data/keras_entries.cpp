// The registry's entries for Keras' text datasets: Keras' own .npz files (Reuters also from the
// raw Reuters-21578 SGML), from --data-dir or Keras' cache, else downloaded as Keras does.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>

#include "mirror/data/dataset_registry.h"
#include "mirror/data/keras_datasets.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
namespace fs = std::filesystem;

constexpr const char* kKerasCache = "~/.keras/datasets";

bool has_reuters_sgml(const std::string& dir) {
  std::error_code ec;
  if (!dir.empty())
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".sgm") return true;
  return false;
}

// Why find_or_download would not find Keras' `file` (reuters.npz) without downloading it; empty
// when it would, or when MIRROR_KERAS_ORIGIN names a server to download it from.
std::string keras_file_missing(const DatasetOptions& o, const std::string& file) {
  std::error_code ec;
  if (const char* origin = std::getenv("MIRROR_KERAS_ORIGIN"); origin && *origin) {
    const std::string base = origin;  // where downloads come from instead of Keras' server
    if (base.rfind("file://", 0) != 0) return {};
    if (fs::exists(fs::path(base.substr(7)) / file, ec)) return {};
  }
  std::vector<std::string> dirs;
  if (!o.data_dir.empty()) dirs.push_back(o.data_dir);
  try {
    dirs.push_back(keras_cache_dir());
  } catch (const ConfigError&) {  // no home folder: only the data folder can hold it
  }
  for (const auto& d : dirs)
    if (fs::exists(fs::path(d) / file, ec)) return {};
  return fmt::format("{} is not in {} (not downloaded yet)", file, fmt::join(dirs, " or "));
}

// load_data's and pad_sequences' arguments from the options; `length`: pad_sequences' default.
std::shared_ptr<const Dataset> load_keras(const DatasetOptions& o, int64_t length) {
  KerasDatasetOptions k;
  k.name = o.name;
  k.data_dir = o.data_dir;
  if (o.num_words > 0) k.load.num_words = o.num_words;
  k.load.skip_top = o.skip_top;
  if (o.maxlen > 0) k.load.maxlen = o.maxlen;
  if (o.test_split >= 0) k.load.test_split = o.test_split;
  if (o.min_wires_per_topic > 0) k.min_wires_per_topic = static_cast<int>(o.min_wires_per_topic);
  k.pad.maxlen = o.sequence_length > 0 ? o.sequence_length : length;
  if (const char* origin = std::getenv("MIRROR_KERAS_ORIGIN")) k.origin = origin;
  return load_keras_text_dataset(k);
}
}  // namespace

DatasetEntry reuters_entry() {
  return {
      .name = "reuters",
      .summary = "Keras' Reuters newswires (reuters.npz or the raw Reuters-21578 SGML), 46 topics",
      .default_dir = kKerasCache,
      .uses = {.data_dir = true, .num_words = true, .skip_top = true, .maxlen = true, .sequence_length = true,
               .min_wires_per_topic = true, .test_split = true},
      .missing =
          [](const DatasetOptions& o) {
            return has_reuters_sgml(o.data_dir) ? std::string() : keras_file_missing(o, "reuters.npz");
          },
      .stand_in = "synthetic-text",
      .load = [](const DatasetOptions& o) { return load_keras(o, /*length=*/300); },
  };
}

DatasetEntry imdb_entry() {
  return {
      .name = "imdb",
      .summary = "Keras' IMDB movie reviews (imdb.npz), 2 classes",
      .default_dir = kKerasCache,
      .uses = {.data_dir = true, .num_words = true, .skip_top = true, .maxlen = true, .sequence_length = true},
      .missing = [](const DatasetOptions& o) { return keras_file_missing(o, "imdb.npz"); },
      .load = [](const DatasetOptions& o) { return load_keras(o, /*length=*/500); },
  };
}

}  // namespace mirror
