#include "mirror/train/config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mirror/model/presets.h"
#include "mirror/util/error.h"

namespace mirror {

void TrainConfig::validate() const {
  if (batch_size < 1 || batch_size > 1'000'000)
    throw ConfigError(fmt::format("invalid batch size: {} (must be in [1, 1000000])", batch_size));
  if (epochs < 1 || epochs > 100'000) throw ConfigError(fmt::format("invalid epochs: {} (must be >= 1)", epochs));
  if (max_steps < 0) throw ConfigError(fmt::format("invalid max steps: {} (must be >= 0)", max_steps));
  if (eval_batch_size < 0) throw ConfigError(fmt::format("invalid evaluation batch size: {}", eval_batch_size));
  if (model.layers.empty()) throw ConfigError("no model: choose a preset or a model file");
  optimizer.validate();
  if (strategy.intra_op_threads < 0 || strategy.intra_op_threads > 1024)
    throw ConfigError(fmt::format("invalid intra-op threads per replica: {}", strategy.intra_op_threads));
}

TrainConfig config_from_preset(const std::string& name) {
  const Preset& p = find_preset(name);
  TrainConfig c;
  c.preset = p.name;
  c.model = p.model;
  c.dataset.name = p.dataset;
  c.dataset.num_words = p.num_words;
  c.optimizer.name = p.optimizer;
  c.optimizer.learning_rate = p.learning_rate;
  c.batch_size = p.batch_size;
  c.epochs = p.epochs;
  c.devices.logical = p.logical_devices;
  return c;
}

nlohmann::json to_json(const TrainConfig& c) {
  return {
      {"preset", c.preset},
      {"model", to_json(c.model)},
      {"dataset", {{"name", c.dataset.name}, {"data_dir", c.dataset.data_dir}, {"seed", c.dataset.seed},
                   {"num_words", c.dataset.num_words}, {"skip_top", c.dataset.skip_top}, {"maxlen", c.dataset.maxlen},
                   {"sequence_length", c.dataset.sequence_length}}},
      {"optimizer", to_json(c.optimizer)},
      {"batch_size", c.batch_size},
      {"epochs", c.epochs},
      {"max_steps", c.max_steps},
      {"devices", {{"devices", c.devices.devices}, {"logical", c.devices.logical},
                   {"memory_limit_mib", c.devices.memory_limit_mib}}},
      {"seed", c.seed},
      {"deterministic", c.strategy.deterministic},
      {"communicator", communicator_name(c.strategy.communicator)},
      {"sync_check_every", c.strategy.sync_check_every},
      {"top_k", c.strategy.top_k},
  };
}

}  // namespace mirror
