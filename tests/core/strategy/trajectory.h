#pragma once
// A short mirrored training run on the small text set, and how far apart two runs ended: what
// the equivalence tests of CPU, GPU and logical replicas compare.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "mirror/data/batch.h"
#include "mirror/model/shape.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/train/trainer.h"
#include "test_fixtures.h"

namespace mirror::testing {

struct Trajectory {
  std::vector<double> losses;  // per step
  torch::Tensor params;        // the last replica's, on the CPU
  std::vector<ReplicaTiming> last_timings;
};

// `steps` steps at global batch `batch` over `devices` (weights from seed 7), then the sync check.
inline Trajectory train_trajectory(std::vector<LogicalDevice> devices, const OptimizerConfig& opt,
                                   const MirroredOptions& options, int steps, int64_t batch) {
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  MirroredStrategy s(std::move(devices), analysis, opt, options, /*seed=*/7);
  Trajectory t;
  for (int step = 0; step < steps; ++step) {
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < batch; ++i) idx.push_back((step * batch + i * 7) % data->size(Split::kTrain));
    const auto r = s.train_step(data->gather(Split::kTrain, idx));
    EXPECT_EQ(r.sums.samples, batch);
    t.losses.push_back(r.sums.loss());
    t.last_timings = r.replicas;
  }
  s.check_sync();  // replicas bit-identical
  t.params = s.replica_parameters(s.num_replicas() - 1).to(torch::kCPU).clone();
  return t;
}

// |a - b| / |b|
inline double relative(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a - b).norm() / b.norm()).item<double>();
}

}  // namespace mirror::testing
