#include "ui/run/run_metrics.h"

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
  for (int m = 0; m < kMetricCount; ++m) {
    raw_[m].clear();
    smooth_[m].clear();
    train_epoch_[m].clear();
    val_epoch_[m].clear();
  }
  ema_.assign(kMetricCount, DebiasedEma(smoothing_));
  current_epoch_ = -1;
  in_epoch_ = 0;
  epoch_marks_.clear();
}

RunMetrics RunMetrics::from_record(const RunRecord& r, double smoothing, XAxis x) {
  RunMetrics out(smoothing, x);
  const int64_t steps_per_epoch = r.steps_per_epoch();
  for (auto& q : out.raw_) q.reserve(static_cast<qsizetype>(r.steps.size()));
  for (auto& q : out.smooth_) q.reserve(static_cast<qsizetype>(r.steps.size()));
  for (StepMetrics s : r.steps) {
    s.steps_per_epoch = steps_per_epoch;
    out.add_step(s);
  }
  for (const auto& e : r.epochs) out.add_epoch(e);
  return out;
}

double RunMetrics::x_of(const StepMetrics& s) {
  switch (x_) {
    case XAxis::kStep: return static_cast<double>(s.global_step);
    case XAxis::kSamples: return static_cast<double>(s.samples_seen);
    case XAxis::kTime: return s.train_seconds;
    case XAxis::kWall: return s.wall_seconds;
    case XAxis::kEpoch:
      if (s.epoch != current_epoch_) {
        current_epoch_ = s.epoch;
        in_epoch_ = 0;
      }
      ++in_epoch_;
      return s.epoch - 1 + static_cast<double>(s.step > 0 ? s.step : in_epoch_) /
                               static_cast<double>(std::max<int64_t>(1, s.steps_per_epoch));
  }
  return 0;
}

double RunMetrics::x_of(const EpochMetrics& e) const {
  switch (x_) {
    case XAxis::kStep: return static_cast<double>(e.global_step);
    case XAxis::kEpoch: return e.epoch;
    case XAxis::kSamples: return static_cast<double>(e.samples_seen);
    case XAxis::kTime: return e.train_seconds;
    case XAxis::kWall: return e.wall_seconds;
  }
  return 0;
}

void RunMetrics::add_step(const StepMetrics& s) {
  const double x = x_of(s);
  // The learning rate is not smoothed: its "smoothed" series is the rate itself.
  const double values[kMetricCount] = {s.loss, s.accuracy, s.top_k_accuracy, s.learning_rate};
  for (int m = 0; m < kMetricCount; ++m) {
    raw_[m].push_back({x, values[m]});
    smooth_[m].push_back({x, m == index(Metric::kLearningRate) ? values[m] : ema_[static_cast<size_t>(m)].add(values[m])});
  }
}

void RunMetrics::add_epoch(const EpochMetrics& e) {
  if (!epoch_marks_.empty() && epoch_marks_.back().first == e.epoch) {  // the stopped part of this epoch
    const double part = epoch_marks_.back().second;
    for (auto* points : {train_epoch_, val_epoch_})
      for (int m = 0; m < kMetricCount; ++m)
        if (!points[m].isEmpty() && points[m].back().x() == part) points[m].removeLast();
    epoch_marks_.pop_back();
  }
  const double x = x_of(e);
  epoch_marks_.emplace_back(e.epoch, x);
  const double train[3] = {e.loss, e.accuracy, e.top_k_accuracy};
  const double val[3] = {e.val_loss, e.val_accuracy, e.val_top_k_accuracy};
  for (int m = 0; m < 3; ++m) {
    train_epoch_[m].push_back({x, train[m]});
    if (e.has_validation) val_epoch_[m].push_back({x, val[m]});
  }
  train_epoch_[index(Metric::kLearningRate)].push_back({x, e.learning_rate});
}

void RunMetrics::drop_from(double x) {
  auto cut = [x](QVector<QPointF>& v) {
    v.erase(std::remove_if(v.begin(), v.end(), [x](const QPointF& p) { return p.x() >= x; }), v.end());
  };
  std::erase_if(epoch_marks_, [x](const std::pair<int, double>& mark) { return mark.second >= x; });
  for (int m = 0; m < kMetricCount; ++m) {
    cut(raw_[m]);
    cut(train_epoch_[m]);
    cut(val_epoch_[m]);
    smooth_[m].clear();
    DebiasedEma ema(smoothing_);
    for (const auto& p : raw_[m])
      smooth_[m].push_back({p.x(), m == index(Metric::kLearningRate) ? p.y() : ema.add(p.y())});
    ema_[static_cast<size_t>(m)] = ema;
  }
}

QString RunMetrics::to_csv() const {
  QString out;
  QTextStream s(&out);
  s << "step,loss,accuracy,top_k_accuracy,loss_smoothed,epoch_loss,epoch_accuracy,epoch_top_k_accuracy,"
       "val_loss,val_accuracy,val_top_k_accuracy,learning_rate\n";
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
    s << ',' << raw_[3][i].y() << '\n';
  }
  return out;
}

}  // namespace mirror::ui
