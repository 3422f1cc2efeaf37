#pragma once
// Checkpoints: the replicas' state plus where the run stands, so that a stopped or killed run
// resumes with the same numbers as an uninterrupted one.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/train/checkpoint_store.h"

namespace mirror {

// Writes a checkpoint atomically (temp file + rename): a process killed while writing leaves
// the previous checkpoint intact. Throws RunError when the file cannot be written.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// Throws DataError naming the file when it is missing, truncated or not a checkpoint.
Checkpoint read_checkpoint(const std::string& path);

// Checkpoint files in `dir` ("ckpt-<global step>.pt"), oldest first.
std::vector<std::string> list_checkpoints(const std::string& dir);
// Deletes all but the newest `keep` step checkpoints in `dir` (best.pt is never touched).
void prune_checkpoints(const std::string& dir, int keep);

// A run's checkpoints/ folder: "ckpt-<global step>.pt" per save, pruned to the newest
// `keep_last`, and best.pt for the best validation accuracy. Creates the folder on first save.
class CheckpointFolder : public CheckpointStore {
 public:
  CheckpointFolder(std::string dir, int keep_last) : dir_(std::move(dir)), keep_last_(keep_last) {}
  void save(const Checkpoint& checkpoint, bool best) override;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int keep_last_;
};

}  // namespace mirror
