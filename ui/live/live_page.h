#pragma once
// The Live page: loss, accuracy and top-k charts of the current run side by side, one legend
// under them, and the replica view below. It subscribes to a LiveRun and redraws on its frames.
// Side by side, every chart keeps the page's height (a stack of three gave each a sliver on a
// 720-pixel projector), and the replica view takes at most a fifth of it.

#include <QSplitter>

class QLabel;

#include <cstdint>

#include "ui/run/run_metrics.h"

namespace mirror::ui {

class LiveRun;
class MetricChart;
class ReplicaView;

class LivePage : public QSplitter {
  Q_OBJECT
 public:
  explicit LivePage(LiveRun* run, QWidget* parent = nullptr);

  MetricChart* chart(Metric m) const { return charts_[static_cast<int>(m)]; }
  ReplicaView* replica_view() const { return replicas_; }
  // The one legend of the charts (their series look the same in each), under them; it wraps
  // rather than cutting a name short.
  QLabel* legend() const { return legend_; }
  void set_log_loss(bool on);
  void set_dark(bool dark);
  void set_line_width(double width);
  void set_projector(bool on);
  // The learning-rate chart (hidden until asked for, or until a run's rate changes).
  void show_learning_rate(bool on);
  // Before a run, for the dataset chosen: the top-k chart only when k is below its classes (a
  // top-5 accuracy of 3 classes is always 1). A run's start decides again from its own numbers.
  void expect_classes(int64_t classes, int top_k);
  bool top_k_shown() const;
  bool learning_rate_shown() const;
  // Writes loss/accuracy/top_k_accuracy .png and .svg into `dir`; the names it could not write.
  QStringList export_charts(const QString& dir);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void redraw();
  // Gives the replica view what it needs (at most a fifth of the page) and the charts the rest;
  // side by side, the learning-rate chart two thirds of the others' width; until the user drags
  // a handle.
  void share_height();
  // The charts' own legends hidden; the page's legend says what their lines are.
  void place_legends();

  LiveRun* run_;
  MetricChart* charts_[kMetricCount];
  QSplitter* row_;  // the charts, side by side
  QLabel* legend_;
  ReplicaView* replicas_;
  bool learning_rate_switched_off_ = false;
  bool user_sized_ = false;
  bool projector_ = false;
  bool stale_ = false;  // frames came while another page was in front: redraw when shown
};

}  // namespace mirror::ui
