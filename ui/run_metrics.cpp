#include "ui/run_metrics.h"

#include <QTextStream>

#include <algorithm>

namespace mirror::ui {

QVector<QPointF> decimate(const QVector<QPointF>& points, int buckets) {
  if (buckets < 1 || points.size() <= 2 * buckets) return points;
  QVector<QPointF> out;
  out.reserve(2 * buckets + 2);
  const double x0 = points.front().x(), x1 = points.back().x();
  const double width = (x1 - x0) / buckets;
  qsizetype i = 0;
  for (int b = 0; b < buckets && i < points.size(); ++b) {
    const double end = b + 1 == buckets ? x1 : x0 + width * (b + 1);
    qsizetype lo = i, hi = i;
    for (; i < points.size() && (points[i].x() <= end || b + 1 == buckets); ++i) {
      if (points[i].y() < points[lo].y()) lo = i;
      if (points[i].y() > points[hi].y()) hi = i;
    }
    if (lo == hi) {
      out.push_back(points[lo]);
    } else {
      out.push_back(points[std::min(lo, hi)]);
      out.push_back(points[std::max(lo, hi)]);
    }
  }
  return out;
}

void RunMetrics::clear() {
  for (int m = 0; m < 3; ++m) {
    raw_[m].clear();
    smooth_[m].clear();
    train_epoch_[m].clear();
    val_epoch_[m].clear();
  }
  ema_.assign(3, DebiasedEma(smoothing_));
  last_step_ = 0;
}

void RunMetrics::add_step(const StepMetrics& s) {
  const double x = static_cast<double>(s.global_step);
  const double values[3] = {s.loss, s.accuracy, s.top_k_accuracy};
  for (int m = 0; m < 3; ++m) {
    raw_[m].push_back({x, values[m]});
    smooth_[m].push_back({x, ema_[static_cast<size_t>(m)].add(values[m])});
  }
  last_step_ = s.global_step;
}

void RunMetrics::add_epoch(const EpochMetrics& e) {
  const double x = static_cast<double>(last_step_);
  const double train[3] = {e.loss, e.accuracy, e.top_k_accuracy};
  const double val[3] = {e.val_loss, e.val_accuracy, e.val_top_k_accuracy};
  for (int m = 0; m < 3; ++m) {
    train_epoch_[m].push_back({x, train[m]});
    if (e.has_validation) val_epoch_[m].push_back({x, val[m]});
  }
}

QString RunMetrics::to_csv() const {
  QString out;
  QTextStream s(&out);
  s << "step,loss,accuracy,top_k_accuracy,loss_smoothed,epoch_loss,epoch_accuracy,epoch_top_k_accuracy,"
       "val_loss,val_accuracy,val_top_k_accuracy\n";
  qsizetype e = 0, v = 0;
  s.setRealNumberPrecision(17);
  for (qsizetype i = 0; i < raw_[0].size(); ++i) {
    const double x = raw_[0][i].x();
    s << static_cast<qint64>(x) << ',' << raw_[0][i].y() << ',' << raw_[1][i].y() << ',' << raw_[2][i].y() << ','
      << smooth_[0][i].y();
    if (e < train_epoch_[0].size() && train_epoch_[0][e].x() == x) {
      s << ',' << train_epoch_[0][e].y() << ',' << train_epoch_[1][e].y() << ',' << train_epoch_[2][e].y();
      ++e;
      if (v < val_epoch_[0].size() && val_epoch_[0][v].x() == x) {
        s << ',' << val_epoch_[0][v].y() << ',' << val_epoch_[1][v].y() << ',' << val_epoch_[2][v].y();
        ++v;
      } else {
        s << ",,,";
      }
    } else {
      s << ",,,,,,";
    }
    s << '\n';
  }
  return out;
}

}  // namespace mirror::ui
