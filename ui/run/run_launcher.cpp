#include "ui/run/run_launcher.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/strategy/local_workers.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "ui/run/live_run.h"
#include "ui/run/training_controller.h"

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

void RunLauncher::start_run(TrainConfig config, std::shared_ptr<const Dataset> dataset, int processes,
                            const QString& name) {
  RunPlan plan;
  plan.config = std::move(config);
  plan.meta.name = name.trimmed().toStdString();
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
std::atomic<int> run_counter{0};  // names each run's config file for its workers apart

// The other workers of a run the window trains as worker 0: `mirrortrain train ARGS` processes
// started before the run is prepared, reaped on a thread of their own once they end (with the
// run: a stop or the end is agreed by all workers; a failure of worker 0 ends theirs). `file`, if
// any, is removed once they have ended; `where` is let go then.
std::shared_ptr<LocalWorkers> start_other_workers(std::vector<std::string> args, int processes,
                                                  std::shared_ptr<const LocalRendezvous> where,
                                                  const std::filesystem::path& file = {}) {
  const QString program = RunLauncher::mirrortrain_path();
  if (!QFileInfo(program).isExecutable())
    throw ConfigError(QString("training in %1 processes needs mirrortrain, which is not at %2 (set MIRRORTRAIN to "
                              "its path)").arg(processes).arg(program).toStdString());
  args.insert(args.begin(), {program.toStdString(), "train"});
  args.insert(args.end(), {"--timeout", std::to_string(kWorkerTimeout.count())});
  auto remove_file = [file] {
    std::error_code ec;
    if (!file.empty()) std::filesystem::remove(file, ec);
  };
  auto others = std::make_shared<LocalWorkers>(/*first_rank=*/1, processes);
  try {
    others->start(args, *where, "mirrorbench");  // one that cannot start: those started are ended and reaped
  } catch (...) {
    remove_file();
    throw;
  }
  std::thread([others, remove_file, where = std::move(where)]() mutable {
    others->wait();
    remove_file();
    where.reset();
  }).detach();
  return others;
}

// Runs `prepare` as worker 0 of `processes`, the others started as `mirrortrain train ARGS`.
std::unique_ptr<RecordedRun> as_worker_zero(int processes, std::vector<std::string> args, const std::filesystem::path& file,
                                            const std::function<std::unique_ptr<RecordedRun>(std::shared_ptr<WorkerGroup>)>& prepare) {
  auto where = std::make_shared<const LocalRendezvous>();
  const auto others = start_other_workers(std::move(args), processes, where, file);
  try {
    auto workers = WorkerGroup::connect(local_worker_env(0, processes, *where, "mirrorbench"), kWorkerTimeout,
                                        std::chrono::seconds(60));
    // The workers' folder stays until both the other workers and this group are gone: the group
    // still looks in it to name a worker that was lost.
    return prepare(std::shared_ptr<WorkerGroup>(workers.get(), [workers, where](WorkerGroup*) mutable {
      workers.reset();
      where.reset();
    }));
  } catch (...) {
    others->signal(SIGTERM);
    throw;
  }
}
}  // namespace

void RunLauncher::resume_run(const QString& dir, int epochs) {
  if (running()) return;
  live_->begin_resume(dir.toStdString());
  run_dir_ = dir;
  run_config_.reset();
  // A run trained by several processes resumes with as many (the window is worker 0 again).
  int processes = 1;
  try {
    const nlohmann::json run = RunWriter::read_run_json(dir.toStdString());
    processes = recorded_processes(run);
    run_config_ = config_from_json(run.at("config"));
  } catch (const std::exception&) {  // an unreadable run.json: RecordedRun::resume says what is wrong
  }
  // Begun once its settings are known: what shows the run (the window's strip) names the resumed
  // run's, not the panels'.
  Q_EMIT run_begun("Resuming " + dir + "…");
  ResumeOptions options;
  if (epochs > 0) {  // a finished run, continued: train on to that epoch, with no step limit
    options.epochs = epochs;
    options.max_steps = 0;
  }
  bool started = false;
  if (processes > 1) {
    std::vector<std::string> args = {"--resume", dir.toStdString()};
    if (epochs > 0) args.insert(args.end(), {"--epochs", std::to_string(epochs)});
    started = controller_->start([dir = dir.toStdString(), options, processes, args]() mutable {
      return as_worker_zero(processes, args, {}, [&](std::shared_ptr<WorkerGroup> workers) {
        options.workers = std::move(workers);
        return RecordedRun::resume(dir, options);
      });
    });
  } else {
    started = controller_->resume(dir.toStdString(), options);
  }
  if (!started) refuse();
}

void RunLauncher::start_planned(RunPlan plan, std::function<std::shared_ptr<const Dataset>()> dataset,
                                const QString& what, int processes) {
  if (running()) return;
  live_->begin();
  run_dir_ = QString::fromStdString(plan.dir);
  run_config_ = plan.config;
  Q_EMIT run_begun(what);
  const bool started = controller_->start([plan = std::move(plan), dataset = std::move(dataset), processes]() mutable {
    if (processes > 1) {
      // This window is worker 0; the others train the same config from a file.
      const auto file = std::filesystem::temp_directory_path() /
                        ("mirrorbench-workers-" + std::to_string(::getpid()) + "-" + std::to_string(++run_counter) + ".json");
      {
        std::ofstream out(file);
        out << to_json(plan.config).dump(1);
        if (!out.good()) throw RunError("cannot write the workers' config to " + file.string());
      }
      return as_worker_zero(processes, {"--config", file.string(), "--no-record"}, file,
                            [&](std::shared_ptr<WorkerGroup> workers) {
                              plan.workers = std::move(workers);
                              return std::make_unique<RecordedRun>(std::move(plan), dataset());
                            });
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
                              std::shared_ptr<const Dataset> dataset, const std::string& lesson) {
  if (running() || points.empty()) return;
  sweep_ = std::make_shared<Sweep>(std::move(points), SweepOptions{default_runs_root(), scaling, {}, lesson});
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

int RunLauncher::sweep_position() const { return sweep_ ? static_cast<int>(sweep_->position()) : 0; }
int RunLauncher::sweep_size() const { return sweep_ ? static_cast<int>(sweep_->size()) : 0; }
QString RunLauncher::sweep_label() const {
  return sweep_ && sweep_->position() > 0 ? QString::fromStdString(sweep_->label(sweep_->position())) : QString();
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
