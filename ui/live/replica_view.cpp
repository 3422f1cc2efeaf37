// Tested by tests/ui/classroom/test_strategy_timeline.cpp.
#include "ui/live/replica_view.h"
#include "mirror/util/words.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/widgets/plain_text.h"

namespace mirror::ui {

ReplicaBars::ReplicaBars(QWidget* parent) : QWidget(parent) { setMinimumHeight(40); }

void ReplicaBars::set_replicas(const std::vector<std::string>& names) {
  names_ = names;
  timings_.clear();
  timeline_ = {};
  updateGeometry();
  update();
}

void ReplicaBars::set_step(const std::vector<ReplicaTiming>& timings, const StepTimeline& timeline) {
  timings_ = timings;
  timeline_ = timeline;
  update();
}

int ReplicaBars::row_height() const { return fontMetrics().height() + 8; }

int ReplicaBars::label_width() const {
  // As wide as the longest name needs (names carry "rank N" in runs of several processes).
  int label_w = fontMetrics().horizontalAdvance("cpu:0/logical:00  shard 0000  ");
  for (const auto& n : names_)
    label_w = std::max(label_w, fontMetrics().horizontalAdvance(QString::fromStdString(n) + "  shard 0000  "));
  return std::min(label_w, width() / 3);
}

double ReplicaBars::bars_right() const { return width() - fontMetrics().horizontalAdvance(gradients_at_label(0)) - 12.0; }

QSize ReplicaBars::sizeHint() const {
  // The rows, the clock's last mark and two lines of legend.
  return {400, static_cast<int>(std::max<size_t>(1, names_.size())) * row_height() + 3 * fontMetrics().height() + 8};
}

QRectF ReplicaBars::bar_rect(int replica, TimelinePhase phase) const {
  if (replica < 0 || replica >= static_cast<int>(timeline_.replicas.size())) return {};
  const TimelineScale scale(timeline_, label_width(), bars_right());
  return phase_rect(scale, timeline_, static_cast<size_t>(replica), phase, replica * row_height() + 4, row_height() - 6);
}

void ReplicaBars::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QColor text = palette().color(QPalette::WindowText);
  const int row = row_height();
  const int label_w = label_width();
  const bool on_clock = !timeline_.empty();
  const TimelineScale scale(timeline_, label_w, bars_right());
  double longest = 0;
  for (const auto& t : timings_) longest = std::max(longest, t.compute_ms + t.allreduce_ms + t.update_ms);
  const double old_scale = longest > 0 ? (bars_right() - label_w) / longest : 0;
  const size_t rows = std::max(names_.size(), timeline_.replicas.size());
  for (size_t i = 0; i < rows; ++i) {
    const int y = static_cast<int>(i) * row + 4;
    const ReplicaTiming t = i < timings_.size() ? timings_[i] : ReplicaTiming{};
    const int64_t shard = on_clock && i < timeline_.replicas.size() ? timeline_.replicas[i].shard_size : t.shard_size;
    const QString name = i < names_.size() ? QString::fromStdString(names_[i]) : QString("replica %1").arg(i);
    p.setPen(text);
    p.drawText(QRect(0, y, label_w, row - 4), Qt::AlignVCenter,
               fontMetrics().elidedText(QString("%1  shard %2").arg(name).arg(shard), Qt::ElideMiddle, label_w - 4));
    QString right;
    if (on_clock && i < timeline_.replicas.size()) {
      paint_replica_lane(p, scale, timeline_, i, y, row - 6, 1e300);
      right = gradients_at_label(timeline_.replicas[i].gradients_ready);
    } else if (i < timings_.size()) {
      // No timeline: the durations side by side, not on a clock.
      double x = label_w;
      for (const auto& [ms, phase] : {std::pair{t.compute_ms, TimelinePhase::kForward}, std::pair{t.allreduce_ms, TimelinePhase::kAllReduce},
                                      std::pair{t.update_ms, TimelinePhase::kUpdate}}) {
        const double w = ms * old_scale;
        p.fillRect(QRectF(x, y, w, row - 6), timeline_phase_color(phase));
        x += w;
      }
      right = QString("%1 ms").arg(t.compute_ms + t.allreduce_ms + t.update_ms, 0, 'f', 2);
    }
    if (t.memory_mib > 0 && !right.isEmpty()) right += QString(" · %1 MiB").arg(t.memory_mib, 0, 'f', 0);
    p.setPen(text);
    if (!right.isEmpty()) p.drawText(QRectF(bars_right() + 6, y, width() - bars_right() - 6, row - 4), Qt::AlignVCenter, right);
  }
  const int bottom = static_cast<int>(rows) * row + 2;
  if (on_clock) {
    paint_arrival_line(p, scale, timeline_, 2, bottom);
    p.setPen(text);
    p.drawText(QRectF(scale.clock_left(), bottom, bars_right() - scale.clock_left(), fontMetrics().height()), Qt::AlignLeft,
               QString("0 ms on the step's clock"));
    p.drawText(QRectF(scale.clock_left(), bottom, bars_right() - scale.clock_left(), fontMetrics().height()), Qt::AlignRight,
               QString("%1 ms").arg(timeline_.end_ms(), 0, 'f', 2));
    paint_timeline_legend(p, timeline_, QPointF(0, bottom + fontMetrics().height() + 2), width(), text);
  } else if (!timings_.empty()) {
    p.setPen(text);
    p.drawText(QRectF(0, bottom, width(), fontMetrics().height()), Qt::AlignLeft,
               "compute, all-reduce (waiting included), update: durations only, this step has no timeline");
  }
}

