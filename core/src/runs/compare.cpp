#include "mirror/runs/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"

namespace mirror {

namespace {
// The model recorded in the run's config; null when there is none.
const nlohmann::json* recorded_model(const RunRecord& r) {
  const nlohmann::json* config = json_field(r.run, "config");
  return config ? json_field(*config, "model") : nullptr;
}
}  // namespace

std::string run_dataset_label(const RunRecord& r) { return config_value(r, "dataset.name"); }

std::string run_model_label(const RunRecord& r) {
  const std::string preset = config_value(r, "preset");
  if (!preset.empty() && preset != "-") return preset;
  const nlohmann::json* model = recorded_model(r);
  return model ? json_string(*model, "name", "?") : "?";
}

namespace {
// A content hash as the table shows it: enough digits to tell contents apart at a glance.
std::string short_hash(const std::string& hash) { return hash.empty() ? "-" : hash.substr(0, 12); }

bool any_data_hash(const std::vector<RunRecord>& runs) {
  return std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return !r.data().content_hash.empty(); });
}
}  // namespace

std::string same_data_in_words(const std::vector<RunRecord>& runs) {
  if (!any_data_hash(runs)) return {};
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // hash -> the runs, in order of first appearance
  std::vector<std::string> unrecorded;
  int64_t files = 0;
  for (const auto& r : runs) {
    const RecordedData d = r.data();
    if (d.content_hash.empty()) {
      unrecorded.push_back(r.display_name());
      continue;
    }
    files = d.file_count;
    auto g = std::find_if(groups.begin(), groups.end(), [&d](const auto& x) { return x.first == d.content_hash; });
    if (g == groups.end()) {
      groups.push_back({d.content_hash, {}});
      g = groups.end() - 1;
    }
    g->second.push_back(r.display_name());
  }
  std::string out;
  if (groups.size() == 1) {
    out = fmt::format("{} saw the same data: {}, content hash {}.",
                      unrecorded.empty() ? std::string("Every run") : fmt::format("{}", fmt::join(groups[0].second, ", ")),
                      counted(files, "file"), short_hash(groups[0].first));
  } else {
    std::vector<std::string> parts;
    for (const auto& [hash, names] : groups) parts.push_back(fmt::format("{} ({})", short_hash(hash), fmt::join(names, ", ")));
    out = fmt::format("The runs saw different data: {}.", fmt::join(parts, "; "));
  }
  if (!unrecorded.empty())
    out += fmt::format(" No content hash for {} (built-in or generated data, or recorded before hashes were kept).",
                       fmt::join(unrecorded, ", "));
  return out;
}

ComparisonTable comparison_table(const std::vector<RunRecord>& runs) {
  ComparisonTable t;
  t.differing = differing_config_keys(runs);
  t.header = {"run"};
  t.header.insert(t.header.end(), t.differing.begin(), t.differing.end());
  const bool data_column = any_data_hash(runs);
  if (data_column) t.header.push_back("data");
  t.same_data = same_data_in_words(runs);
  for (const char* h : {"status", "final_loss", "final_val_loss", "best_val_accuracy", "seconds"}) t.header.push_back(h);
  for (const auto& r : runs) {
    std::vector<std::string> row = {r.display_name()};
    for (const auto& k : t.differing) {
      std::string v = config_value(r, k);
      if (k == "model" && v != "-") {  // the model as read from run.json, not its text parsed again
        const nlohmann::json* model = recorded_model(r);
        const nlohmann::json* layers = model ? json_field(*model, "layers") : nullptr;
        v = fmt::format("{} layers", layers && layers->is_array() ? layers->size() : 0);
      }
      row.push_back(std::move(v));
    }
    if (data_column) row.push_back(short_hash(r.data().content_hash));
    const EpochMetrics* last = r.epochs.empty() ? nullptr : &r.epochs.back();
    row.push_back(r.status);
    row.push_back(last ? fmt::format("{:.4f}", last->loss)
                       : r.steps.empty() ? "-" : fmt::format("{:.4f}", r.steps.back().loss));
    row.push_back(last && last->has_validation ? fmt::format("{:.4f}", last->val_loss) : "-");
    row.push_back(r.best_val_accuracy < 0 ? "-" : fmt::format("{:.4f}", r.best_val_accuracy));
    row.push_back(fmt::format("{:.1f}", r.duration_seconds));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace mirror
