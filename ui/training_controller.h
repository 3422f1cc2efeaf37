#pragma once
// Runs one training run on its own thread and turns the trainer's events into queued Qt signals.

#include <QObject>
#include <QPointer>
#include <QThread>

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <memory>

#include "mirror/data/dataset.h"
#include "mirror/train/config.h"
#include "mirror/train/events.h"
#include "mirror/train/trainer.h"
#include "ui/event_types.h"


namespace mirror::ui {

// Registers the event structs with Qt's meta-type system; call once before connecting.
void register_event_types();

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  // Stops a run in progress (within one step) and waits for its thread.
  ~TrainingController() override;

  // Starts a run on a new thread. Config errors surface as finished(kFailed, message). Does
  // nothing when a run is in progress. GUI thread only.
  // With a non-empty `run_dir` the run is recorded there (run.json, metrics.jsonl, TensorBoard
  // events, checkpoints), as mirrortrain records it; `run_extra`'s members (a sweep's id and
  // position) go into its run.json.
  // Returns false, starting nothing, while a run is in progress.
  bool start(TrainConfig config, std::shared_ptr<const Dataset> dataset, std::string run_dir = {},
             nlohmann::json run_extra = nlohmann::json::object());
  // Continues the run recorded in `run_dir` from its newest checkpoint, with its recorded config
  // and dataset (loaded on the run's thread), appending to its records. With `epochs` > 0 the
  // run trains until that epoch instead (continuing a finished run; no step limit). Problems (no
  // checkpoint, a dataset that is gone) surface as finished(kFailed, message).
  bool resume(std::string run_dir, int epochs = 0);
  // Asks the run to stop after its current step. Thread-safe.
  void stop();
  void set_paused(bool paused);
  bool paused() const;
  bool running() const { return thread_ != nullptr; }
  // Stops the run and blocks until its thread has ended.
  void stop_and_wait();

 Q_SIGNALS:
  void started(const mirror::RunStarted& e);
  // Steps arrive in batches (at most one batch every ~20 ms), so a fast run does not wake the
  // GUI thread for every step.
  void steps(const std::vector<mirror::StepMetrics>& batch);
  void epoch(const mirror::EpochMetrics& e);
  void finished(const mirror::RunFinished& e);

 private:
  struct Prepared;
  bool launch(std::function<Prepared()> prepare);

  std::shared_ptr<TrainControl> control_;
  QPointer<QThread> thread_;
  bool reported_finished_ = false;  // finished() reached the GUI thread: the thread is only tearing down
};

}  // namespace mirror::ui
