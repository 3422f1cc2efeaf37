#pragma once
// Running sums of step results, turned into means.

#include <cstdint>

#include "mirror/strategy/mirrored.h"

namespace mirror {

// Accumulates StepResults (train steps or evaluation batches). Not thread-safe.
class MetricSums {
 public:
  // Sums carried over from a checkpoint.
  static MetricSums from(double loss_sum, int64_t samples, int64_t correct, int64_t top_k_correct) {
    MetricSums m;
    m.loss_sum_ = loss_sum;
    m.samples_ = samples;
    m.correct_ = correct;
    m.top_k_correct_ = top_k_correct;
    return m;
  }
  void add(const StepResult& r) {
    samples_ += r.samples;
    loss_sum_ += r.loss_sum;
    correct_ += r.correct;
    top_k_correct_ += r.top_k_correct;
  }
  int64_t samples() const { return samples_; }
  double loss_sum() const { return loss_sum_; }
  int64_t correct() const { return correct_; }
  int64_t top_k_correct() const { return top_k_correct_; }
  double loss() const { return samples_ ? loss_sum_ / static_cast<double>(samples_) : 0.0; }
  double accuracy() const { return samples_ ? static_cast<double>(correct_) / static_cast<double>(samples_) : 0.0; }
  double top_k_accuracy() const {
    return samples_ ? static_cast<double>(top_k_correct_) / static_cast<double>(samples_) : 0.0;
  }

 private:
  int64_t samples_ = 0;
  double loss_sum_ = 0;
  int64_t correct_ = 0;
  int64_t top_k_correct_ = 0;
};

}  // namespace mirror
