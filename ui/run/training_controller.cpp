#include "ui/run/training_controller.h"

#include "mirror/runs/recorded_run.h"

#include <QElapsedTimer>

#include <cstdio>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"

namespace mirror::ui {

namespace {
// Runs on the training thread and hands each event to the GUI thread, where the controller's
// signal is emitted (see deliver). Steps are batched: one queued signal per ~20 ms at most, flushed before every other event so
// the order of events is kept.
class SignalSink : public EventSink {
 public:
  SignalSink(TrainingController* c, uint64_t generation) : c_(c), generation_(generation) { since_flush_.start(); }
  void on_started(const RunStarted& e) override {
    deliver([e](TrainingController* c) { Q_EMIT c->started(e); });
  }
  void on_step(const StepMetrics& e) override {
    pending_.push_back(e);
    if (since_flush_.elapsed() >= kFlushMs) flush();
  }
  void on_epoch(const EpochMetrics& e) override {
    flush();
    deliver([e](TrainingController* c) { Q_EMIT c->epoch(e); });
  }
  void on_evaluation(const Evaluation& e) override {
    flush();
    deliver([e](TrainingController* c) { Q_EMIT c->evaluated(e); });
  }
  void on_hold() override { flush(); }  // a paused run shows every step it took
  void on_finished(const RunFinished& e) override {
    flush();
    deliver([e](TrainingController* c) { Q_EMIT c->finished(e); });
  }
  void warn(const std::string& message) {
    deliver([m = QString::fromStdString(message)](TrainingController* c) { Q_EMIT c->warned(m); });
  }

 private:
  static constexpr qint64 kFlushMs = 20;
  void flush() {
    if (!pending_.empty())
      deliver([batch = std::move(pending_)](TrainingController* c) { Q_EMIT c->steps(batch); });
    pending_.clear();
    since_flush_.restart();
  }
  // Queues `send` to the GUI thread, where it runs only while this run is still the controller's
  // latest start: the events of a run stopped and waited for, still in the queue when the next
  // run starts, are dropped there rather than heard as the new run's (its end would end the new
  // run on the Live page).
  template <typename Send>
  void deliver(Send send) {
    QMetaObject::invokeMethod(
        c_, [c = c_, generation = generation_, send = std::move(send)] {
          if (c->is_latest_start(generation)) send(c);
        },
        Qt::QueuedConnection);
  }
  TrainingController* c_;
  uint64_t generation_;
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
  // The end arrives queued: by then stop_and_wait() may have cleared thread_ and a newer start()
  // set it again, so only this start's thread is forgotten, and only this start's events heard.
  const uint64_t generation = ++generation_;
  thread_ = QThread::create([this, control, generation, prepare = std::move(prepare)]() {
    SignalSink sink(this, generation);
    try {
      std::unique_ptr<RecordedRun> run = prepare();
      for (const auto& w : run->warnings()) {
        std::fprintf(stderr, "mirrorbench: %s\n", terminal_text(w, LineBreaks::kKeep).c_str());
        sink.warn(w);
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
