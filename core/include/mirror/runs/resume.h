#pragma once
// Continuing a recorded run: its config as recorded, pointed at its newest checkpoint.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
};

// Reads `dir`'s run.json and its newest readable checkpoint: a damaged newer one is passed over
// (listed in `unreadable`) for the one before it. Throws ConfigError saying what is missing (no
// run here, a corrupt run.json, no checkpoint) and DataError when no checkpoint can be read.
ResumePoint resume_point(const std::string& dir);

}  // namespace mirror
