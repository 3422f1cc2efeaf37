#include "ui/run_launcher.h"

#include <QTimer>

#include "mirror/runs/recorded_run.h"
#include "ui/live_run.h"
#include "ui/training_controller.h"

namespace mirror::ui {

RunLauncher::RunLauncher(QObject* parent) : QObject(parent) {
  controller_ = new TrainingController(this);
  live_ = new LiveRun(controller_, this);
  connect(live_, &LiveRun::run_finished, this, [this] {
    // The next sweep run starts from the event loop, after everyone has seen this one end.
    if (sweeping()) QTimer::singleShot(0, this, &RunLauncher::next_sweep_run);
  });
}

RunLauncher::~RunLauncher() { shut_down(); }

bool RunLauncher::running() const { return live_->running(); }

void RunLauncher::start_run(TrainConfig config, std::shared_ptr<const Dataset> dataset) {
  RunPlan plan;
  plan.config = std::move(config);
  if (recording_) plan.dir = plan_run_dir(default_runs_root(), plan.config);
  start_planned(std::move(plan), [dataset = std::move(dataset)] { return dataset; }, "Starting…");
}

void RunLauncher::resume_run(const QString& dir, int epochs) {
  if (running()) return;
  live_->begin_resume(dir.toStdString());
  run_dir_ = dir;
  Q_EMIT run_begun("Resuming " + dir + "…");
  ResumeOptions options;
  if (epochs > 0) {  // a finished run, continued: train on to that epoch, with no step limit
    options.epochs = epochs;
    options.max_steps = 0;
  }
  if (!controller_->resume(dir.toStdString(), options)) refuse();
}

void RunLauncher::start_planned(RunPlan plan, std::function<std::shared_ptr<const Dataset>()> dataset,
                                const QString& what) {
  if (running()) return;
  live_->begin();
  run_dir_ = QString::fromStdString(plan.dir);
  Q_EMIT run_begun(what);
  const bool started = controller_->start([plan = std::move(plan), dataset = std::move(dataset)]() mutable {
    return std::make_unique<RecordedRun>(std::move(plan), dataset());
  });
  if (!started) refuse();
}

void RunLauncher::refuse() {
  live_->abandon();
  Q_EMIT refused("The previous run is still shutting down; try again in a moment.");
  if (sweeping()) {  // the sweep ends here: say so from the event loop, as after a run's end
    sweep_cancelled_ = true;
    QTimer::singleShot(0, this, &RunLauncher::next_sweep_run);
  }
}

void RunLauncher::start_sweep(std::vector<SweepPoint> points, bool scaling, const TrainConfig& base,
                              std::shared_ptr<const Dataset> dataset) {
  if (running() || points.empty()) return;
  sweep_ = std::make_shared<Sweep>(std::move(points), SweepOptions{default_runs_root(), scaling, {}});
  sweep_cancelled_ = false;
  if (dataset) sweep_->provide_dataset(base, std::move(dataset));
  next_sweep_run();
}

void RunLauncher::next_sweep_run() {
  std::optional<RunPlan> plan = sweep_cancelled_ ? std::nullopt : sweep_->next();
  if (!plan) {
    QStringList dirs;
    if (recording_)
      for (const auto& d : sweep_->dirs()) dirs << QString::fromStdString(d);
    const int total = static_cast<int>(sweep_->size());
    const bool cancelled = sweep_cancelled_;
    sweep_.reset();
    Q_EMIT sweep_finished(dirs, cancelled, total);
    return;
  }
  if (!recording_) plan->dir.clear();
  const size_t i = sweep_->position();
  const QString what = QString("Sweep run %1 of %2: %3").arg(i).arg(sweep_->size()).arg(QString::fromStdString(sweep_->label(i)));
  TrainConfig config = plan->config;
  start_planned(std::move(*plan), [sweep = sweep_, config = std::move(config)] { return sweep->dataset_for(config); }, what);
}

void RunLauncher::stop() {
  sweep_cancelled_ = sweeping();
  controller_->stop();
}

void RunLauncher::set_paused(bool paused) { controller_->set_paused(paused); }

void RunLauncher::shut_down() {
  sweep_cancelled_ = true;  // no next run after this one stops
  controller_->stop_and_wait();
}

}  // namespace mirror::ui
