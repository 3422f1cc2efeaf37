#include "ui/run/live_run.h"

#include <algorithm>

#include "mirror/runs/evaluations.h"
#include "mirror/runs/run_reader.h"
#include "ui/run/training_controller.h"

namespace mirror::ui {

LiveRun::LiveRun(TrainingController* controller, QObject* parent) : QObject(parent), controller_(controller) {
  connect(controller, &TrainingController::started, this, &LiveRun::on_started);
  connect(controller, &TrainingController::steps, this, &LiveRun::on_steps);
  connect(controller, &TrainingController::epoch, this, &LiveRun::on_epoch);
  connect(controller, &TrainingController::evaluated, this, &LiveRun::on_evaluated);
  connect(controller, &TrainingController::finished, this, &LiveRun::on_finished);
  timer_.setInterval(33);
  connect(&timer_, &QTimer::timeout, this, &LiveRun::tick);
  timer_.start();
}

void LiveRun::begin() {
  metrics_.clear();
  recorded_until_ = 0;
  last_step_ = {};
  typical_step_ = {};
  started_ = {};
  progress_.reset();
  recent_steps_.clear();
  last_sync_check_ = 0;
  last_checksums_.clear();
  last_sync_failed_ = false;
  first_rate_ = -1;
  rate_varies_ = false;
  running_ = true;
  dirty_ = true;
  evaluations_.clear();
  Q_EMIT evaluations_changed();
}

namespace {
constexpr double kLiveSmoothing = 0.9;  // RunMetrics' default, which the live charts use
}  // namespace

void LiveRun::begin_resume(const std::string& dir) {
  begin();
  try {
    const RunRecord record = read_run(dir);
    metrics_ = RunMetrics::from_record(record, kLiveSmoothing, XAxis::kStep);
    for (const auto& s : record.steps) {
      if (first_rate_ < 0) first_rate_ = s.learning_rate;
      else if (s.learning_rate != first_rate_) rate_varies_ = true;
    }
    if (!record.steps.empty()) {
      last_step_ = record.steps.back();
      recorded_until_ = last_step_.global_step;
    }
    evaluations_ = read_evaluations(dir);
    Q_EMIT evaluations_changed();
  } catch (const std::exception&) {
    // Nothing readable recorded: the resumed run's own steps are all there is to draw. The
    // controller reports why the resume itself fails.
  }
}

void LiveRun::abandon() { running_ = false; }

int64_t LiveRun::total_steps(int epochs) const {
  const int64_t planned = last_step_.steps_per_epoch * epochs;
  return started_.max_steps > 0 ? std::min(planned, started_.max_steps) : planned;
}

double LiveRun::eta_seconds(int epochs) const {
  if (progress_.steps() == 0) return 0;
  return progress_.eta_seconds(total_steps(epochs), controller_->pace());  // to the step limit, if it comes first
}

double LiveRun::pace() const { return controller_->pace(); }

void LiveRun::on_started(const RunStarted& e) {
  started_ = e;
  Q_EMIT run_started(e);
}

void LiveRun::on_steps(const std::vector<StepMetrics>& batch) {
  if (recorded_until_ > 0 && !batch.empty()) {
    // The first steps of a resumed run: drop the recorded ones it redoes (after its checkpoint).
    if (batch.front().global_step <= recorded_until_) metrics_.drop_from(static_cast<double>(batch.front().global_step));
    recorded_until_ = 0;
  }
  for (const auto& e : batch) {
    metrics_.add_step(e);
    // The rate and the time left from training time: a demo pace and pauses are left out (the
    // ETA follows the pace itself), validation counts towards the time left.
    progress_.add(e);
    recent_steps_.push_back(e);
    if (recent_steps_.size() > kKeptSteps) recent_steps_.pop_front();
    if (started_.global_batch <= 0 || e.samples >= started_.global_batch) typical_step_ = e;
    if (e.sync_checked) {
      last_sync_check_ = e.global_step;
      last_checksums_ = e.checksums;
    }
    if (first_rate_ < 0) first_rate_ = e.learning_rate;
    else if (e.learning_rate != first_rate_) rate_varies_ = true;
  }
  if (!batch.empty()) last_step_ = batch.back();
  dirty_ = true;
}

void LiveRun::on_epoch(const EpochMetrics& e) {
  metrics_.add_epoch(e);
  dirty_ = true;
}

void LiveRun::on_evaluated(const Evaluation& e) {
  // A resumed run redoes the epochs after its checkpoint: its evaluation replaces the recorded one.
  auto at = std::find_if(evaluations_.begin(), evaluations_.end(), [&](const Evaluation& x) { return x.epoch >= e.epoch; });
  evaluations_.erase(at, evaluations_.end());
  evaluations_.push_back(e);
  Q_EMIT evaluations_changed();
}

void LiveRun::on_finished(const RunFinished& e) {
  last_result_ = e;
  if (e.sync_failed_step > 0) {
    // The failing check reported no step: it is the run's last check, not the one that passed.
    last_sync_check_ = e.sync_failed_step;
    last_checksums_ = e.sync_failed_checksums;
    last_sync_failed_ = true;
  }
  running_ = false;
  dirty_ = true;
  draw();  // the last points, at once
  Q_EMIT run_finished(e);
}

void LiveRun::tick() {
  // While a run is going, spend at most kDrawBudget of the wall time drawing (at most ~30 frames
  // a second, fewer when frames are expensive). Between runs, draw at once.
  // But never wait more than kMaxGapMs between frames, however loaded the machine: a class
  // watching a long CPU-bound run must see it move.
  constexpr double kDrawBudget = 0.01;
  constexpr double kMaxGapMs = 250;
  if (!dirty_) return;
  if (running_ && since_draw_.isValid() && since_draw_.elapsed() < std::min(kMaxGapMs, draw_cost_ms_ / kDrawBudget))
    return;
  draw();
}

void LiveRun::draw() {
  if (!dirty_) return;
  dirty_ = false;
  QElapsedTimer cost;
  cost.start();
  Q_EMIT frame();  // views redraw (and repaint) in their slots, so this measures the whole frame
  const double ms = static_cast<double>(cost.nsecsElapsed()) / 1e6;
  draw_cost_ms_ = draw_cost_ms_ == 0 ? ms : 0.8 * draw_cost_ms_ + 0.2 * ms;
  since_draw_.restart();
}

}  // namespace mirror::ui
