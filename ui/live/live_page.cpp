#include "ui/live/live_page.h"

#include <QDir>
#include <QLabel>
#include <QVBoxLayout>
#include <QResizeEvent>
#include <QScrollArea>
#include <QTimer>

#include <algorithm>

#include "ui/live/metric_chart.h"
#include "ui/live/replica_view.h"
#include "ui/run/live_run.h"

namespace mirror::ui {

LivePage::LivePage(LiveRun* run, QWidget* parent) : QSplitter(Qt::Vertical, parent), run_(run) {
  charts_[0] = new MetricChart(Metric::kLoss, "Loss");
  charts_[1] = new MetricChart(Metric::kAccuracy, "Accuracy");
  charts_[2] = new MetricChart(Metric::kTopK, "Top-5 accuracy");
  charts_[3] = new MetricChart(Metric::kLearningRate, "Learning rate");
  charts_[3]->hide();
  replicas_ = new ReplicaView;
  row_ = new QSplitter(Qt::Horizontal);
  row_->setObjectName("chart_row");
  row_->setChildrenCollapsible(false);
  for (auto* c : charts_) row_->addWidget(c);
  for (int i = 0; i < kMetricCount; ++i) row_->setStretchFactor(i, i == 3 ? 2 : 3);
  legend_ = new QLabel;
  legend_->setObjectName("chart_legend");
  legend_->setWordWrap(true);
  legend_->setTextFormat(Qt::RichText);  // made from the series' own names and colours
  legend_->setAlignment(Qt::AlignHCenter);
  auto* charts = new QWidget;
  auto* charts_layout = new QVBoxLayout(charts);
  charts_layout->setContentsMargins(0, 0, 0, 0);
  charts_layout->setSpacing(0);
  charts_layout->addWidget(row_, 1);
  charts_layout->addWidget(legend_);
  addWidget(charts);
  // Scrolled when the page is short: a replica view whose text wraps on a narrow projector page
  // must not make the window taller than the screen (it pushed the status bar off a 720p one).
  auto* replica_scroll = new QScrollArea;
  replica_scroll->setObjectName("replica_scroll");
  replica_scroll->setWidget(replicas_);
  replica_scroll->setWidgetResizable(true);
  replica_scroll->setFrameShape(QFrame::NoFrame);
  replica_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  replica_scroll->setMinimumHeight(0);
  addWidget(replica_scroll);
  setChildrenCollapsible(false);
  setStretchFactor(0, 4);
  setStretchFactor(1, 1);
  place_legends();
  connect(run_, &LiveRun::run_started, replicas_, &ReplicaView::on_started);
  connect(run_, &LiveRun::run_started, this, [this](const RunStarted& e) {
    // Top-k of k classes or more is always 1: no chart for it then.
    charts_[2]->setVisible(e.num_classes <= 0 || e.top_k < e.num_classes);
    charts_[2]->chart()->setTitle(QString("Top-%1 accuracy").arg(e.top_k));
  });
  connect(run_, &LiveRun::run_finished, replicas_, &ReplicaView::on_finished);
  connect(run_, &LiveRun::frame, this, &LivePage::redraw);
  connect(this, &QSplitter::splitterMoved, this, [this] { user_sized_ = true; });
  connect(row_, &QSplitter::splitterMoved, this, [this] { user_sized_ = true; });
  // A new run may show other charts and more replicas: share the height again once laid out.
  connect(run_, &LiveRun::run_started, this, [this] {
    place_legends();
    QTimer::singleShot(0, this, &LivePage::share_height);
  });
}

void LivePage::expect_classes(int64_t classes, int top_k) {
  const bool show = classes <= 0 || top_k < classes;
  charts_[2]->chart()->setTitle(QString("Top-%1 accuracy").arg(top_k));
  if (show == !charts_[2]->isHidden()) return;
  charts_[2]->setVisible(show);
  place_legends();
  QTimer::singleShot(0, this, &LivePage::share_height);
}

bool LivePage::top_k_shown() const { return !charts_[2]->isHidden(); }

void LivePage::resizeEvent(QResizeEvent* event) {
  QSplitter::resizeEvent(event);
  share_height();
}

void LivePage::share_height() {
  if (user_sized_ || height() <= 0) return;
  const int replica_h = std::min(widget(1)->sizeHint().height(), height() / 5);
  setSizes({std::max(0, height() - replica_h - handleWidth()), replica_h});
  double weights = 0;
  for (int i = 0; i < kMetricCount; ++i)
    if (!charts_[i]->isHidden()) weights += i == 3 ? 2.0 / 3 : 1.0;
  const int for_charts = std::max(0, row_->width() - row_->handleWidth() * (kMetricCount - 1));
  QList<int> widths;
  for (int i = 0; i < kMetricCount; ++i)
    widths << (charts_[i]->isHidden() || weights == 0 ? 0 : static_cast<int>(for_charts * (i == 3 ? 2.0 / 3 : 1.0) / weights));
  row_->setSizes(widths);
}

void LivePage::redraw() {
  // Another page in front of a window on screen (the Strategy tab while training): the charts'
  // refresh would cost the GUI thread for nothing, and on a CPU-bound run training time with it.
  // They catch up when this page is shown.
  if (window()->isVisible() && !isVisible()) {
    stale_ = true;
    return;
  }
  stale_ = false;
  // A run whose rate moves (a schedule, warmup, a plateau cut) shows its rate, unless the
  // learning-rate chart was switched off by hand.
  if (!learning_rate_switched_off_ && charts_[3]->isHidden() && run_->learning_rate_varies()) {
    charts_[3]->show();
    place_legends();
    share_height();
  }
  for (auto* c : charts_)
    if (!c->isHidden()) c->refresh(run_->metrics());
  if (run_->last_step().global_step > 0) {
    replicas_->on_step(run_->typical_step());
    replicas_->show_sync_check(run_->last_sync_check());
  }
  // Paint now, inside the frame, so that LiveRun's frame cost includes the painting.
  for (auto* c : charts_)
    if (!c->isHidden()) c->viewport()->repaint();
}

void LivePage::show_learning_rate(bool on) {
  learning_rate_switched_off_ = !on;
  charts_[3]->setVisible(on);
  place_legends();
  share_height();
  run_->touch();
}

void LivePage::showEvent(QShowEvent* event) {
  QSplitter::showEvent(event);
  if (stale_) QTimer::singleShot(0, this, &LivePage::redraw);  // after the show, so the repaint lands
}

bool LivePage::learning_rate_shown() const { return !charts_[3]->isHidden(); }

void LivePage::set_log_loss(bool on) {
  charts_[0]->set_log_scale(on);
  run_->touch();
}

void LivePage::set_dark(bool dark) {
  for (auto* c : charts_) c->set_dark(dark);
  place_legends();
  run_->touch();
}

void LivePage::set_line_width(double width) {
  for (auto* c : charts_) c->set_line_width(width);
  run_->touch();
}

void LivePage::set_projector(bool on) {
  projector_ = on;
  for (auto* c : charts_) c->set_projector(on);
  place_legends();
  share_height();
  run_->touch();
}

void LivePage::place_legends() {
  for (auto* c : charts_) c->set_legend_visible(false);
  legend_->setText(charts_[0]->legend_html());
}

QStringList LivePage::export_charts(const QString& dir) {
  const char* names[] = {"loss", "accuracy", "top_k_accuracy", "learning_rate"};
  QStringList failed;
  for (int i = 0; i < (learning_rate_shown() ? 4 : 3); ++i)
    if (!charts_[i]->export_png(QDir(dir).filePath(QString("%1.png").arg(names[i]))) ||
        !charts_[i]->export_svg(QDir(dir).filePath(QString("%1.svg").arg(names[i]))))
      failed << names[i];
  return failed;
}

}  // namespace mirror::ui
