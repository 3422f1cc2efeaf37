#include "mirror/train/config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mirror/model/presets.h"
#include "mirror/strategy/communicator.h"
#include "mirror/strategy/cuda_graphs.h"
#include "mirror/strategy/gpu.h"
#include "mirror/util/error.h"
#include "mirror/util/json_whole.h"

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
  check_communicator_name(strategy.communicator);
  check_cuda_graph_mode(strategy.cuda_graphs);
  if (strategy.perturb_replica_at_step < 0)
    throw ConfigError(fmt::format("invalid perturb_replica_at_step: {} (a step, or 0 for never)",
                                  strategy.perturb_replica_at_step));
  if (strategy.perturb_replica_at_step > 0 && strategy.sync_check_every <= 0)
    throw ConfigError("perturb_replica_at_step needs the sync check (sync_check_every > 0) to catch it");
  schedule.validate();
  if (plateau.enabled) plateau.validate();
  if (early_stopping.enabled) early_stopping.validate();
  check_plateau_fits(plateau, schedule);
  if (strategy.link) {
    if (strategy.link->from_run)
      throw ConfigError(fmt::format("--link {}: this machine's own link needs no simulating; name another "
                                    "preset or give latency=...,bandwidth=...", strategy.link->name));
    check_link_range(*strategy.link);
  }
}

namespace {

// The simulated link as run.json records it: null, or its figures labelled simulated.
nlohmann::json simulated_link_to_json(const std::optional<LinkSpec>& link) {
  if (!link) return nullptr;
  nlohmann::json j = {{"spec", link->spec_text()}, {"name", link->name}, {"latency_s", link->latency_s},
                      {"simulated", true}};
  if (!link->unlimited_bandwidth()) j["bandwidth_bytes_per_s"] = link->bandwidth_bytes_per_s;  // left out: unlimited
  return j;
}

// Reads it back; a bare string is --link's text ("10gbe", "latency=5us,bandwidth=1Gbit").
std::optional<LinkSpec> simulated_link_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  LinkSpec link;
  if (j.is_string()) {
    link = parse_link(j.get<std::string>());
  } else if (j.contains("latency_s") || j.contains("bandwidth_bytes_per_s")) {
    link.name = j.value("name", "custom");
    link.latency_s = j.value("latency_s", 0.0);
    const auto bandwidth = j.find("bandwidth_bytes_per_s");  // absent or null: unlimited
    link.bandwidth_bytes_per_s =
        bandwidth == j.end() || bandwidth->is_null() ? LinkSpec::kUnlimited : bandwidth->get<double>();
    if (auto preset = find_link_preset(link.name)) link.source = preset->source;
  } else {
    link = parse_link(j.at("spec").get<std::string>());
  }
  link.simulated = true;
  return link;
}

}  // namespace

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
  if (p.prefer_gpu) c.devices.devices = cuda_training_available() ? "cuda:0" : "cpu";
  try {
    if (!p.lr_schedule.empty()) c.schedule = parse_lr_schedule(p.lr_schedule);
    c.schedule.warmup_steps = p.warmup_steps;
    if (!p.reduce_lr_on_plateau.empty()) c.plateau = parse_plateau(p.reduce_lr_on_plateau);
    if (!p.early_stopping.empty()) c.early_stopping = parse_early_stopping(p.early_stopping);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("preset {}: {}", p.name, e.what()));
  }
  return c;
}

nlohmann::json to_json(const TrainConfig& c) {
  return {
      {"preset", c.preset},
      {"model", to_json(c.model)},
      {"dataset", {{"name", c.dataset.name}, {"data_dir", c.dataset.data_dir}, {"seed", c.dataset.seed},
                   {"train_size", c.dataset.train_size}, {"val_size", c.dataset.val_size},
                   {"classes", c.dataset.classes}, {"noise", c.dataset.noise},
                   {"num_words", c.dataset.num_words}, {"skip_top", c.dataset.skip_top}, {"maxlen", c.dataset.maxlen},
                   {"sequence_length", c.dataset.sequence_length},
                   {"min_wires_per_topic", c.dataset.min_wires_per_topic}, {"test_split", c.dataset.test_split},
                   {"validation_split", c.dataset.validation_split}, {"image_height", c.dataset.image_height},
                   {"image_width", c.dataset.image_width}, {"color_mode", c.dataset.color_mode},
                   {"crop_to_aspect_ratio", c.dataset.crop_to_aspect_ratio},
                   {"follow_links", c.dataset.follow_links}, {"label_column", c.dataset.label_column}}},
      {"eval_batch_size", c.eval_batch_size},
      {"intra_op_threads", c.strategy.intra_op_threads},
      {"optimizer", to_json(c.optimizer)},
      {"batch_size", c.batch_size},
      {"epochs", c.epochs},
      {"max_steps", c.max_steps},
      {"devices", {{"devices", c.devices.devices}, {"logical", c.devices.logical},
                   {"memory_limit_mib", c.devices.memory_limit_mib}}},
      {"seed", c.seed},
      {"initial_weights", c.initial_weights},
      {"deterministic", c.strategy.deterministic},
      {"communicator", c.strategy.communicator},
      {"cuda_graphs", c.strategy.cuda_graphs},
      {"sparse_exchange", c.strategy.sparse_exchange},
      {"backward_overlap", c.strategy.backward_overlap},
      {"precision", precision_name(c.strategy.precision)},
      {"sync_check_every", c.strategy.sync_check_every},
      {"top_k", c.strategy.top_k},
      {"perturb_replica_at_step", c.strategy.perturb_replica_at_step},
      {"simulated_link", simulated_link_to_json(c.strategy.link)},
      {"checkpoint_every_steps", c.checkpoints.every_steps},
      {"checkpoint_keep_last", c.checkpoints.keep_last},
      {"lr_schedule", to_json(c.schedule)},
      {"reduce_lr_on_plateau", to_json(c.plateau)},
      {"early_stopping", to_json(c.early_stopping)},
  };
}

