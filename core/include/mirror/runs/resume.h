#pragma once
// Continuing a recorded run: its config as recorded, pointed at its newest checkpoint.

#include <cstdint>
#include <string>

#include "mirror/train/checkpoint_store.h"
#include "mirror/train/config.h"

namespace mirror {

struct ResumePoint {
  TrainConfig config;       // the recorded config
  int64_t from_step = 0;    // the checkpoint's global step
  std::string checkpoint;   // its file
  Checkpoint saved;         // what it holds
};

// Reads `dir`'s run.json and newest checkpoint. Throws ConfigError saying what is missing (no
// run here, a corrupt run.json, no checkpoint) and DataError for an unreadable checkpoint.
ResumePoint resume_point(const std::string& dir);

}  // namespace mirror
