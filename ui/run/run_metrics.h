#pragma once
// The one chart data model: every metric point of one run, kept in full, placed on a chosen x
// axis, with TensorBoard-style smoothing and decimation to the pixels available. The live charts
// feed it events as they arrive; the compare view builds one from each recorded run. GUI thread.

#include <QPointF>
#include <QString>
#include <QVector>

#include "mirror/runs/run_reader.h"
#include "mirror/runs/x_axis.h"
#include "mirror/train/events.h"

namespace mirror::ui {

enum class Metric { kLoss, kAccuracy, kTopK, kLearningRate };
constexpr int kMetricCount = 4;

// What the x axis counts (core's list, runs/x_axis.h): steps differ between batch sizes; samples
// seen and epochs do not; training time leaves validation out, wall time keeps it (and pauses).
using mirror::XAxis;

// A debiased exponential moving average, as TensorBoard smooths scalars: the average of the
// first n points is divided by (1 - weight^n), so early values are not dragged towards zero.
class DebiasedEma {
 public:
  explicit DebiasedEma(double weight) : weight_(weight) {}
  double add(double y) {
    last_ = last_ * weight_ + (1.0 - weight_) * y;
    debias_ = debias_ * weight_;
    return last_ / (1.0 - debias_);
  }

 private:
  double weight_;
  double last_ = 0;
  double debias_ = 1;
};

// At most 2 * buckets points: for each of `buckets` equal x ranges, the minimum and maximum in
// x order, so spikes stay visible. Returns the input unchanged when it is already small enough.
QVector<QPointF> decimate(const QVector<QPointF>& points, int buckets);

class RunMetrics {
 public:
  explicit RunMetrics(double smoothing = 0.9, XAxis x = XAxis::kStep) : smoothing_(smoothing), x_(x) { clear(); }
  // Every step and epoch of a recorded run, placed on `x`. Epochs are fractional on the epoch
  // axis: step i of an epoch of n steps sits at (epoch - 1) + i / n, n being the length of a
  // whole epoch of the run (run.json's steps_per_epoch, else its longest recorded epoch).
  static RunMetrics from_record(const RunRecord& run, double smoothing, XAxis x);
  void clear();
  void add_step(const StepMetrics& s);
  // An epoch's points; they replace those of the same epoch added last (a run stopped mid-epoch
  // reported its part, the resumed run the whole).
  void add_epoch(const EpochMetrics& e);
  // Forgets every point at or after `x` (a resumed run redoes the steps after its checkpoint) and
  // smooths the rest again.
  void drop_from(double x);
  XAxis x_axis() const { return x_; }

  const QVector<QPointF>& raw(Metric m) const { return raw_[index(m)]; }
  const QVector<QPointF>& smoothed(Metric m) const { return smooth_[index(m)]; }
  const QVector<QPointF>& train_epochs(Metric m) const { return train_epoch_[index(m)]; }
  const QVector<QPointF>& val_epochs(Metric m) const { return val_epoch_[index(m)]; }
  qint64 steps() const { return static_cast<qint64>(raw_[0].size()); }
  int epochs() const { return static_cast<int>(train_epoch_[0].size()); }

  // Every step and epoch as CSV (one row per step; epoch columns filled at epoch ends).
  QString to_csv() const;

 private:
  static int index(Metric m) { return static_cast<int>(m); }
  double x_of(const StepMetrics& s);
  double x_of(const EpochMetrics& e) const;

  double smoothing_;
  XAxis x_;
  QVector<QPointF> raw_[kMetricCount], smooth_[kMetricCount], train_epoch_[kMetricCount], val_epoch_[kMetricCount];
  std::vector<DebiasedEma> ema_;
  int current_epoch_ = -1;  // for steps read back without their place in the epoch
  std::vector<std::pair<int, double>> epoch_marks_;  // each epoch point's epoch and x, in order
  int64_t in_epoch_ = 0;
};

}  // namespace mirror::ui
