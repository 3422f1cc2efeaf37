// OptimizerConfig, plain data: its defaults, checks and JSON (no torch: configs and the fuzz
// project use it without the optimizers).
#include "mirror/optim/optimizer_config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "mirror/util/error.h"

namespace mirror {

double OptimizerConfig::effective_learning_rate() const {
  if (learning_rate > 0) return learning_rate;
  return name == "sgd" ? 0.01 : 0.001;
}

double OptimizerConfig::effective_weight_decay() const {
  if (weight_decay >= 0) return weight_decay;
  return name == "adamw" ? 0.004 : 0.0;
}

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = {"sgd", "adam", "adamw", "rmsprop", "nadam"};
  return names;
}

void OptimizerConfig::validate() const {
  const auto& names = optimizer_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw ConfigError(fmt::format("unknown optimizer '{}' (choose sgd, adam, adamw, rmsprop or nadam)", name));
  auto check = [](bool ok, const std::string& msg) {
    if (!ok) throw ConfigError(msg);
  };
  check(std::isfinite(learning_rate) && learning_rate >= 0 && learning_rate <= 100,
        fmt::format("invalid learning rate: {} (must be in (0, 100])", learning_rate));
  check(std::isfinite(momentum) && momentum >= 0 && momentum < 1,
        fmt::format("invalid momentum: {} (must be in [0, 1))", momentum));
  check(beta1 >= 0 && beta1 < 1, fmt::format("invalid beta1: {} (must be in [0, 1))", beta1));
  check(beta2 >= 0 && beta2 < 1, fmt::format("invalid beta2: {} (must be in [0, 1))", beta2));
  check(std::isfinite(epsilon) && epsilon > 0, fmt::format("invalid epsilon: {} (must be > 0)", epsilon));
  check(rho >= 0 && rho < 1, fmt::format("invalid rho: {} (must be in [0, 1))", rho));
  check(!nesterov || name == "sgd", "nesterov applies to the sgd optimizer only");
  check(!nesterov || momentum > 0, "nesterov needs a momentum > 0");
  check(weight_decay < 0 || name == "adamw" || weight_decay == 0,
        fmt::format("weight decay applies to adamw only (got {} for {})", weight_decay, name));
  check(effective_weight_decay() < 1, fmt::format("invalid weight decay: {}", weight_decay));
  for (const auto& [key, v] : {std::pair{"clipnorm", clipnorm}, std::pair{"global_clipnorm", global_clipnorm},
                               std::pair{"clipvalue", clipvalue}})
    check(std::isfinite(v) && v >= 0, fmt::format("invalid {}: {} (must be >= 0; 0 is off)", key, v));
  check(!(clipnorm > 0 && global_clipnorm > 0), "set clipnorm or global_clipnorm, not both (as in Keras)");
}

nlohmann::json to_json(const OptimizerConfig& c) {
  nlohmann::json j = {{"name", c.name}, {"learning_rate", c.effective_learning_rate()}, {"epsilon", c.epsilon}};
  if (c.name == "sgd") { j["momentum"] = c.momentum; j["nesterov"] = c.nesterov; }
  if (c.name == "rmsprop") { j["rho"] = c.rho; j["momentum"] = c.momentum; }
  if (c.name == "adam" || c.name == "adamw" || c.name == "nadam") { j["beta1"] = c.beta1; j["beta2"] = c.beta2; }
  if (c.name == "adamw") j["weight_decay"] = c.effective_weight_decay();
  if (c.clipnorm > 0) j["clipnorm"] = c.clipnorm;
  if (c.global_clipnorm > 0) j["global_clipnorm"] = c.global_clipnorm;
  if (c.clipvalue > 0) j["clipvalue"] = c.clipvalue;
  return j;
}

}  // namespace mirror
