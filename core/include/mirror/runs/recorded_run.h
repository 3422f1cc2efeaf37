#pragma once
// One training run with everything around it: its folder (run.json, metrics.jsonl, TensorBoard
// events, meta.json), its checkpoints and their policy, and resuming it. The CLI and the window
// start runs only through RecordedRun (and sweeps through Sweep), so a run recorded by either is
// recorded the same way.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mirror/runs/run_plan.h"
#include "mirror/train/events.h"
#include "mirror/train/trainer.h"

namespace mirror {

class CheckpointFolder;
class RunWriter;
class TensorBoardWriter;

class RecordedRun {
 public:
  // Builds the trainer (validates the config, analyses the model, makes the replicas) and, when
  // plan.dir is set, the records: run.json with status "running", meta.json, a TensorBoard event
  // file, and checkpoints in <dir>/checkpoints every config.checkpoints.every_steps steps and at
  // epoch ends. `dataset` null: loaded from config.dataset. Throws ConfigError or DataError
  // saying what is impossible; nothing is written when the config is refused.
  explicit RecordedRun(RunPlan plan, std::shared_ptr<const Dataset> dataset = nullptr);
  // Continues the run recorded in `dir` from its newest checkpoint, with its recorded config and
  // dataset, appending to its records. Throws ConfigError (no run, a live writer, no checkpoint)
  // or DataError (an unreadable checkpoint, a dataset that is gone).
  static std::unique_ptr<RecordedRun> resume(const std::string& dir, const ResumeOptions& options = {});
  ~RecordedRun();
  RecordedRun(const RecordedRun&) = delete;
  RecordedRun& operator=(const RecordedRun&) = delete;

  // Trains to the end, a stop or a failure. Every event reaches the records first and `observer`
  // last, so an observer that hears a run has finished finds run.json saying so. Never throws;
  // call once, from the thread that trains.
  RunFinished run(EventSink& observer, TrainControl& control);

  const std::string& dir() const { return dir_; }  // empty: not recorded
  const TrainConfig& config() const { return trainer_->config(); }
  Trainer& trainer() { return *trainer_; }
  int64_t resumed_from_step() const { return resumed_from_step_; }  // 0: a fresh run
  const std::string& resumed_from_checkpoint() const { return resumed_from_checkpoint_; }
  // What went wrong without stopping the run (no TensorBoard file could be made), a sentence each.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  RecordedRun() = default;
  // The run's TensorBoard files, with its settings for the HParams dashboard: `config` (as
  // run.json records it) and the sweep's `sweep_settings` (run.json's sweep.settings, or null).
  void add_tensorboard(const nlohmann::json& config, const nlohmann::json& sweep_settings);

  std::unique_ptr<Trainer> trainer_;
  std::string dir_;
  std::unique_ptr<RunWriter> writer_;
  std::unique_ptr<TensorBoardWriter> tensorboard_;
  std::unique_ptr<CheckpointFolder> checkpoints_;
  int64_t resumed_from_step_ = 0;
  std::string resumed_from_checkpoint_;
  std::vector<std::string> warnings_;
};

}  // namespace mirror
