#pragma once
// An optimizer's name and hyperparameters, with Keras' defaults: plain values, no torch.

#include <nlohmann/json_fwd.hpp>

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
  // Gradient clipping after the all-reduce, Keras' semantics; 0: off. clipnorm clips each
  // weight's gradient by its own norm, global_clipnorm all of them by their joint norm (not both).
  double clipnorm = 0;
  double global_clipnorm = 0;
  double clipvalue = 0;        // each gradient value into [-clipvalue, clipvalue]
  bool clips() const { return clipnorm > 0 || global_clipnorm > 0 || clipvalue > 0; }

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

}  // namespace mirror
