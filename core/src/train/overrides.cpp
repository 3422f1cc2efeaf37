#include "mirror/train/overrides.h"

#include <fmt/format.h>

#include "mirror/strategy/communicator_registry.h"
#include "mirror/strategy/link_model.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

std::pair<int64_t, int64_t> parse_image_size(const std::string& text) {
  const auto whole = [&](const std::string& part) -> int64_t {
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || v < 1 || v > 4096)
      throw ConfigError(fmt::format("image size '{}': write HEIGHTxWIDTH (e.g. 64x64) or one size, each 1 to 4096",
                                    terminal_text(text)));
    return v;
  };
  const size_t x = text.find_first_of("xX");
  if (x == std::string::npos) {
    const int64_t side = whole(text);
    return {side, side};
  }
  return {whole(text.substr(0, x)), whole(text.substr(x + 1))};
}

namespace {
// target = *value where one is given.
template <typename T, typename U>
void set(T& target, const std::optional<U>& value) {
  if (value) target = static_cast<T>(*value);
}

void apply_data(const ConfigOverrides& o, DatasetOptions& d) {
  set(d.name, o.dataset);
  set(d.data_dir, o.data_dir);
  set(d.seed, o.seed);
  set(d.train_size, o.train_size);
  set(d.val_size, o.val_size);
  set(d.num_words, o.num_words);
  set(d.skip_top, o.skip_top);
  set(d.maxlen, o.maxlen);
  set(d.sequence_length, o.sequence_length);
  set(d.min_wires_per_topic, o.min_wires_per_topic);
  set(d.validation_split, o.validation_split);
  if (o.image_size) std::tie(d.image_height, d.image_width) = parse_image_size(*o.image_size);
  set(d.color_mode, o.color_mode);
  set(d.label_column, o.label_column);
  set(d.crop_to_aspect_ratio, o.crop_to_aspect_ratio);
  set(d.follow_links, o.follow_links);
}

void apply_optimizer(const ConfigOverrides& o, TrainConfig& c) {
  if (o.optimizer && *o.optimizer != c.optimizer.name) {
    c.optimizer = OptimizerConfig{};  // the base's settings belong to its own optimizer
    c.optimizer.name = *o.optimizer;
  }
  if (o.lr && !(*o.lr > 0)) throw ConfigError(fmt::format("invalid learning rate: {} (must be > 0)", *o.lr));
  set(c.optimizer.learning_rate, o.lr);
  set(c.optimizer.momentum, o.momentum);
  set(c.optimizer.nesterov, o.nesterov);
  set(c.optimizer.clipnorm, o.clipnorm);
  set(c.optimizer.global_clipnorm, o.global_clipnorm);
  set(c.optimizer.clipvalue, o.clipvalue);
  if (o.lr_schedule) c.schedule = parse_lr_schedule(*o.lr_schedule);
  set(c.schedule.warmup_steps, o.warmup_steps);
  set(c.schedule.scale_reference_batch, o.scale_lr_with_batch);
  if (o.early_stopping) c.early_stopping = parse_early_stopping(*o.early_stopping);
  if (o.plateau) c.plateau = parse_plateau(*o.plateau);
}

void apply_strategy(const ConfigOverrides& o, TrainConfig& c) {
  set(c.devices.devices, o.devices);
  set(c.devices.logical, o.logical);
  set(c.devices.memory_limit_mib, o.memory_limit_mib);
  if (o.communicator) {
    check_communicator_name(*o.communicator);
    c.strategy.communicator = *o.communicator;
  }
  set(c.strategy.sync_check_every, o.sync_every);
  set(c.strategy.intra_op_threads, o.threads);
  set(c.strategy.deterministic, o.deterministic);
  set(c.strategy.cuda_graphs, o.cuda_graphs);
  if (o.sparse_exchange) {
    if (*o.sparse_exchange != "on" && *o.sparse_exchange != "off")
      throw ConfigError(fmt::format("--sparse-exchange takes on or off, not '{}'", *o.sparse_exchange));
    c.strategy.sparse_exchange = *o.sparse_exchange == "on";
  }
  if (o.backward_overlap) {
    if (*o.backward_overlap != "on" && *o.backward_overlap != "off")
      throw ConfigError(fmt::format("--overlap takes on or off, not '{}'", *o.backward_overlap));
    c.strategy.backward_overlap = *o.backward_overlap == "on";
  }
  if (o.precision) c.strategy.precision = parse_precision(*o.precision);
  set(c.strategy.top_k, o.top_k);
  if (o.link) {
    c.strategy.link = parse_link(*o.link);
    c.strategy.link->simulated = true;  // recorded as the what-if, not as a measured link
  }
}
}  // namespace

TrainConfig apply(const ConfigOverrides& o, TrainConfig c) {
  apply_data(o, c.dataset);
  set(c.seed, o.seed);
  set(c.epochs, o.epochs);
  set(c.batch_size, o.batch_size);
  set(c.max_steps, o.max_steps);
  set(c.checkpoints.every_steps, o.checkpoint_every);
  apply_optimizer(o, c);
  apply_strategy(o, c);
  c.schedule.validate();
  c.validate();
  return c;
}

}  // namespace mirror
