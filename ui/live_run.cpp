#include "ui/live_run.h"

#include <algorithm>

#include "ui/training_controller.h"

namespace mirror::ui {

LiveRun::LiveRun(TrainingController* controller, QObject* parent) : QObject(parent) {
  connect(controller, &TrainingController::started, this, &LiveRun::on_started);
  connect(controller, &TrainingController::steps, this, &LiveRun::on_steps);
  connect(controller, &TrainingController::epoch, this, &LiveRun::on_epoch);
  connect(controller, &TrainingController::finished, this, &LiveRun::on_finished);
  timer_.setInterval(33);
  connect(&timer_, &QTimer::timeout, this, &LiveRun::tick);
  timer_.start();
}

void LiveRun::begin() {
  metrics_.clear();
  last_step_ = {};
  started_ = {};
  step_seconds_ema_ = 0;
  running_ = true;
  dirty_ = true;
}

void LiveRun::abandon() { running_ = false; }

double LiveRun::eta_seconds(int epochs) const {
  const int64_t total = last_step_.steps_per_epoch * epochs;
  return step_seconds_ema_ * static_cast<double>(std::max<int64_t>(0, total - last_step_.global_step));
}

void LiveRun::on_started(const RunStarted& e) {
  started_ = e;
  Q_EMIT run_started(e);
}

void LiveRun::on_steps(const std::vector<StepMetrics>& batch) {
  for (const auto& e : batch) {
    metrics_.add_step(e);
    step_seconds_ema_ = step_seconds_ema_ == 0 ? e.step_seconds : 0.95 * step_seconds_ema_ + 0.05 * e.step_seconds;
  }
  if (!batch.empty()) last_step_ = batch.back();
  dirty_ = true;
}

void LiveRun::on_epoch(const EpochMetrics& e) {
  metrics_.add_epoch(e);
  dirty_ = true;
}

void LiveRun::on_finished(const RunFinished& e) {
  last_result_ = e;
  running_ = false;
  dirty_ = true;
  draw();  // the last points, at once
  Q_EMIT run_finished(e);
}

void LiveRun::tick() {
  // While a run is going, spend at most kDrawBudget of the wall time drawing (at most ~30 frames
  // a second, fewer when frames are expensive). Between runs, draw at once.
  constexpr double kDrawBudget = 0.01;
  if (!dirty_) return;
  if (running_ && since_draw_.isValid() && since_draw_.elapsed() < draw_cost_ms_ / kDrawBudget) return;
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
