#pragma once
// Per replica: its device, shard size, and where its last step's time went (compute, all-reduce,
// update) as a stacked bar; plus the communicator in use and the sync-check state.

#include <QWidget>

#include "mirror/train/events.h"

class QLabel;

namespace mirror::ui {

class ReplicaBars : public QWidget {
 public:
  explicit ReplicaBars(QWidget* parent = nullptr);
  void set_replicas(const std::vector<std::string>& names);
  void set_timings(const std::vector<ReplicaTiming>& timings);
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::vector<std::string> names_;
  std::vector<ReplicaTiming> timings_;
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

 private:
  ReplicaBars* bars_;
  QLabel* communicator_;
  QLabel* sync_;
};

}  // namespace mirror::ui
