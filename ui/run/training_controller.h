#pragma once
// Runs one training run on its own thread and turns the trainer's events into queued Qt signals.

#include <QObject>
#include <QPointer>
#include <QThread>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "mirror/runs/run_plan.h"
#include "mirror/train/control.h"
#include "mirror/train/events.h"
#include "ui/run/event_types.h"

namespace mirror {
class RecordedRun;
}  // namespace mirror

namespace mirror::ui {

// Registers the event structs with Qt's meta-type system; call once before connecting.
void register_event_types();

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  // Stops a run in progress (within one step) and waits for its thread.
  ~TrainingController() override;

  // Builds a run with `prepare` on a new thread (loading a dataset or a checkpoint can take a
  // while) and trains it there; its events arrive as the signals below. Failures to prepare (a
  // config the panels could not foresee, no checkpoint to resume from) arrive as
  // finished(kFailed, message). Returns false, starting nothing, while a run is in progress.
  // GUI thread only.
  bool start(std::function<std::unique_ptr<RecordedRun>()> prepare);
  // Continues the run recorded in `run_dir` from its newest checkpoint (RecordedRun::resume).
  bool resume(std::string run_dir, ResumeOptions options = {});
  // Asks the run to stop after its current step. Thread-safe.
  void stop();
  void set_paused(bool paused);
  // While paused: take exactly one more step, then hold again (step by step). Thread-safe.
  void step_once();
  // A demo pace in steps per second (0: full speed), for this run and the next ones. Thread-safe.
  void set_pace(double steps_per_second);
  double pace() const { return pace_; }
  bool paused() const;
  // The trainer is holding between steps for a pause (the step in flight has landed). Thread-safe.
  bool holding() const;
  bool running() const { return thread_ != nullptr; }
  // Stops the run and blocks until its thread has ended. Its events still queued are heard
  // unless start() is called before they reach the GUI thread (then they are dropped).
  void stop_and_wait();
  // Whether `generation` (a count of start()s) is the latest start: only its events are heard.
  bool is_latest_start(uint64_t generation) const { return generation == generation_; }

 Q_SIGNALS:
  void started(const mirror::RunStarted& e);
  // Steps arrive in batches (at most one batch every ~20 ms), so a fast run does not wake the
  // GUI thread for every step.
  void steps(const std::vector<mirror::StepMetrics>& batch);
  void epoch(const mirror::EpochMetrics& e);
  // What the model learned at a validation; comes just before that epoch's epoch().
  void evaluated(const mirror::Evaluation& e);
  void finished(const mirror::RunFinished& e);
  // Something the person should know about the run being prepared (a damaged checkpoint passed
  // over on resume, no TensorBoard events): it trains all the same.
  void warned(const QString& message);

 private:
  std::shared_ptr<TrainControl> control_;
  double pace_ = 0;
  QPointer<QThread> thread_;
  uint64_t generation_ = 0;  // counts start()s: which one thread_ belongs to
  bool reported_finished_ = false;  // finished() reached the GUI thread: the thread is only tearing down
};

}  // namespace mirror::ui
