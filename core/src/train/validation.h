#pragma once
// What a run measures on its validation split at an epoch's end: the loss and accuracies, what the
// model learned per class (an Evaluation), and for 2-D points the decision regions over the plane.
// Private to the train floor (the training loop calls it).

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "mirror/data/dataset.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/train/evaluation.h"
#include "mirror/strategy/step_result.h"

namespace mirror {

// The plane a 2-D point set's decision regions cover (its training points' bounds with a 10%
// margin), measured once, and the model's class over a kRegionGrid x kRegionGrid grid of it.
class DecisionRegionGrid {
 public:
  // Empty unless `data`'s inputs are 2-D float points and it has training examples.
  explicit DecisionRegionGrid(const Dataset& data);
  // The class replica 0 predicts at each grid point; empty DecisionRegions for other data.
  DecisionRegions classify(MirroredStrategy& strategy) const;

 private:
  std::vector<double> plane_;  // x_min, x_max, y_min, y_max; empty: not 2-D points
};

struct ValidationPass {
  MetricSums sums;                    // sums.samples < the split's size: cut short by a stop
  std::optional<Evaluation> learned;  // per class, when the data has 1..kMaxEvaluationClasses classes
};

// The validation split in batches of `eval_batch`, sharded like training batches. A stop asked of a
// run in one process cuts it short (processes validate to the end together).
ValidationPass validate_split(MirroredStrategy& strategy, const Dataset& data, int64_t eval_batch,
                              const std::atomic<bool>& stop, int epoch, int64_t global_step);

}  // namespace mirror
