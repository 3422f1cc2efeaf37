#pragma once
// Checkpoints: the replicas' state plus where the run stands, so that a stopped or killed run
// resumes with the same numbers as an uninterrupted one.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/strategy/mirrored.h"

namespace mirror {

// Where the run stands: the next step to take, and the running sums of the epoch in progress.
struct TrainPosition {
  int epoch = 1;               // 1-based epoch the next step belongs to
  int64_t step_in_epoch = 0;   // steps of that epoch already done
  int64_t global_step = 0;     // steps done in the whole run
  double epoch_loss_sum = 0;   // sums over the epoch's steps so far
  int64_t epoch_samples = 0;
  int64_t epoch_correct = 0;
  int64_t epoch_top_k_correct = 0;
  double epoch_seconds = 0;
  double train_seconds = 0;    // over the whole run so far
  int64_t train_samples = 0;
  double best_val_accuracy = -1;
};

struct Checkpoint {
  StrategyState state;
  TrainPosition position;
};

// Writes a checkpoint atomically (temp file + rename): a process killed while writing leaves
// the previous checkpoint intact. Throws RunError when the file cannot be written.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// Throws DataError naming the file when it is missing, truncated or not a checkpoint.
Checkpoint read_checkpoint(const std::string& path);

// Checkpoint files in `dir` ("ckpt-<global step>.pt"), oldest first.
std::vector<std::string> list_checkpoints(const std::string& dir);
// Deletes all but the newest `keep` step checkpoints in `dir` (best.pt is never touched).
void prune_checkpoints(const std::string& dir, int keep);

}  // namespace mirror
