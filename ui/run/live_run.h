#pragma once
// The run the window is showing, as one model that every live view subscribes to: the events of
// the run as they arrive from a TrainingController, every metric recorded so far, and a paced
// `frame` signal on which views redraw. A new view connects to LiveRun; MainWindow does not grow.
// GUI thread only.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <deque>

#include "mirror/train/events.h"
#include "mirror/train/progress.h"
#include "ui/run/event_types.h"
#include "ui/run/run_metrics.h"

namespace mirror::ui {

class TrainingController;

class LiveRun : public QObject {
  Q_OBJECT
 public:
  // Follows `controller`'s runs (not owned; it must outlive this model).
  explicit LiveRun(TrainingController* controller, QObject* parent = nullptr);

  // A run is about to start: forget the last one's points and mark this one running.
  void begin();
  // A recorded run is about to be resumed: start from what it recorded, so the charts show the
  // whole run; the steps the resumed run redoes replace the recorded ones.
  void begin_resume(const std::string& dir);
  // The run did not start after all (the previous one was still shutting down).
  void abandon();

  bool running() const { return running_; }
  const RunMetrics& metrics() const { return metrics_; }
  const RunStarted& started() const { return started_; }
  const StepMetrics& last_step() const { return last_step_; }  // global_step 0: no step yet
  // The last step with a whole global batch: what a typical step looks like (an epoch's last,
  // partial step has smaller shards and fewer samples).
  const StepMetrics& typical_step() const { return typical_step_.global_step > 0 ? typical_step_ : last_step_; }
  // Samples per second of training over the last few steps (not one step's): pace waits and
  // pauses are not training and do not lower it (ProgressMeter).
  double recent_samples_per_sec() const { return progress_.samples_per_sec(); }
  // This session's steps counted the way mirrortrain counts them: the rate, the time left, the
  // finish line's "N steps in T".
  const ProgressMeter& progress() const { return progress_; }
  // The last kKeptSteps steps as they arrived, with their timelines (the Strategy tab's trace
  // export); a new run starts empty.
  const std::deque<StepMetrics>& recent_steps() const { return recent_steps_; }
  static constexpr size_t kKeptSteps = 200;
  // The step after which the replicas were last checked; 0: not yet. Normally a check that found
  // them bit-identical; after a run the sync check stopped, the failing check (last_sync_failed).
  int64_t last_sync_check() const { return last_sync_check_; }
  // Each replica's parameter checksum at that check (empty before one).
  const std::vector<uint64_t>& last_checksums() const { return last_checksums_; }
  // Whether that check failed: the run stopped because a replica's checksum differed.
  bool last_sync_failed() const { return last_sync_failed_; }
  // Whether the learning rate has taken more than one value in this run (a schedule, a warmup, a cut).
  bool learning_rate_varies() const { return rate_varies_; }
  const RunFinished& last_result() const { return last_result_; }
  // What the model learned at each validation so far, in epoch order (a resumed run starts with
  // what was recorded; an epoch it redoes replaces the recorded one).
  const std::vector<Evaluation>& evaluations() const { return evaluations_; }
  // The run's global steps when it ends: `epochs` epochs, or its step limit when that comes first
  // (a lesson's runs stop at one).
  int64_t total_steps(int epochs) const;
  // Seconds left until total_steps(epochs): the steps left at the recent time per step, pace
  // waits and pauses left out, or at the controller's demo pace when that is slower.
  double eta_seconds(int epochs) const;
  // The demo pace the run is held to, steps a second (0: full speed).
  double pace() const;
  // Asks for a frame soon (a view changed how it draws: a theme, a log axis).
  void touch() { dirty_ = true; }

 Q_SIGNALS:
  void run_started(const mirror::RunStarted& e);
  // Redraw now from metrics() and last_step(). While training, frames come at most ~30 times a
  // second and use about 1% of the wall time (drawing competes with the replicas for the cores),
  // but at least every 250 ms; between runs, at once.
  void frame();
  void run_finished(const mirror::RunFinished& e);
  // evaluations() changed: a validation ended, or a run began (and they were cleared or read).
  void evaluations_changed();

 private:
  void on_started(const RunStarted& e);
  void on_steps(const std::vector<StepMetrics>& batch);
  void on_epoch(const EpochMetrics& e);
  void on_evaluated(const Evaluation& e);
  void on_finished(const RunFinished& e);
  void tick();
  void draw();

  RunMetrics metrics_;
  int64_t recorded_until_ = 0;  // a resumed run's last recorded step, until its own steps arrive
  RunStarted started_;
  StepMetrics last_step_;
  RunFinished last_result_;
  std::vector<Evaluation> evaluations_;
  TrainingController* controller_;
  bool running_ = false;
  bool dirty_ = false;
  StepMetrics typical_step_;
  ProgressMeter progress_;
  std::deque<StepMetrics> recent_steps_;
  int64_t last_sync_check_ = 0;
  std::vector<uint64_t> last_checksums_;
  bool last_sync_failed_ = false;
  double first_rate_ = -1;
  bool rate_varies_ = false;
  QTimer timer_;
  QElapsedTimer since_draw_;  // since the last frame
  double draw_cost_ms_ = 0;   // smoothed cost of one frame
};

}  // namespace mirror::ui
