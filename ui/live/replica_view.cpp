#include "ui/live/replica_view.h"
#include "mirror/util/words.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>

namespace mirror::ui {

namespace {
const QColor kCompute(31, 119, 180), kAllReduce(255, 127, 14), kUpdate(44, 160, 44);
}

ReplicaBars::ReplicaBars(QWidget* parent) : QWidget(parent) { setMinimumHeight(40); }

void ReplicaBars::set_replicas(const std::vector<std::string>& names) {
  names_ = names;
  timings_.clear();
  updateGeometry();
  update();
}

void ReplicaBars::set_timings(const std::vector<ReplicaTiming>& timings) {
  timings_ = timings;
  update();
}

QSize ReplicaBars::sizeHint() const {
  const int row = fontMetrics().height() + 8;
  return {400, static_cast<int>(std::max<size_t>(1, names_.size()) + 1) * row};
}

void ReplicaBars::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const int row = fontMetrics().height() + 8;
  // As wide as the longest name needs (names carry "rank N" in runs of several processes).
  int label_w = fontMetrics().horizontalAdvance("cpu:0/logical:00  shard 0000  ");
  for (const auto& n : names_)
    label_w = std::max(label_w, fontMetrics().horizontalAdvance(QString::fromStdString(n) + "  shard 0000  "));
  label_w = std::min(label_w, width() / 2);
  double longest = 0;
  for (const auto& t : timings_) longest = std::max(longest, t.compute_ms + t.allreduce_ms + t.update_ms);
  const double scale = longest > 0 ? (width() - label_w - 120) / longest : 0;
  for (size_t i = 0; i < names_.size(); ++i) {
    const int y = static_cast<int>(i) * row + 4;
    const ReplicaTiming t = i < timings_.size() ? timings_[i] : ReplicaTiming{};
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, y, label_w, row - 4), Qt::AlignVCenter,
               QString("%1  shard %2").arg(QString::fromStdString(names_[i])).arg(t.shard_size));
    double x = label_w;
    for (const auto& [ms, color] : {std::pair{t.compute_ms, kCompute}, std::pair{t.allreduce_ms, kAllReduce},
                                    std::pair{t.update_ms, kUpdate}}) {
      const double w = ms * scale;
      p.fillRect(QRectF(x, y, w, row - 6), color);
      x += w;
    }
    if (i < timings_.size())
      p.drawText(QRectF(x + 6, y, 120, row - 4), Qt::AlignVCenter,
                 QString("%1 ms%2").arg(t.compute_ms + t.allreduce_ms + t.update_ms, 0, 'f', 2)
                     .arg(t.memory_mib > 0 ? QString(" · %1 MiB").arg(t.memory_mib, 0, 'f', 0) : QString()));
  }
  // Legend.
  const int y = static_cast<int>(names_.size()) * row + 4;
  int x = 0;
  for (const auto& [name, color] : {std::pair{"compute (forward + backward)", kCompute},
                                    std::pair{"all-reduce (incl. waiting)", kAllReduce}, std::pair{"update", kUpdate}}) {
    p.fillRect(x, y + 3, 12, 12, color);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(x + 16, y + 14, name);
    x += 24 + fontMetrics().horizontalAdvance(name);
  }
}

ReplicaView::ReplicaView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setSpacing(2);
  communicator_ = new QLabel("No run yet.");
  communicator_->setWordWrap(true);
  sync_ = new QLabel;
  bars_ = new ReplicaBars;
  layout->addWidget(communicator_);
  layout->addWidget(bars_);
  layout->addWidget(sync_);
  layout->addStretch();
}

void ReplicaView::on_started(const RunStarted& e) {
  bars_->set_replicas(e.devices);
  communicator_->setText(QString("<b>All-reduce</b> %1. %2 per replica; global batch %3.")
                             .arg(QString::fromStdString(e.communicator_reason).toHtmlEscaped())
                             .arg(QString::fromStdString(counted(e.intra_op_threads, "intra-op thread")))
                             .arg(e.global_batch));
  sync_->setText("Sync check: replicas start bit-identical.");
}

void ReplicaView::on_step(const StepMetrics& e) { bars_->set_timings(e.replicas); }

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
