#include "ui/run/training_controller.h"

#include "mirror/runs/recorded_run.h"

#include <QElapsedTimer>

#include <cstdio>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"

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
  void on_evaluation(const Evaluation& e) override {
    flush();
    Q_EMIT c_->evaluated(e);
  }
  void on_hold() override { flush(); }  // a paused run shows every step it took
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
  qRegisterMetaType<mirror::Evaluation>();
}

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
  register_event_types();
  // Connected before anyone else, so it runs first when a run's end arrives.
  connect(this, &TrainingController::finished, this, [this] { reported_finished_ = true; });
}

TrainingController::~TrainingController() { stop_and_wait(); }

bool TrainingController::resume(std::string run_dir, ResumeOptions options) {
  return start([run_dir = std::move(run_dir), options] { return RecordedRun::resume(run_dir, options); });
}

bool TrainingController::start(std::function<std::unique_ptr<RecordedRun>()> prepare) {
  // A run that has reported its end may still be tearing down (closing its files): wait for it.
  if (thread_ && (reported_finished_ || thread_->isFinished())) stop_and_wait();
  if (thread_) return false;
  reported_finished_ = false;
  control_ = std::make_shared<TrainControl>();
  control_->pace = pace_;
  auto control = control_;
  thread_ = QThread::create([this, control, prepare = std::move(prepare)]() {
    SignalSink sink(this);
    try {
      std::unique_ptr<RecordedRun> run = prepare();
      for (const auto& w : run->warnings()) {
        std::fprintf(stderr, "mirrorbench: %s\n", terminal_text(w, LineBreaks::kKeep).c_str());
        Q_EMIT warned(QString::fromStdString(w));
      }
      run->run(sink, *control);
    } catch (const std::exception& e) {
      // Setting up failed: the run ends like any failed run, with a message the window shows.
      RunFinished f;
      f.status = RunStatus::kFailed;
      f.message = describe_exception(e);
      sink.on_finished(f);
    }
  });
  thread_->setObjectName("trainer");
  connect(thread_, &QThread::finished, thread_, &QObject::deleteLater);
  // The end arrives queued: by then stop_and_wait() may have cleared thread_ and a newer start()
  // set it again, so only this start's thread is forgotten.
  const uint64_t generation = ++generation_;
  connect(thread_, &QThread::finished, this, [this, generation] {
    if (generation == generation_) thread_ = nullptr;
  });
  thread_->start();
  return true;
}

void TrainingController::stop() {
  if (control_) control_->stop = true;
}

void TrainingController::set_pace(double steps_per_second) {
  pace_ = std::max(0.0, steps_per_second);
  if (control_) control_->pace = pace_;
}

void TrainingController::set_paused(bool paused) {
  if (control_) control_->pause = paused;
}

void TrainingController::step_once() {
  if (control_) control_->single_steps.fetch_add(1);
}

bool TrainingController::paused() const { return control_ && control_->pause.load(); }

bool TrainingController::holding() const { return control_ && control_->holding.load(); }

void TrainingController::stop_and_wait() {
  if (!thread_) return;
  stop();
  QThread* t = thread_;
  t->wait();
  thread_ = nullptr;
}

}  // namespace mirror::ui
