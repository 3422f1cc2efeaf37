#pragma once
// What a checkpoint holds, and the interface the trainer saves checkpoints through. The training
// loop decides *when* to save (epoch ends, a stop, the step limit, every N steps); a store decides
// *where* (the runs folder's CheckpointFolder writes files), so train/ never reaches up into runs/.

#include <cstdint>

#include "mirror/optim/schedule.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/step_result.h"

namespace mirror {

// Where the run stands: the next step to take, and the running sums of the epoch in progress.
// It is also the training loop's own state, so a checkpoint is a copy of it.
struct TrainPosition {
  int epoch = 1;               // 1-based epoch the next step belongs to
  int64_t step_in_epoch = 0;   // steps of that epoch already done
  int64_t global_step = 0;     // steps done in the whole run
  MetricSums epoch_sums;       // over the epoch's steps so far
  double epoch_seconds = 0;
  double train_seconds = 0;    // over the whole run so far
  int64_t train_samples = 0;
  double best_val_accuracy = -1;
  CallbackState callbacks;     // ReduceLROnPlateau's and early stopping's state
};

struct Checkpoint {
  StrategyState state;
  TrainPosition position;
  torch::Tensor best_params;  // early stopping with restore_best: the best epoch's weights (else undefined)
};

// Receives the trainer's checkpoints, on the trainer's thread.
class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;
  // Keeps `checkpoint`; `best` says it has the best validation accuracy so far. Throws RunError
  // when it cannot (the run then fails with that message).
  virtual void save(const Checkpoint& checkpoint, bool best) = 0;
};

}  // namespace mirror
