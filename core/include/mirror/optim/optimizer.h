#pragma once
// Optimizers with Keras' semantics, applied to one flat parameter vector per replica.
//
// Every replica owns one Optimizer and its slots (moments, velocities); after the all-reduce the
// gradients are identical everywhere, so every replica's update is identical too.

#include <torch/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mirror/optim/optimizer_config.h"

namespace mirror {

class Optimizer {
 public:
  explicit Optimizer(double learning_rate) : lr_(learning_rate) {}
  virtual ~Optimizer() = default;
  // The rate the next step() uses (schedules change it between steps).
  double learning_rate() const { return lr_; }
  void set_learning_rate(double learning_rate) { lr_ = learning_rate; }
  // Applies one update to `params` in place from `grads` (same shape and device, float32).
  // Not thread-safe: each replica owns its optimizer.
  virtual void step(torch::Tensor& params, const torch::Tensor& grads) = 0;
  // Number of steps applied so far (Keras' `iterations`).
  int64_t iterations() const { return iterations_; }
  // Named slot tensors and scalars, for checkpoints and tests.
  virtual std::vector<std::pair<std::string, torch::Tensor>> slots() const = 0;
  // Restores slots saved from an optimizer of the same kind and size, and the step count.
  // Throws DataError naming a missing or mis-shaped slot.
  virtual void load_slots(const std::vector<std::pair<std::string, torch::Tensor>>& saved, int64_t iterations);

 protected:
  double lr_;
  int64_t iterations_ = 0;
};

// Clips a flat gradient vector in place as `config` says (clipnorm per segment, then
// global_clipnorm, then clipvalue); `segments` are the sizes of the weights in it, in order.
void clip_gradients(const OptimizerConfig& config, torch::Tensor& grads, const std::vector<int64_t>& segments);

// Creates the optimizer `config` names with slots shaped like `params`. Validates the config.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config, const torch::Tensor& params);

}  // namespace mirror
