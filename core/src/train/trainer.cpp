#include "mirror/train/trainer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mirror/strategy/workers.h"
#include "initial_weights.h"
#include "mirror/util/error.h"
#include "training_loop.h"
#include "validation.h"

namespace mirror {

namespace {
// What every worker process must have loaded alike, one fact a line (so that a mismatch names
// the fact): the splits' sizes and the input shape, and for the user's own data the files read
// and their content hash (each worker reads the files itself).
std::string data_fingerprint(const Dataset& d) {
  const DatasetInfo& info = d.info();
  return fmt::format("examples: {} training, {} validation\ninput shape: {}\nclasses: {}\nfiles: {}\ncontent hash: {}\n",
                     d.size(Split::kTrain), d.size(Split::kValidation), format_shape(info.input_shape),
                     info.num_classes, info.file_count, info.content_hash.empty() ? "-" : info.content_hash);
}
}  // namespace

Trainer::Trainer(TrainConfig config, std::shared_ptr<const Dataset> dataset, std::shared_ptr<WorkerGroup> workers)
    : config_(std::move(config)), dataset_(std::move(dataset)) {
  if (!dataset_) throw ConfigError("no dataset");
  config_.validate();
  const int processes = workers ? workers->world_size() : 1;
  if (processes > 1) {
    workers->check_same("config", to_json(config_).dump(1));
    workers->check_same("data", data_fingerprint(*dataset_));
  }
  const ModelAnalysis analysis = analyze(config_.model, input_spec(*dataset_));
  if (!analysis.ok())
    throw ConfigError(fmt::format("model '{}' does not fit dataset '{}': {}", config_.model.name,
                                  dataset_->info().name, analysis.describe_errors()));
  auto devices = resolve_devices(config_.devices, list_physical_devices());
  const int64_t replicas = static_cast<int64_t>(devices.size()) * processes;
  if (config_.batch_size < replicas)
    throw ConfigError(fmt::format("global batch size {} is smaller than the {} replicas; every replica needs "
                                  "at least one example (raise --batch-size or lower --logical)",
                                  config_.batch_size, replicas));
  MirroredOptions options = config_.strategy;
  options.shard_examples = (config_.batch_size + replicas - 1) / replicas;  // the largest shard
  strategy_ = std::make_unique<MirroredStrategy>(std::move(devices), analysis, config_.optimizer, options,
                                                 config_.seed, workers);
  if (!config_.initial_weights.empty()) {
    strategy_->load_parameters(initial_parameters(config_.initial_weights, analysis));
    // Each process reads the file itself: the same path could hold other weights on another machine.
    if (processes > 1)
      workers->check_same("initial weights",
                          fmt::format("{}: L2 norm {:.17g}\n", config_.initial_weights, strategy_->parameter_l2_norm()));
  }
}

Trainer::~Trainer() = default;

void Trainer::resume(const Checkpoint& checkpoint) {
  strategy_->restore(checkpoint.state);
  start_ = checkpoint.position;
  start_best_params_ = checkpoint.best_params;
}

MetricSums Trainer::validate() {
  const int64_t eval_batch =
      config_.eval_batch_size > 0 ? config_.eval_batch_size : std::max<int64_t>(config_.batch_size, 256);
  const std::atomic<bool> never(false);
  return validate_split(*strategy_, *dataset_, eval_batch, never, 0, start_.global_step).sums;
}

RunFinished Trainer::run(EventSink& sink, TrainControl& control) {
  return run_training_loop(config_, *dataset_, *strategy_, sink, control, store_, start_, start_best_params_);
}

}  // namespace mirror
