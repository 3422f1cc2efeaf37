#include "run_started.h"

#include <fmt/format.h>

#include <algorithm>

#include "mirror/strategy/shard_plan.h"

namespace mirror {

RunStarted run_started(const MirroredStrategy& strategy, const TrainConfig& config, const DatasetInfo& data,
                       int64_t train_size, int64_t val_size, int64_t steps_per_epoch) {
  RunStarted e;
  e.dataset = data.name;
  e.model = config.model.name;
  for (int p = 0; p < strategy.processes(); ++p)
    for (const auto& d : strategy.devices())
      e.devices.push_back(strategy.processes() > 1 ? fmt::format("rank {} {}", p, d.name()) : d.name());
  e.communicator = strategy.communicator().name;
  e.communicator_reason = strategy.communicator().reason;
  e.cuda_graphs = strategy.cuda_graphs_status();
  e.precision = precision_name(config.strategy.precision);
  e.intra_op_threads = strategy.intra_op_threads();
  e.intra_op_threads_reason = strategy.intra_op_threads_reason();
  e.parameters = strategy.num_parameters();
  e.train_size = train_size;
  e.val_size = val_size;
  e.global_batch = config.batch_size;
  e.shard_sizes = ShardPlan(config.batch_size, strategy.total_replicas()).sizes();
  e.steps_per_epoch = steps_per_epoch;
  e.epochs = config.epochs;
  e.max_steps = config.max_steps;
  e.num_classes = data.num_classes;
  e.top_k = static_cast<int>(e.num_classes > 0 ? std::min<int64_t>(config.strategy.top_k, e.num_classes)
                                               : config.strategy.top_k);
  return e;
}

}  // namespace mirror