TrainConfig config_from_json(const nlohmann::json& j) {
  try {
    TrainConfig c;
    c.preset = j.value("preset", "");
    c.model = model_from_json(j.at("model"));
    const auto& d = j.at("dataset");
    c.dataset.name = d.at("name").get<std::string>();
    c.dataset.data_dir = d.value("data_dir", "");
    c.dataset.seed = json_whole<uint64_t>(d, "seed", "dataset.seed", 42);
    c.dataset.num_words = json_whole<int64_t>(d, "num_words", "dataset.num_words", 0);
    c.dataset.skip_top = json_whole<int64_t>(d, "skip_top", "dataset.skip_top", 0);
    c.dataset.maxlen = json_whole<int64_t>(d, "maxlen", "dataset.maxlen", 0);
    c.dataset.sequence_length = json_whole<int64_t>(d, "sequence_length", "dataset.sequence_length", 0);
    c.dataset.train_size = json_whole<int64_t>(d, "train_size", "dataset.train_size", 0);
    c.dataset.val_size = json_whole<int64_t>(d, "val_size", "dataset.val_size", 0);
    c.dataset.classes = json_whole<int64_t>(d, "classes", "dataset.classes", 0);
    c.dataset.noise = d.value("noise", -1.0);
    c.dataset.min_wires_per_topic = json_whole<int64_t>(d, "min_wires_per_topic", "dataset.min_wires_per_topic", 0);
    c.dataset.test_split = d.value("test_split", -1.0);
    c.dataset.validation_split = d.value("validation_split", -1.0);
    c.dataset.image_height = json_whole<int64_t>(d, "image_height", "dataset.image_height", 0);
    c.dataset.image_width = json_whole<int64_t>(d, "image_width", "dataset.image_width", 0);
    c.dataset.color_mode = d.value("color_mode", "");
    c.dataset.crop_to_aspect_ratio = d.value("crop_to_aspect_ratio", false);
    c.dataset.follow_links = d.value("follow_links", false);
    c.dataset.label_column = d.value("label_column", "");
    c.eval_batch_size = json_whole<int64_t>(j, "eval_batch_size", "eval_batch_size", 0);
    c.strategy.intra_op_threads = json_whole<int>(j, "intra_op_threads", "intra_op_threads", 0);
    const auto& o = j.at("optimizer");
    c.optimizer.name = o.at("name").get<std::string>();
    c.optimizer.learning_rate = o.value("learning_rate", 0.0);
    c.optimizer.epsilon = o.value("epsilon", 1e-7);
    c.optimizer.momentum = o.value("momentum", 0.0);
    c.optimizer.nesterov = o.value("nesterov", false);
    c.optimizer.beta1 = o.value("beta1", 0.9);
    c.optimizer.beta2 = o.value("beta2", 0.999);
    c.optimizer.rho = o.value("rho", 0.9);
    if (c.optimizer.name == "adamw") c.optimizer.weight_decay = o.value("weight_decay", -1.0);
    c.optimizer.clipnorm = o.value("clipnorm", 0.0);
    c.optimizer.global_clipnorm = o.value("global_clipnorm", 0.0);
    c.optimizer.clipvalue = o.value("clipvalue", 0.0);
    c.batch_size = json_whole<int64_t>(j, "batch_size", "batch_size");
    c.epochs = json_whole<int>(j, "epochs", "epochs");
    c.max_steps = json_whole<int64_t>(j, "max_steps", "max_steps", 0);
    const auto& dev = j.at("devices");
    c.devices.devices = dev.at("devices").get<std::string>();
    c.devices.logical = json_whole<int>(dev, "logical", "devices.logical");
    c.devices.memory_limit_mib = json_whole<int64_t>(dev, "memory_limit_mib", "devices.memory_limit_mib", 0);
    c.seed = json_whole<uint64_t>(j, "seed", "seed");
    c.initial_weights = j.value("initial_weights", "");  // runs recorded before it: none
    c.strategy.deterministic = j.value("deterministic", false);
    c.strategy.communicator = j.value("communicator", "auto");
    c.strategy.cuda_graphs = j.value("cuda_graphs", "auto");  // runs recorded before it: auto
    c.strategy.sparse_exchange = j.value("sparse_exchange", true);
    c.strategy.backward_overlap = j.value("backward_overlap", true);
    c.strategy.precision = parse_precision(j.value("precision", "float32"));  // runs before it: float32
    c.strategy.sync_check_every = json_whole<int>(j, "sync_check_every", "sync_check_every", 100);
    c.strategy.top_k = json_whole<int>(j, "top_k", "top_k", 5);
    c.strategy.perturb_replica_at_step = json_whole<int64_t>(j, "perturb_replica_at_step", "perturb_replica_at_step", 0);
    c.strategy.link = simulated_link_from_json(j.value("simulated_link", nlohmann::json()));
    c.checkpoints.every_steps = json_whole<int64_t>(j, "checkpoint_every_steps", "checkpoint_every_steps", 0);
    c.checkpoints.keep_last = json_whole<int>(j, "checkpoint_keep_last", "checkpoint_keep_last", 3);
    // Runs recorded before schedules existed have none of these: constant rate, no callbacks.
    c.schedule = lr_schedule_from_json(j.value("lr_schedule", nlohmann::json()));
    c.plateau = plateau_from_json(j.value("reduce_lr_on_plateau", nlohmann::json()));
    c.early_stopping = early_stopping_from_json(j.value("early_stopping", nlohmann::json()));
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("run configuration: {}", e.what()));
  }
}

}  // namespace mirror
