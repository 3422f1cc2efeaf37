#pragma once
// Continuing a recorded run: its config as recorded, pointed at its newest checkpoint.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mirror/runs/run_reader.h"
#include "mirror/train/checkpoint_store.h"
#include "mirror/train/config.h"

namespace mirror {

struct ResumePoint {
  TrainConfig config;       // the recorded config
  int64_t from_step = 0;    // the checkpoint's global step
  std::string checkpoint;   // its file
  Checkpoint saved;         // what it holds
  // Newer checkpoints that could not be read (truncated, corrupt), newest first, each with why.
  std::vector<std::pair<std::string, std::string>> unreadable;
  // The run's own data as run.json recorded it (empty figures: a built-in dataset). A recorded
  // folder replaces the config's data_dir, which may be relative to where the run was started.
  RecordedData data;
  nlohmann::json data_changes = nlohmann::json::array();  // earlier resumes on changed data
};

// Reads `dir`'s run.json and its newest readable checkpoint: a damaged newer one is passed over
// (listed in `unreadable`) for the one before it. Throws ConfigError saying what is missing (no
// run here, a corrupt run.json, no checkpoint) and DataError when no checkpoint can be read.
ResumePoint resume_point(const std::string& dir);

struct DatasetInfo;

// How the data a resumed run loaded (`now`) differs from what the run recorded, as a sentence
// naming both file counts and content hashes; empty when they agree or nothing was recorded.
std::string describe_data_change(const RecordedData& recorded, const DatasetInfo& now);

}  // namespace mirror
