#include "mirror/data/dataset_registry.h"

#include <fmt/format.h>

#include <stdexcept>

#include "mirror/util/error.h"

namespace mirror {

// Each dataset's entry, defined in the file of its kind: idx_entries.cpp, keras_entries.cpp,
// synthetic_entries.cpp. A new dataset: its file in data/ (and core/CMakeLists.txt) defining
// its entry function, declared here and listed in dataset_entries() where it should be shown.
DatasetEntry fashion_mnist_entry();
DatasetEntry mnist_entry();
DatasetEntry reuters_entry();
DatasetEntry imdb_entry();
DatasetEntry synthetic_text_entry();
DatasetEntry spirals_entry();
DatasetEntry blobs_entry();
DatasetEntry xor_entry();
DatasetEntry circles_entry();
DatasetEntry images_entry();
DatasetEntry texts_entry();
DatasetEntry table_entry();

namespace {
// A programming error in the list, found the first time it is read (every test reads it).
std::vector<DatasetEntry> checked_entries(std::vector<DatasetEntry> entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const DatasetEntry& e = entries[i];
    if (e.name.empty() || e.summary.empty() || !e.load)
      throw std::logic_error(fmt::format("dataset entry {} ('{}') needs a name, a summary and a loader", i, e.name));
    for (size_t j = 0; j < i; ++j)
      if (entries[j].name == e.name) throw std::logic_error(fmt::format("dataset '{}' is listed twice", e.name));
  }
  for (const DatasetEntry& e : entries) {
    if (e.stand_in.empty()) continue;
    bool known = false;
    for (const DatasetEntry& other : entries) known = known || (other.name == e.stand_in && !other.missing);
    if (!known) throw std::logic_error(fmt::format("dataset '{}': its stand-in '{}' is not a generated dataset", e.name, e.stand_in));
  }
  return entries;
}

std::string known_names() {
  std::string names;
  for (const auto& e : dataset_entries()) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}
}  // namespace

const std::vector<DatasetEntry>& dataset_entries() {
  static const std::vector<DatasetEntry> entries = checked_entries({
      fashion_mnist_entry(),
      mnist_entry(),
      reuters_entry(),
      imdb_entry(),
      synthetic_text_entry(),
      spirals_entry(),
      blobs_entry(),
      xor_entry(),
      circles_entry(),
      images_entry(),
      texts_entry(),
      table_entry(),
  });
  return entries;
}

const DatasetEntry* find_dataset(const std::string& name) {
  for (const auto& e : dataset_entries())
    if (e.name == name) return &e;
  return nullptr;
}

bool dataset_present(const DatasetOptions& options, std::string* why) {
  const DatasetEntry* entry = find_dataset(options.name);
  std::string reason = !entry ? fmt::format("no dataset is called '{}' (known: {})", options.name, known_names())
                       : entry->missing ? entry->missing(options)
                                        : std::string();
  if (reason.empty()) return true;
  if (why) *why = std::move(reason);
  return false;
}

DatasetChoice resolve_dataset(const DatasetOptions& wanted) {
  DatasetChoice choice{wanted, {}};
  const DatasetEntry* entry = find_dataset(wanted.name);
  if (!entry || entry->stand_in.empty() || !entry->missing) return choice;
  const std::string why = entry->missing(wanted);
  if (why.empty()) return choice;
  choice.options.name = entry->stand_in;
  choice.options.data_dir.clear();
  choice.note = fmt::format("{} is not on this machine ({}): {} stands in for it", wanted.name, why, entry->stand_in);
  return choice;
}

std::shared_ptr<const Dataset> load_dataset(const DatasetOptions& options) {
  if (const DatasetEntry* entry = find_dataset(options.name)) return entry->load(options);
  throw ConfigError(fmt::format("unknown dataset '{}' (known: {})", options.name, known_names()));
}

}  // namespace mirror
