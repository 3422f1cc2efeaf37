#include "mirror/train/events_json.h"

#include <nlohmann/json.hpp>

namespace mirror {

nlohmann::json to_json(const RunStarted& e) {
  return {{"type", "started"},           {"dataset", e.dataset},
          {"model", e.model},            {"devices", e.devices},
          {"communicator", e.communicator}, {"communicator_reason", e.communicator_reason},
          {"intra_op_threads", e.intra_op_threads}, {"intra_op_threads_reason", e.intra_op_threads_reason},
          {"parameters", e.parameters},
          {"train_size", e.train_size},  {"val_size", e.val_size},
          {"global_batch", e.global_batch}, {"shard_sizes", e.shard_sizes},
          {"steps_per_epoch", e.steps_per_epoch}, {"epochs", e.epochs},
          {"top_k", e.top_k},            {"num_classes", e.num_classes}};
}

nlohmann::json to_json(const StepMetrics& e) {
  nlohmann::json replicas = nlohmann::json::array();
  for (const auto& r : e.replicas) {
    nlohmann::json j = {{"replica", r.replica}, {"shard", r.shard_size}, {"compute_ms", r.compute_ms},
                        {"allreduce_ms", r.allreduce_ms}, {"update_ms", r.update_ms}};
    if (r.memory_mib > 0) j["memory_mib"] = r.memory_mib;
    replicas.push_back(std::move(j));
  }
  nlohmann::json j = {{"type", "step"},
          {"epoch", e.epoch},
          {"step", e.step},
          {"global_step", e.global_step},
          {"samples", e.samples},
          {"loss", e.loss},
          {"accuracy", e.accuracy},
          {"top_k_accuracy", e.top_k_accuracy},
          {"step_seconds", e.step_seconds},
          {"samples_per_sec", e.samples_per_sec},
          {"learning_rate", e.learning_rate},
          {"replicas", std::move(replicas)}};
  if (e.sync_checked) j["sync_checked"] = true;
  return j;
}

nlohmann::json to_json(const EpochMetrics& e) {
  nlohmann::json j = {{"type", "epoch"},
                      {"epoch", e.epoch},
                      {"steps", e.steps},
                      {"loss", e.loss},
                      {"accuracy", e.accuracy},
                      {"top_k_accuracy", e.top_k_accuracy},
                      {"seconds", e.seconds},
                      {"samples_per_sec", e.samples_per_sec}, {"learning_rate", e.learning_rate}};
  if (e.has_validation) {
    j["val_loss"] = e.val_loss;
    j["val_accuracy"] = e.val_accuracy;
    j["val_top_k_accuracy"] = e.val_top_k_accuracy;
  }
  return j;
}

nlohmann::json to_json(const RunFinished& e) {
  return {{"type", "final"},
          {"status", run_status_name(e.status)},
          {"message", e.message},
          {"steps", e.steps},
          {"epochs_completed", e.epochs_completed},
          {"seconds", e.seconds},
          {"train_samples_per_sec", e.train_samples_per_sec},
          {"param_l2_norm", e.param_l2_norm}};
}

}  // namespace mirror
