#include "ui/training_controller.h"

#include <QElapsedTimer>

#include <cstdio>

#include "mirror/data/registry.h"
#include "mirror/runs/resume.h"
#include "mirror/runs/run_writer.h"
#include "mirror/runs/tensorboard.h"
#include "mirror/util/error.h"

namespace mirror::ui {

namespace {
// Runs on the training thread: emitting a signal of a GUI-thread object from here queues it.
// Steps are batched: one queued signal per ~20 ms at most, flushed before every other event so
// the order of events is kept.
class SignalSink : public EventSink {
 public:
  explicit SignalSink(TrainingController* c) : c_(c) { since_flush_.start(); }
  void on_started(const RunStarted& e) override { Q_EMIT c_->started(e); }
  void on_step(const StepMetrics& e) override {
    pending_.push_back(e);
    if (since_flush_.elapsed() >= kFlushMs) flush();
  }
  void on_epoch(const EpochMetrics& e) override {
    flush();
    Q_EMIT c_->epoch(e);
  }
  void on_finished(const RunFinished& e) override {
    flush();
    Q_EMIT c_->finished(e);
  }

 private:
  static constexpr qint64 kFlushMs = 20;
  void flush() {
    if (!pending_.empty()) Q_EMIT c_->steps(pending_);
    pending_.clear();
    since_flush_.restart();
  }
  TrainingController* c_;
  std::vector<StepMetrics> pending_;
  QElapsedTimer since_flush_;
};
}  // namespace

void register_event_types() {
  qRegisterMetaType<mirror::RunStarted>();
  qRegisterMetaType<mirror::StepMetrics>();
  qRegisterMetaType<std::vector<mirror::StepMetrics>>();
  qRegisterMetaType<mirror::EpochMetrics>();
  qRegisterMetaType<mirror::RunFinished>();
}

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
  register_event_types();
  // Connected before anyone else, so it runs first when a run's end arrives.
  connect(this, &TrainingController::finished, this, [this] { reported_finished_ = true; });
}

TrainingController::~TrainingController() { stop_and_wait(); }

// What a run needs before its first step, made on its thread (loading a dataset or a
// checkpoint can take a while).
struct TrainingController::Prepared {
  std::unique_ptr<Trainer> trainer;
  std::unique_ptr<RunWriter> record;  // null: not recorded
};

bool TrainingController::start(TrainConfig config, std::shared_ptr<const Dataset> dataset, std::string run_dir,
                               nlohmann::json run_extra) {
  if (!run_dir.empty()) config.checkpoints.dir = run_dir + "/checkpoints";
  return launch([config = std::move(config), dataset = std::move(dataset), run_dir = std::move(run_dir),
          run_extra = std::move(run_extra)]() mutable {
    Prepared p;
    p.trainer = std::make_unique<Trainer>(config, std::move(dataset));
    if (!run_dir.empty()) p.record = std::make_unique<RunWriter>(run_dir, to_json(config), run_extra);
    return p;
  });
}

bool TrainingController::resume(std::string run_dir, int epochs) {
  return launch([run_dir = std::move(run_dir), epochs] {
    ResumePoint r = resume_point(run_dir);
    if (epochs > 0) {
      r.config.epochs = epochs;
      r.config.max_steps = 0;
    }
    r.config.validate();
    Prepared p;
    p.trainer = std::make_unique<Trainer>(r.config, load_dataset(r.config.dataset));
    p.record = RunWriter::resume(run_dir, r.from_step);
    return p;
  });
}

bool TrainingController::launch(std::function<Prepared()> prepare) {
  // A run that has reported its end may still be tearing down (closing its files): wait for it.
  if (thread_ && (reported_finished_ || thread_->isFinished())) stop_and_wait();
  if (thread_) return false;
  reported_finished_ = false;
  control_ = std::make_shared<TrainControl>();
  auto control = control_;
  thread_ = QThread::create([this, control, prepare = std::move(prepare)]() {
    SignalSink sink(this);
    try {
      Prepared p = prepare();
      std::unique_ptr<TensorBoardWriter> tensorboard;
      std::vector<EventSink*> sinks;
      if (p.record) {
        sinks.push_back(p.record.get());
        try {
          tensorboard = std::make_unique<TensorBoardWriter>(p.record->dir());
          sinks.push_back(tensorboard.get());
        } catch (const std::exception& e) {  // the run is still recorded in run.json and metrics.jsonl
          std::fprintf(stderr, "mirrorbench: no TensorBoard events for this run: %s\n", e.what());
        }
      }
      // The window hears of each event last, when the records already hold it.
      sinks.push_back(&sink);
      TeeSink tee(sinks);
      p.trainer->run(tee, *control);
    } catch (const std::exception& e) {
      // Setting up failed (a config the panels could not foresee, no checkpoint to resume
      // from, out of memory): the run ends like any failed run, with a message the window shows.
      RunFinished f;
      f.status = RunStatus::kFailed;
      f.message = describe_exception(e);
      sink.on_finished(f);
    }
  });
  thread_->setObjectName("trainer");
  connect(thread_, &QThread::finished, thread_, &QObject::deleteLater);
  connect(thread_, &QThread::finished, this, [this] { thread_ = nullptr; });
  thread_->start();
  return true;
}

void TrainingController::stop() {
  if (control_) control_->stop = true;
}

void TrainingController::set_paused(bool paused) {
  if (control_) control_->pause = paused;
}

bool TrainingController::paused() const { return control_ && control_->pause.load(); }

void TrainingController::stop_and_wait() {
  if (!thread_) return;
  stop();
  QThread* t = thread_;
  t->wait();
  thread_ = nullptr;
}

}  // namespace mirror::ui
