#include "validation.h"

#include <torch/torch.h>

#include <algorithm>
#include "mirror/data/batch.h"

namespace mirror {

DecisionRegionGrid::DecisionRegionGrid(const Dataset& data) {
  const auto& info = data.info();
  const int64_t n_train = data.size(Split::kTrain);
  if (info.kind != InputKind::kFloat || info.input_shape != std::vector<int64_t>{2} || n_train == 0) return;
  torch::NoGradGuard no_grad;
  const auto x = data.slice(Split::kTrain, 0, n_train).x.to(torch::kFloat64);
  const auto lo = std::get<0>(x.min(0)), hi = std::get<0>(x.max(0));
  const double pad_x = std::max(0.1 * (hi[0] - lo[0]).item<double>(), 1e-3);
  const double pad_y = std::max(0.1 * (hi[1] - lo[1]).item<double>(), 1e-3);
  plane_ = {lo[0].item<double>() - pad_x, hi[0].item<double>() + pad_x, lo[1].item<double>() - pad_y,
            hi[1].item<double>() + pad_y};
}

DecisionRegions DecisionRegionGrid::classify(MirroredStrategy& strategy) const {
  DecisionRegions d;
  if (plane_.empty()) return d;
  d.columns = d.rows = kRegionGrid;
  d.x_min = plane_[0];
  d.x_max = plane_[1];
  d.y_min = plane_[2];
  d.y_max = plane_[3];
  auto cx = torch::arange(kRegionGrid, torch::kFloat64).add(0.5).mul((d.x_max - d.x_min) / kRegionGrid).add(d.x_min);
  auto cy = torch::arange(kRegionGrid, torch::kFloat64).add(0.5).mul((d.y_max - d.y_min) / kRegionGrid).add(d.y_min);
  // Row-major with row 0 at y_min: y varies slowest.
  auto points = torch::stack({cx.repeat({kRegionGrid}), cy.repeat_interleave(kRegionGrid)}, 1).to(torch::kFloat32);
  const auto [confidence, classes] = strategy.predict(points).max(/*dim=*/1);
  const auto c = classes.to(torch::kInt32).contiguous();
  const auto p = confidence.contiguous();
  d.classes.assign(c.data_ptr<int32_t>(), c.data_ptr<int32_t>() + c.numel());
  d.confidence.assign(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
  return d;
}

ValidationPass validate_split(MirroredStrategy& strategy, const Dataset& data, int64_t eval_batch,
                              const std::atomic<bool>& stop, int epoch, int64_t global_step) {
  ValidationPass pass;
  const int64_t n_val = data.size(Split::kValidation);
  std::optional<EvaluationBuilder> learned;
  // More classes than an evaluation may have: accuracy only (the reader would refuse the record).
  const int64_t classes = data.info().num_classes;
  if (classes > 0 && classes <= kMaxEvaluationClasses) learned.emplace(classes);
  for (int64_t begin = 0; begin < n_val; begin += eval_batch) {
    if (stop.load() && strategy.processes() == 1) break;  // processes validate to the end together
    const Batch b = data.slice(Split::kValidation, begin, std::min(n_val, begin + eval_batch));
    const StepResult r = strategy.evaluate(b);
    pass.sums.add(r.sums);
    if (learned) {
      const auto labels = b.y.to(torch::kInt64).contiguous();
      learned->add(labels.data_ptr<int64_t>(), b.size(), r.top);
    }
  }
  if (learned && pass.sums.samples == n_val) pass.learned = std::move(*learned).finish(epoch, global_step);
  return pass;
}

}  // namespace mirror
