#include "mirror/strategy/fake_communicator.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>
#include <thread>

#include "mirror/util/error.h"

namespace mirror {

FakeCommunicator::FakeCommunicator(int world_size, FaultPlan plan)
    : plan_(plan),
      inner_(make_communicator(world_size == 1 ? "none" : "reduce-to-one", CommunicatorSpec{world_size, 1 << 20, {}})),
      calls_(static_cast<size_t>(world_size)) {}

std::shared_ptr<Work> FakeCommunicator::allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) {
  const int64_t call = ++calls_.at(static_cast<size_t>(rank));
  if (rank == plan_.rank && call == plan_.fail_at_call)
    throw RunError(fmt::format("fake communicator: injected failure in collective {} on rank {}", call, rank));
  if (rank == plan_.rank && call == plan_.delay_at_call)
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(plan_.delay_ms));
  return inner_->allreduce_sum(rank, tensors);
}

std::shared_ptr<void> register_fake_communicator(FaultPlan plan) {
  CommunicatorRegistry::instance().add(
      {"fake", "test double: sums like reduce-to-one, fails or stalls where a test says",
       [](const std::vector<LogicalDevice>&) { return std::string(); }, 0, "",
       [plan](const CommunicatorSpec& s) -> std::unique_ptr<Communicator> {
         return std::make_unique<FakeCommunicator>(s.world_size, plan);
       },
       /*not_in_build=*/""});
  return std::shared_ptr<void>(nullptr, [](void*) { CommunicatorRegistry::instance().remove("fake"); });
}

}  // namespace mirror
