#pragma once
// Optimizers with Keras' semantics, applied to one flat parameter vector per replica.
//
// Every replica owns one Optimizer and its slots (moments, velocities); after the all-reduce the
// gradients are identical everywhere, so every replica's update is identical too.

#include <nlohmann/json_fwd.hpp>
#include <torch/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mirror {

// Hyperparameters. Zero or negative means "Keras' default for this optimizer" where noted.
struct OptimizerConfig {
  std::string name = "nadam";  // sgd | adam | adamw | rmsprop | nadam
  double learning_rate = 0;    // 0: Keras' default (sgd 0.01, others 0.001)
  double momentum = 0;         // sgd, rmsprop
  bool nesterov = false;       // sgd
  double beta1 = 0.9;          // adam, adamw, nadam
  double beta2 = 0.999;        // adam, adamw, nadam
  double epsilon = 1e-7;       // Keras' default everywhere
  double rho = 0.9;            // rmsprop
  double weight_decay = -1;    // adamw: <0 means Keras' default 0.004; others: 0 only

  OptimizerConfig& with_name(std::string v) { name = std::move(v); return *this; }
  OptimizerConfig& with_learning_rate(double v) { learning_rate = v; return *this; }
  OptimizerConfig& with_momentum(double v) { momentum = v; return *this; }
  OptimizerConfig& with_nesterov(bool v) { nesterov = v; return *this; }

  // The learning rate in effect (the Keras default when learning_rate is 0).
  double effective_learning_rate() const;
  double effective_weight_decay() const;
  // Throws ConfigError naming the first bad value ("invalid learning rate: -1").
  void validate() const;
};

nlohmann::json to_json(const OptimizerConfig& config);
// Names accepted by OptimizerConfig::name.
const std::vector<std::string>& optimizer_names();

class Optimizer {
 public:
  virtual ~Optimizer() = default;
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
  int64_t iterations_ = 0;
};

// Creates the optimizer `config` names with slots shaped like `params`. Validates the config.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config, const torch::Tensor& params);

}  // namespace mirror
