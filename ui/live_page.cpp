#include "ui/live_page.h"

#include <QDir>

#include "ui/live_run.h"
#include "ui/metric_chart.h"
#include "ui/replica_view.h"

namespace mirror::ui {

LivePage::LivePage(LiveRun* run, QWidget* parent) : QSplitter(Qt::Vertical, parent), run_(run) {
  charts_[0] = new MetricChart(Metric::kLoss, "Loss");
  charts_[1] = new MetricChart(Metric::kAccuracy, "Accuracy");
  charts_[2] = new MetricChart(Metric::kTopK, "Top-5 accuracy");
  replicas_ = new ReplicaView;
  for (auto* c : charts_) addWidget(c);
  addWidget(replicas_);
  for (int i = 0; i < 3; ++i) setStretchFactor(i, 3);
  setStretchFactor(3, 1);
  connect(run_, &LiveRun::run_started, replicas_, &ReplicaView::on_started);
  connect(run_, &LiveRun::run_finished, replicas_, &ReplicaView::on_finished);
  connect(run_, &LiveRun::frame, this, &LivePage::redraw);
}

void LivePage::redraw() {
  for (auto* c : charts_) c->refresh(run_->metrics());
  if (run_->last_step().global_step > 0) replicas_->on_step(run_->last_step());
  // Paint now, inside the frame, so that LiveRun's frame cost includes the painting.
  for (auto* c : charts_) c->viewport()->repaint();
}

void LivePage::set_log_loss(bool on) {
  charts_[0]->set_log_scale(on);
  run_->touch();
}

void LivePage::set_dark(bool dark) {
  for (auto* c : charts_) c->set_dark(dark);
  run_->touch();
}

void LivePage::set_line_width(double width) {
  for (auto* c : charts_) c->set_line_width(width);
  run_->touch();
}

QStringList LivePage::export_charts(const QString& dir) {
  const char* names[] = {"loss", "accuracy", "top_k_accuracy"};
  QStringList failed;
  for (int i = 0; i < 3; ++i)
    if (!charts_[i]->export_png(QDir(dir).filePath(QString("%1.png").arg(names[i]))) ||
        !charts_[i]->export_svg(QDir(dir).filePath(QString("%1.svg").arg(names[i]))))
      failed << names[i];
  return failed;
}

}  // namespace mirror::ui
