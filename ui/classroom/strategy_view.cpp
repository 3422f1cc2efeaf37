#include "ui/classroom/strategy_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

#include "mirror/data/preview.h"
#include "mirror/runs/trace.h"
#include "ui/run/live_run.h"
#include "ui/run/training_controller.h"
#include "ui/widgets/class_look.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {
constexpr int kFrameMs = 33;             // at most ~30 frames a second
constexpr int kMaxFrameMs = 125;         // and at least 8, however slow the painting
constexpr double kPaintBudget = 0.015;   // of wall time spent painting the animation, at most
constexpr double kLivePhaseMs = 700;     // a live replay's pace per phase
constexpr double kWalkPhaseMs = 1100;    // step by step: slower, to read each sentence
constexpr double kLiveRestMs = 800;      // a live replay rests on the whole step before the next
}  // namespace

StrategyView::StrategyView(LiveRun* run, TrainingController* controller, QWidget* parent)
    : QWidget(parent), run_(run), controller_(controller) {
  mode_choice_ = new QComboBox;
  mode_choice_->addItems({"Live", "Paused", "Step by step"});
  mode_choice_->setToolTip("Live replays a recent step; Paused holds the drawing; Step by step holds the run between "
                           "steps and takes one each time Space is pressed");
  next_ = new QPushButton("Next step (Space)");
  next_->setToolTip("Step by step: take exactly one more training step, then walk through it");
  export_ = new QPushButton("Export trace…");
  export_->setToolTip("Write the last steps on their one clock as a trace file that Perfetto (ui.perfetto.dev) and "
                      "chrome://tracing open");
  phase_line_ = plain_label();  // it quotes class names from the dataset's files
  phase_line_->setObjectName("strategy-phase");
  phase_line_->setWordWrap(true);
  fit_phase_font();
  diagram_ = new StepDiagram;
  diagram_->setObjectName("strategy-diagram");
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel("Mode"));
  bar->addWidget(mode_choice_);
  bar->addWidget(next_);
  bar->addStretch(1);
  bar->addWidget(export_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(diagram_, 1);
  layout->addWidget(phase_line_);
  timer_ = new QTimer(this);
  timer_->setInterval(kFrameMs);
  connect(timer_, &QTimer::timeout, this, &StrategyView::tick);
  connect(run_, &LiveRun::frame, this, &StrategyView::on_frame);
  connect(run_, &LiveRun::run_started, this, [this] {
    walked_step_ = 0;
    diagram_->set_picture({});
    if (mode_ == Mode::kStepByStep) {  // a new run starts unpaused: hold it too
      controller_->set_paused(true);
      Q_EMIT pause_wanted(true);
    }
  });
  connect(run_, &LiveRun::run_finished, this, [this] {
    // The sync check stopped the run: hold on the failing check (no step reported it).
    if (!run_->last_sync_failed()) return;
    diagram_->set_picture(take_picture(run_->typical_step()));
    walking_ = false;
    show_phase(StepPhase::kSyncCheck, 1.0);
    update_timer();
  });
  connect(mode_choice_, qOverload<int>(&QComboBox::activated), this, [this](int i) { set_mode(static_cast<Mode>(i)); });
  connect(next_, &QPushButton::clicked, this, &StrategyView::next_step);
  connect(export_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export trace", "steps.trace.json", "Chrome trace (*.json)");
    if (!path.isEmpty()) phase_line_->setText(export_trace(path));
  });
  set_mode(Mode::kLive);
}

StepPicture StrategyView::take_picture(const StepMetrics& step) const {
  StepPicture pic;
  const RunStarted& s = run_->started();
  pic.global_step = step.global_step;
  pic.global_batch = s.global_batch;
  pic.devices = s.devices;
  pic.replicas = step.replicas;
  pic.timeline = step.timeline;
  pic.communicator = s.communicator;
  pic.parameters = s.parameters;
  pic.sync_step = run_->last_sync_check();
  pic.checksums = run_->last_checksums();
  pic.sync_failed = run_->last_sync_failed();
  // The shards' examples, from the window's dataset when the run trains on it.
  if (dataset_ && !step.shard_examples.empty() && dataset_->info().name == s.dataset &&
      dataset_->size(Split::kTrain) == s.train_size) {
    const int thumb = 3 * fontMetrics().height();  // drawn at 2.4 lines: sharp at the projector's font too
    for (const auto& indices : step.shard_examples) {
      auto& shard = pic.shard_examples.emplace_back();
      for (const ExamplePreview& e : preview_examples(*dataset_, Split::kTrain, indices)) {
        ShardExample x;
        x.index = e.index;
        x.label = e.label;
        x.name = e.label_name.empty() ? QString::number(e.label) : QString::fromStdString(e.label_name);
        x.picture = example_thumbnail(e, thumb);
        if (x.picture.isNull() && !e.text.empty()) x.words = QString::fromStdString(e.text);
        if (x.picture.isNull() && e.text.empty() && e.values.size() == 2) x.point = e.values;
        shard.push_back(std::move(x));
      }
    }
  }
  return pic;
}

