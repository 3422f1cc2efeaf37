// RunRecord's typed reads of run.json.
#include <algorithm>
#include <limits>
#include <map>

#include "mirror/runs/run_reader.h"
#include "mirror/util/json_fields.h"

namespace mirror {

std::string RunRecord::message() const { return json_string(run, "message"); }

std::string RunRecord::started_at() const { return json_string(run, "started_at"); }

int64_t RunRecord::steps_per_epoch() const {
  int64_t n = json_int(run, "steps_per_epoch");
  if (n > 0) return n;
  // Runs recorded before run.json noted it: the longest epoch that ended, else the longest seen.
  std::map<int, int64_t> per_epoch;
  for (const auto& s : steps) ++per_epoch[s.epoch];
  n = 0;
  for (const auto& e : epochs) n = std::max(n, per_epoch[e.epoch]);
  if (n == 0)
    for (const auto& [epoch, count] : per_epoch) n = std::max(n, count);
  return n;
}

int64_t RunRecord::planned_epochs() const {
  const nlohmann::json* config = json_field(run, "config");
  return config ? json_int(*config, "epochs", 0) : 0;
}

bool RunRecord::in_scaling_study() const {
  const nlohmann::json* sweep = json_field(run, "sweep");
  return sweep && json_bool(*sweep, "scaling");
}

int RunRecord::processes() const { return recorded_processes(run); }

RecordedData RunRecord::data() const { return recorded_data(run); }

RecordedData recorded_data(const nlohmann::json& run) {
  RecordedData d;
  const nlohmann::json* recorded = json_field(run, "data");
  if (!recorded || !recorded->is_object()) return d;
  d.data_dir = json_string(*recorded, "data_dir", "");
  d.file_count = std::max<int64_t>(0, json_int(*recorded, "file_count", 0));
  d.content_hash = json_string(*recorded, "content_hash", "");
  return d;
}

std::vector<std::string> RunRecord::class_names() const {
  std::vector<std::string> names;
  const nlohmann::json* recorded = json_field(run, "class_names");
  if (!recorded || !recorded->is_array()) return names;
  for (const auto& n : *recorded) names.push_back(n.is_string() ? n.get<std::string>() : std::string());
  return names;
}

int recorded_processes(const nlohmann::json& run) {
  const nlohmann::json* workers = json_field(run, "workers");
  if (!workers) return 1;
  return static_cast<int>(std::clamp<int64_t>(json_int(*workers, "world_size", 1), 1, std::numeric_limits<int>::max()));
}

}  // namespace mirror
