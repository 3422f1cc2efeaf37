#include "ui/run_launcher.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "mirror/runs/recorded_run.h"
#include "mirror/strategy/local_workers.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
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

void RunLauncher::start_run(TrainConfig config, std::shared_ptr<const Dataset> dataset, int processes) {
  RunPlan plan;
  plan.config = std::move(config);
  if (recording_) plan.dir = plan_run_dir(default_runs_root(), plan.config);
  start_planned(std::move(plan), [dataset = std::move(dataset)] { return dataset; },
                processes > 1 ? QString("Starting %1 worker processes…").arg(processes) : QString("Starting…"),
                processes);
}

QString RunLauncher::mirrortrain_path() {
  const QByteArray env = qgetenv("MIRRORTRAIN");
  if (!env.isEmpty()) return QString::fromLocal8Bit(env);
  return QDir(QCoreApplication::applicationDirPath()).filePath("mirrortrain");
}

namespace {
// How long the window's workers wait for each other: long, because a paused run holds worker 0
// between steps while the others wait in their next collective. A worker that dies is still
// noticed at once (its connections close).
constexpr std::chrono::seconds kWorkerTimeout{3600};

// The other workers of a run the window trains as worker 0: `mirrortrain train --config` processes
// started before the run is prepared, reaped on a thread of their own once they end (with the
// run: a stop or the end is agreed by all workers; a failure of worker 0 ends theirs).
std::vector<pid_t> start_other_workers(const TrainConfig& config, int processes, int port) {
  const QString program = RunLauncher::mirrortrain_path();
  if (!QFileInfo(program).isExecutable())
    throw ConfigError(QString("training in %1 processes needs mirrortrain, which is not at %2 (set MIRRORTRAIN to "
                              "its path)").arg(processes).arg(program).toStdString());
  const auto file = std::filesystem::temp_directory_path() /
                    ("mirrorbench-workers-" + std::to_string(::getpid()) + "-" + std::to_string(port) + ".json");
  std::ofstream(file) << to_json(config).dump(1);
  std::vector<pid_t> pids;
  for (int rank = 1; rank < processes; ++rank)
    pids.push_back(spawn_worker({program.toStdString(), "train", "--config", file.string(), "--no-record", "--timeout",
                                 std::to_string(kWorkerTimeout.count())},
                                local_worker_env(rank, processes, port, "mirrorbench")));
  std::thread([pids, file] {
    for (pid_t p : pids) wait_for_worker(p);
    std::error_code ec;
    std::filesystem::remove(file, ec);
  }).detach();
  return pids;
}
}  // namespace

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
                                const QString& what, int processes) {
  if (running()) return;
  live_->begin();
  run_dir_ = QString::fromStdString(plan.dir);
  Q_EMIT run_begun(what);
  const bool started = controller_->start([plan = std::move(plan), dataset = std::move(dataset), processes]() mutable {
    if (processes > 1) {
      // This window is worker 0; the others meet it on a free port of 127.0.0.1.
      const int port = free_loopback_port();
      const auto others = start_other_workers(plan.config, processes, port);
      try {
        plan.workers = WorkerGroup::connect(local_worker_env(0, processes, port, "mirrorbench"), kWorkerTimeout,
                                            std::chrono::seconds(60));
      } catch (...) {
        for (pid_t p : others) ::kill(p, SIGTERM);
        throw;
      }
    }
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