QString StrategyView::export_trace(const QString& path) {
  const auto& kept = run_->recent_steps();
  TraceOptions options;
  options.steps = {0, 0};
  for (const StepMetrics& s : kept) {
    if (s.timeline.empty() || s.timeline.global_step <= 0) continue;
    if (options.steps.first == 0 || s.timeline.global_step < options.steps.first) options.steps.first = s.timeline.global_step;
    options.steps.last = std::max(options.steps.last, s.timeline.global_step);
  }
  if (options.steps.last == 0) return "No step with a timeline yet: start a run, then export its last steps.";
  const RunStarted& started = run_->started();
  options.devices = started.devices;
  options.label = started.model.empty() ? started.dataset : started.model + " on " + started.dataset;
  try {
    const TraceWritten w = write_trace(path.toStdString(), std::vector<StepMetrics>(kept.begin(), kept.end()), options);
    return QString("Trace written: %1 (steps %2 to %3, %4). Open it in ui.perfetto.dev or chrome://tracing.")
        .arg(QString::fromStdString(w.path))
        .arg(options.steps.first)
        .arg(options.steps.last)
        .arg(bytes_text(static_cast<double>(w.bytes)));
  } catch (const std::exception& e) {
    return QString("The trace was not written: %1").arg(QString::fromStdString(e.what()));
  }
}

void StrategyView::set_mode(Mode mode) {
  const bool was_stepping = mode_ == Mode::kStepByStep;
  mode_ = mode;
  mode_choice_->setCurrentIndex(static_cast<int>(mode));
  next_->setEnabled(mode == Mode::kStepByStep);
  if (mode == Mode::kStepByStep) {
    walked_step_ = run_->last_step().global_step;
    walking_ = false;
    phase_line_->setText("Step by step: the run holds between steps. Press Space for the next one.");
    Q_EMIT pause_wanted(true);
  } else {
    if (was_stepping) Q_EMIT pause_wanted(false);
    walking_ = mode == Mode::kLive;
    if (mode == Mode::kPaused) show_phase(StepPhase::kSyncCheck, 1.0);
  }
  update_timer();
}

void StrategyView::next_step() {
  if (mode_ != Mode::kStepByStep) set_mode(Mode::kStepByStep);
  controller_->step_once();
  phase_line_->setText("Taking one step…");
}

namespace {
// " Replica 0's shard begins with Sandal, Shirt and Bag." when the examples are known.
QString shard_start_sentence(const StepPicture& pic) {
  if (pic.shard_examples.empty() || pic.shard_examples.front().empty()) return {};
  QStringList names;
  for (const auto& e : pic.shard_examples.front()) names << e.name;
  const QString last = names.takeLast();
  const QString list = names.isEmpty() ? last : names.join(", ") + " and " + last;
  return QString(" Replica 0's shard begins with %1.").arg(list);
}
}  // namespace

QString StrategyView::explain(StepPhase phase) const {
  const auto& pic = diagram_->picture();
  const int n = static_cast<int>(pic.replicas.size());
  QStringList sizes;
  double fastest = 0, slowest = 0;
  for (int r = 0; r < n; ++r) {
    const auto& t = pic.replicas[static_cast<size_t>(r)];
    sizes << QString::number(t.shard_size);
    fastest = r == 0 ? t.compute_ms : std::min(fastest, t.compute_ms);
    slowest = std::max(slowest, t.compute_ms);
  }
  // On the step's clock when it has one: the same numbers the bars show.
  const StepTimeline& tl = pic.timeline;
  for (size_t r = 0; r < tl.replicas.size(); ++r) {
    fastest = r == 0 ? tl.replicas[r].compute_ms() : std::min(fastest, tl.replicas[r].compute_ms());
    slowest = r == 0 ? tl.replicas[r].compute_ms() : std::max(slowest, tl.replicas[r].compute_ms());
  }
  switch (phase) {
    case StepPhase::kSplit:
      return QString("Split: the global batch of %1 examples is cut into %2 (%3), one per replica; sizes differ by at "
                     "most one.")
          .arg(pic.global_batch)
          .arg(n == 1 ? QString("one shard") : QString("%1 shards").arg(n))
          .arg(sizes.join(", ")) +
             shard_start_sentence(pic);
    case StepPhase::kCompute:
      return QString("Forward and backward: each replica runs its own copy of the model on its own shard and computes "
                     "its gradients, all at once (%1 to %2 ms).")
          .arg(fastest, 0, 'f', 2)
          .arg(slowest, 0, 'f', 2);
    case StepPhase::kAllReduce:
    {
      // Who arrived last, and why, from the timeline the bars are drawn from.
      const QString who = n < 2 ? QString()
                          : tl.empty() ? QString(" This step has no timeline, so who waited for whom is not known.")
                                       : " " + QString::fromStdString(straggler_sentence(tl));
      return QString("All-reduce: %1 sums the %2 gradients of every replica (%3 each) and gives every replica the sum.")
                 .arg(QString::fromStdString(pic.communicator))
                 .arg(pic.parameters)
                 .arg(bytes_text(4.0 * static_cast<double>(pic.parameters))) +
             who;
    }
    case StepPhase::kUpdate:
      return "Update: every replica applies the same optimizer step with the same summed gradient to its own copy, so "
             "the copies stay identical.";
    case StepPhase::kSyncCheck:
      if (pic.sync_step == 0 || pic.checksums.empty()) return "Sync check: none yet (it runs every few steps).";
      if (const QStringList odd = pic.differing_replicas(); !odd.isEmpty() || pic.sync_failed)
        return QString("Sync check FAILED after step %1: %2 from replica 0's (%3). The copies are no longer "
                       "bit-identical, so the run stopped.")
            .arg(pic.sync_step)
            .arg(odd.isEmpty() ? QString("the replicas of another process differ")
                 : odd.size() == 1 ? QString("replica %1's parameters hash differently").arg(odd.front())
                                   : QString("replicas %1 and %2 hash differently")
                                         .arg(QStringList(odd.mid(0, odd.size() - 1)).join(", "), odd.back()))
            .arg(checksum_text(pic.checksums.front()));
      return QString("Sync check: after step %1 every replica's parameters hash to %2: the %3 copies are bit-identical.")
          .arg(pic.sync_step)
          .arg(checksum_text(pic.checksums.front()))
          .arg(pic.checksums.size());
  }
  return {};
}

