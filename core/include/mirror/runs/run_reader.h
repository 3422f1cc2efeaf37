#pragma once
// Reading recorded runs: run.json and metrics.jsonl, tolerant of a run that was killed or is
// still being written.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mirror {

struct EpochRecord {
  int epoch = 0;
  int64_t global_step = 0;  // step at the epoch's end
  double loss = 0, accuracy = 0, top_k_accuracy = 0;
  bool has_validation = false;
  double val_loss = 0, val_accuracy = 0, val_top_k_accuracy = 0;
  double seconds = 0, samples_per_sec = 0;
};

struct RunRecord {
  std::string dir;
  std::string name;               // the directory's name
  nlohmann::json run;             // run.json as recorded (config, devices, status, ...)
  std::string status;             // running | finished | stopped | failed
  std::vector<nlohmann::json> steps;  // step objects, resumed runs de-duplicated by step
  std::vector<EpochRecord> epochs;
  double best_val_accuracy = -1;  // -1: no validation recorded
  double duration_seconds = 0;
  std::vector<std::string> warnings;  // lines skipped, files missing: what was not read and why
};

// Reads a run directory. A malformed line of metrics.jsonl (a write cut by a kill) is skipped
// with a warning; everything intact is kept. Throws DataError only when run.json is missing or
// unreadable.
RunRecord read_run(const std::string& dir);

// Every run directory directly under `root` (those holding a run.json), newest first by name.
// Unreadable runs are listed with their warnings rather than dropped.
std::vector<RunRecord> list_runs(const std::string& root);

// Where runs are recorded by default: $MIRROR_RUNS_DIR, else $XDG_DATA_HOME/mirror-workbench/runs,
// else ~/.local/share/mirror-workbench/runs.
std::string default_runs_root();

// A fresh directory name for a run: <root>/<UTC date-time>-<label>, made unique.
std::string new_run_dir(const std::string& root, const std::string& label);

// The config values (flattened "a.b" keys) on which the runs differ; empty when all agree.
std::vector<std::string> differing_config_keys(const std::vector<RunRecord>& runs);
// A config value of a run by flattened key ("optimizer.learning_rate"), as text.
std::string config_value(const RunRecord& run, const std::string& key);

}  // namespace mirror