ReplicaView::ReplicaView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setSpacing(2);
  communicator_ = new QLabel("No run yet.");
  communicator_->setWordWrap(true);
  straggler_ = plain_label({}, /*wrap=*/true);
  straggler_->setObjectName("replica-straggler");
  sync_ = new QLabel;
  bars_ = new ReplicaBars;
  layout->addWidget(communicator_);
  layout->addWidget(bars_);
  layout->addWidget(straggler_);
  layout->addWidget(sync_);
  layout->addStretch();
}

void ReplicaView::on_started(const RunStarted& e) {
  bars_->set_replicas(e.devices);
  straggler_->clear();
  communicator_->setText(QString("<b>All-reduce</b> %1. %2 per replica; global batch %3.")
                             .arg(QString::fromStdString(e.communicator_reason).toHtmlEscaped())
                             .arg(QString::fromStdString(counted(e.intra_op_threads, "intra-op thread")))
                             .arg(e.global_batch));
  sync_->setText("Sync check: replicas start bit-identical.");
}

void ReplicaView::on_step(const StepMetrics& e) {
  bars_->set_step(e.replicas, e.timeline);
  QString who = QString::fromStdString(straggler_sentence(e.timeline));
  if (!who.isEmpty() && e.timeline.global_step > 0 && e.timeline.global_step != e.global_step)
    who = QString("Step %1: ").arg(e.timeline.global_step) + who;
  if (straggler_->text() != who) straggler_->setText(who);
}

void ReplicaView::show_sync_check(int64_t step) {
  if (step > 0)
    sync_->setText(QString("Sync check passed after step %1: all replicas bit-identical.").arg(step));
}

void ReplicaView::on_finished(const RunFinished& e) {
  if (e.status == RunStatus::kFailed && e.message.find("out of sync") != std::string::npos)
    sync_->setText(QString("<span style='color:#c0392b'>Sync check failed: %1</span>").arg(QString::fromStdString(e.message).toHtmlEscaped()));
  else if (e.status != RunStatus::kFailed)
    sync_->setText(QString("Sync check passed: all replicas bit-identical after %1 steps.").arg(e.steps));
}

}  // namespace mirror::ui