void StrategyView::show_phase(StepPhase phase, double progress) {
  const bool changed = phase != phase_;
  phase_ = phase;
  diagram_->set_phase(phase, progress);
  if (changed || phase_line_->text().isEmpty() || progress >= 1.0) {
    QString line = explain(phase);
    if (mode_ == Mode::kStepByStep && phase == StepPhase::kSyncCheck && progress >= 1.0) line += " Press Space for the next step.";
    phase_line_->setText(line);
  }
}

void StrategyView::on_frame() {
  const StepMetrics& last = run_->last_step();
  if (last.global_step == 0 || last.replicas.empty()) return;
  if (diagram_->picture().replicas.empty()) {  // the first step of a run: something to show at once
    diagram_->set_picture(take_picture(run_->typical_step()));
    if (mode_ == Mode::kLive) walking_ = true;
  }
  if (mode_ == Mode::kStepByStep && last.global_step > walked_step_) {
    // The step just taken, walked through phase by phase.
    walked_step_ = last.global_step;
    diagram_->set_picture(take_picture(last));
    phase_ms_ = 0;
    walking_ = true;
    show_phase(StepPhase::kSplit, 0.0);
  }
  update_timer();
}

void StrategyView::tick() {
  if (!walking_) return update_timer();
  const double per_phase = mode_ == Mode::kStepByStep ? kWalkPhaseMs : kLivePhaseMs;
  // The replay keeps the clock's pace whatever the frame rate: frames are spaced so that painting
  // takes at most kPaintBudget of the wall time (a training run on every core loses no more than
  // that to the animation), between ~30 and 8 frames a second.
  phase_ms_ += since_tick_.isValid() ? std::min<double>(static_cast<double>(since_tick_.restart()), kMaxFrameMs) : kFrameMs;
  timer_->setInterval(std::clamp(static_cast<int>(diagram_->paint_ms() / kPaintBudget), kFrameMs, kMaxFrameMs));
  int phase = static_cast<int>(phase_);
  if (phase_ms_ >= per_phase) {
    if (phase + 1 < kStepPhases) {
      ++phase;
      phase_ms_ = 0;
    } else if (mode_ == Mode::kStepByStep) {
      show_phase(StepPhase::kSyncCheck, 1.0);
      walking_ = false;
      return update_timer();
    } else if (phase_ms_ >= per_phase + kLiveRestMs) {
      // Live: the next replay, of the latest typical step.
      if (run_->last_step().global_step > 0) diagram_->set_picture(take_picture(run_->typical_step()));
      phase = 0;
      phase_ms_ = 0;
    }
  }
  show_phase(static_cast<StepPhase>(phase), std::min(1.0, phase_ms_ / per_phase));
}

void StrategyView::update_timer() {
  const bool animate = isVisible() && walking_ && !diagram_->picture().replicas.empty();
  if (animate && !timer_->isActive()) {
    timer_->start();
    since_tick_.start();  // time spent hidden or stopped does not move the replay
  }
  if (!animate && timer_->isActive()) timer_->stop();
}

void StrategyView::fit_phase_font() {
  QFont big = font();
  big.setPointSizeF(big.pointSizeF() * 1.15);
  phase_line_->setFont(big);
}

void StrategyView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) fit_phase_font();  // projector mode: the sentence grows too
}

void StrategyView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space) {
    next_step();
    return;
  }
  QWidget::keyPressEvent(event);
}

void StrategyView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  update_timer();
}

void StrategyView::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  update_timer();
}

}  // namespace mirror::ui
