// The mirrored strategy's training state between steps: parameters, learning rate, and what a
// checkpoint saves and restores.
// Tested by tests/core/strategy/test_mirrored.cpp and tests/core/train/test_trainer.cpp (checkpoints).
#include <fmt/format.h>

#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "replica.h"

namespace mirror {

int64_t MirroredStrategy::num_parameters() const { return replicas_[0]->flat_params.numel(); }

torch::Tensor MirroredStrategy::replica_parameters(int replica) {
  return replicas_.at(static_cast<size_t>(replica))->flat_params;
}

void MirroredStrategy::set_learning_rate(double rate) {
  for (auto& rep : replicas_) rep->optimizer->set_learning_rate(rate);
}

double MirroredStrategy::learning_rate() const { return replicas_[0]->optimizer->learning_rate(); }

void MirroredStrategy::load_parameters(const torch::Tensor& params) {
  torch::NoGradGuard no_grad;
  if (!params.defined() || params.numel() != num_parameters())
    throw DataError(fmt::format("{} parameters given, this model has {}", params.defined() ? params.numel() : 0,
                                num_parameters()));
  for (auto& rep : replicas_) rep->flat_params.copy_(params);
  for (auto& rep : replicas_) rep->device->synchronize();
}

double MirroredStrategy::parameter_l2_norm() const {
  torch::NoGradGuard no_grad;
  return replicas_[0]->flat_params.to(torch::kFloat64).norm().item<double>();
}

StrategyState MirroredStrategy::state() const {
  torch::NoGradGuard no_grad;
  StrategyState s;
  s.params = replicas_[0]->flat_params.to(torch::kCPU).clone();
  for (const auto& [name, t] : replicas_[0]->optimizer->slots()) s.optimizer_slots.emplace_back(name, t.to(torch::kCPU).clone());
  s.optimizer_iterations = replicas_[0]->optimizer->iterations();
  for (const auto& rep : replicas_) s.dropout_rng.push_back(rep->dropout_rng.get_state());
  s.steps = steps_;
  if (processes_ > 1) {
    // Every process's dropout streams, in replica order: as bytes carried in doubles.
    std::vector<double> mine;
    for (const auto& g : s.dropout_rng) {
      auto bytes = g.contiguous();
      mine.push_back(static_cast<double>(bytes.numel()));
      const auto* b = bytes.data_ptr<uint8_t>();
      mine.insert(mine.end(), b, b + bytes.numel());
    }
    s.dropout_rng.clear();
    for (const auto& theirs : workers_->allgather(mine)) {
      for (size_t at = 0; at < theirs.size();) {
        const auto len = static_cast<int64_t>(theirs[at++]);
        auto t = torch::empty({len}, torch::kUInt8);
        uint8_t* bytes = t.data_ptr<uint8_t>();
        for (int64_t k = 0; k < len; ++k) bytes[k] = static_cast<uint8_t>(theirs[at + static_cast<size_t>(k)]);
        at += static_cast<size_t>(len);
        s.dropout_rng.push_back(t);
      }
    }
  }
  return s;
}

void MirroredStrategy::restore(const StrategyState& s) {
  torch::NoGradGuard no_grad;
  if (!s.params.defined() || s.params.numel() != num_parameters())
    throw DataError(fmt::format("the checkpoint holds {} parameters but this model has {}",
                                s.params.defined() ? s.params.numel() : 0, num_parameters()));
  const size_t total = static_cast<size_t>(total_replicas());
  if (s.dropout_rng.size() != total)
    throw DataError(fmt::format("the checkpoint was written by {} replicas, this run has {}; resume with as many "
                                "replicas in all (processes x --logical)", s.dropout_rng.size(), total));
  for (size_t r = 0; r < replicas_.size(); ++r) {
    auto& rep = *replicas_[r];
    rep.flat_params.copy_(s.params);
    rep.optimizer->load_slots(s.optimizer_slots, s.optimizer_iterations);
    try {
      rep.dropout_rng.set_state(s.dropout_rng[static_cast<size_t>(first_replica_) + r]);
    } catch (const c10::Error&) {
      throw DataError(fmt::format("the checkpoint's dropout stream of replica {} does not fit {}: resume on the same "
                                  "kind of device (CPU or GPU) it was written on", first_replica_ + static_cast<int>(r), devices_[r].name()));
    }
  }
  for (auto& rep : replicas_) rep->device->synchronize();
  steps_ = s.steps;
}

}  // namespace mirror
