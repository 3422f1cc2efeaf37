#pragma once
// Per replica: its device, shard size, and its last step on the step's one clock (copy, forward,
// backward, the wait for the last replica at the all-reduce, the all-reduce, the update; the time
// before the step that was not training apart), drawn as the Strategy tab draws it
// (ui/widgets/timeline_bars.h); the sentence naming the replica that arrived last; the
// communicator in use and the sync-check state.

#include <QWidget>

#include "mirror/train/events.h"
#include "ui/widgets/timeline_bars.h"

class QLabel;

namespace mirror::ui {

class ReplicaBars : public QWidget {
 public:
  explicit ReplicaBars(QWidget* parent = nullptr);
  void set_replicas(const std::vector<std::string>& names);
  // The step's timings, and its timeline when it has one (else the durations are drawn side by
  // side, not on a clock).
  void set_step(const std::vector<ReplicaTiming>& timings, const StepTimeline& timeline);
  const StepTimeline& timeline() const { return timeline_; }
  // Where `phase` of replica `replica` is drawn at the current size; empty without a timeline.
  QRectF bar_rect(int replica, TimelinePhase phase) const;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  int row_height() const;
  int label_width() const;
  double bars_right() const;

  std::vector<std::string> names_;
  std::vector<ReplicaTiming> timings_;
  StepTimeline timeline_;
};

class ReplicaView : public QWidget {
  Q_OBJECT
 public:
  explicit ReplicaView(QWidget* parent = nullptr);
  void on_started(const RunStarted& e);
  void on_step(const StepMetrics& e);
  void on_finished(const RunFinished& e);
  // The replicas were last checked bit-identical after `step` (0: not yet).
  void show_sync_check(int64_t step);
  QLabel* sync_label() const { return sync_; }
  // Who arrived last at the all-reduce of the step shown, and why (the Strategy tab's sentence).
  QLabel* straggler_label() const { return straggler_; }
  ReplicaBars* bars() const { return bars_; }

 private:
  ReplicaBars* bars_;
  QLabel* communicator_;
  QLabel* straggler_;
  QLabel* sync_;
};

}  // namespace mirror::ui
