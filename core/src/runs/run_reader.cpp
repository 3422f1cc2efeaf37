#include "mirror/runs/run_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "mirror/util/error.h"

namespace fs = std::filesystem;

namespace mirror {

namespace {
void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (prefix.empty() && k == "model") {  // the whole layer list counts as one value
        out["model"] = v.dump();
        continue;
      }
      flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    }
  } else {
    out[prefix] = j.is_string() ? j.get<std::string>() : j.dump();
  }
}

std::map<std::string, std::string> flat_config(const RunRecord& r) {
  std::map<std::string, std::string> out;
  if (r.run.contains("config")) flatten(r.run.at("config"), "", out);
  return out;
}
}  // namespace

RunRecord read_run(const std::string& dir) {
  RunRecord r;
  r.dir = dir;
  r.name = fs::path(dir).filename().string();
  const auto run_json = fs::path(dir) / "run.json";
  std::ifstream in(run_json);
  if (!in) throw DataError(fmt::format("{}: no run.json", dir));
  try {
    r.run = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("{}: run.json is not valid JSON ({}); the metrics in metrics.jsonl are untouched",
                                run_json.string(), e.what()));
  }
  r.status = r.run.value("status", "unknown");
  std::ifstream metrics(fs::path(dir) / "metrics.jsonl");
  if (!metrics) {
    r.warnings.push_back("no metrics.jsonl");
    return r;
  }
  std::map<int64_t, nlohmann::json> steps;  // by global step: a resumed run's repeats replace
  std::string line;
  int64_t line_no = 0, skipped = 0;
  while (std::getline(metrics, line)) {
    ++line_no;
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      ++skipped;
      continue;
    }
    const std::string type = j.value("type", "");
    if (type == "step") {
      steps[j.value("global_step", int64_t{0})] = j;
    } else if (type == "resumed") {
      // Steps after the checkpoint were written once before the kill and will be again.
      const int64_t from = j.value("global_step", int64_t{0});
      steps.erase(steps.upper_bound(from), steps.end());
      while (!r.epochs.empty() && r.epochs.back().global_step > from) r.epochs.pop_back();
    } else if (type == "epoch") {
      EpochRecord e;
      e.epoch = j.value("epoch", 0);
      e.global_step = steps.empty() ? 0 : steps.rbegin()->first;
      e.loss = j.value("loss", 0.0);
      e.accuracy = j.value("accuracy", 0.0);
      e.top_k_accuracy = j.value("top_k_accuracy", 0.0);
      e.seconds = j.value("seconds", 0.0);
      e.samples_per_sec = j.value("samples_per_sec", 0.0);
      if (j.contains("val_accuracy")) {
        e.has_validation = true;
        e.val_loss = j.value("val_loss", 0.0);
        e.val_accuracy = j.value("val_accuracy", 0.0);
        e.val_top_k_accuracy = j.value("val_top_k_accuracy", 0.0);
      }
      r.epochs.push_back(e);
    } else if (type == "final") {
      r.duration_seconds = j.value("seconds", 0.0);
    }
  }
  if (skipped > 0)
    r.warnings.push_back(fmt::format("{} malformed line(s) of metrics.jsonl skipped (a write cut short?)", skipped));
  for (auto& [step, j] : steps) r.steps.push_back(std::move(j));
  for (const auto& e : r.epochs)
    if (e.has_validation) r.best_val_accuracy = std::max(r.best_val_accuracy, e.val_accuracy);
  if (r.duration_seconds == 0)
    for (const auto& e : r.epochs) r.duration_seconds += e.seconds;
  return r;
}

std::vector<RunRecord> list_runs(const std::string& root) {
  std::vector<RunRecord> out;
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory() && fs::exists(e.path() / "run.json")) dirs.push_back(e.path());
  std::sort(dirs.rbegin(), dirs.rend());
  for (const auto& d : dirs) {
    try {
      out.push_back(read_run(d.string()));
    } catch (const DataError& e) {
      RunRecord broken;
      broken.dir = d.string();
      broken.name = d.filename().string();
      broken.status = "unreadable";
      broken.warnings.push_back(e.what());
      out.push_back(std::move(broken));
    }
  }
  return out;
}

std::string default_runs_root() {
  if (const char* d = std::getenv("MIRROR_RUNS_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return (fs::path(x) / "mirror-workbench" / "runs").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : "/tmp") / ".local" / "share" / "mirror-workbench" / "runs").string();
}

std::string new_run_dir(const std::string& root, const std::string& label) {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::string base = (fs::path(root) / fmt::format("{}-{}", stamp, label.empty() ? "run" : label)).string();
  std::string dir = base;
  for (int n = 2; fs::exists(dir); ++n) dir = fmt::format("{}-{}", base, n);
  return dir;
}

std::vector<std::string> differing_config_keys(const std::vector<RunRecord>& runs) {
  std::vector<std::map<std::string, std::string>> flat;
  std::set<std::string> keys;
  for (const auto& r : runs) {
    flat.push_back(flat_config(r));
    for (const auto& [k, v] : flat.back()) keys.insert(k);
  }
  std::vector<std::string> out;
  for (const auto& k : keys) {
    std::set<std::string> values;
    for (const auto& f : flat) values.insert(f.count(k) ? f.at(k) : std::string("-"));
    if (values.size() > 1) out.push_back(k);
  }
  return out;
}

std::string config_value(const RunRecord& run, const std::string& key) {
  const auto flat = flat_config(run);
  const auto it = flat.find(key);
  return it == flat.end() ? "-" : it->second;
}

}  // namespace mirror
