#pragma once
// The training loop: epochs of seeded shuffles, mirrored steps, validation, events.

#include <atomic>
#include <memory>

#include "mirror/data/dataset.h"
#include "mirror/model/shape.h"  // input_spec
#include "mirror/train/checkpoint_store.h"
#include "mirror/train/config.h"
#include "mirror/train/control.h"
#include "mirror/train/events.h"

namespace mirror {

class WorkerGroup;

class Trainer {
 public:
  // Validates the config, analyses the model against the dataset, resolves devices and builds
  // the strategy (replicas, optimizers, threads). Throws ConfigError when anything is impossible.
  // With `workers` (W > 1 processes, each running a Trainer with the same config), this process
  // trains its share of every global batch; the configs are compared first, and run() must be
  // called on every process.
  Trainer(TrainConfig config, std::shared_ptr<const Dataset> dataset, std::shared_ptr<WorkerGroup> workers = nullptr);
  ~Trainer();

  // Puts a checkpoint's state on the replicas; run() then continues from its position, with the
  // numbers an uninterrupted run would have had. Throws DataError when it does not fit this model
  // or replica count. Call before run().
  void resume(const Checkpoint& checkpoint);
  // Saves checkpoints through `store` (not owned; it must outlive run()): at every epoch end,
  // when stopped, at the step limit, and every config().checkpoints.every_steps steps.
  void save_checkpoints(CheckpointStore* store) { store_ = store; }

  // Runs to completion, a stop, or a failure, reporting to `sink`. Never throws: failures
  // (NaN loss, a failed replica, diverged replicas, a checkpoint that cannot be written) end the
  // run with RunStatus::kFailed and a message. Call once, from one thread.
  RunFinished run(EventSink& sink, TrainControl& control);

  // The validation split's loss and accuracies under the replicas' weights as they stand (before
  // run(): the starting ones, a .keras file's with config().initial_weights). Every process of a
  // worker group must call it together. Throws RunError when a replica fails.
  MetricSums validate();

  const TrainConfig& config() const { return config_; }
  const Dataset& dataset() const { return *dataset_; }
  MirroredStrategy& strategy() { return *strategy_; }

 private:
  TrainConfig config_;
  std::shared_ptr<const Dataset> dataset_;
  std::unique_ptr<MirroredStrategy> strategy_;
  TrainPosition start_;                // where run() begins: step 0, or a checkpoint's position
  torch::Tensor start_best_params_;    // early stopping's best weights so far, from a checkpoint
  CheckpointStore* store_ = nullptr;   // not owned; null: no checkpoints
};

}  // namespace mirror
