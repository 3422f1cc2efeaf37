#pragma once
// A communicator for tests, in the spirit of c10d's FakeProcessGroup: it sums for real (as
// reduce-to-one does), and on a chosen rank it can fail, or arrive late, at a chosen collective —
// so tests can check what a run does when a replica's all-reduce breaks or stalls.

#include <atomic>
#include <memory>
#include <vector>

#include "mirror/strategy/communicator.h"

namespace mirror {

struct FaultPlan {
  int rank = 0;               // the rank the faults happen on
  int64_t fail_at_call = 0;   // 1-based collective at which `rank` throws RunError; 0: never
  int64_t delay_at_call = 0;  // 1-based collective at which `rank` sleeps `delay_ms` first; 0: never
  double delay_ms = 0;
};

class FakeCommunicator : public Communicator {
 public:
  FakeCommunicator(int world_size, FaultPlan plan);
  // Throws RunError("... injected failure ...") on the planned call; otherwise sums as
  // reduce-to-one does. Same threading contract as Communicator.
  std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) override;
  void abort(const std::string& reason) override { inner_->abort(reason); }
  void reset() override { inner_->reset(); }
  int world_size() const override { return inner_->world_size(); }
  std::string name() const override { return "fake"; }
  // Collectives `rank` has entered so far. Thread-safe.
  int64_t calls(int rank) const { return calls_.at(static_cast<size_t>(rank)).load(); }

 private:
  FaultPlan plan_;
  std::unique_ptr<Communicator> inner_;
  std::vector<std::atomic<int64_t>> calls_;
};

// Registers a backend called "fake" that builds FakeCommunicators with `plan`, for as long as the
// returned object lives (tests: a run configured with communicator "fake" then uses it).
// Throws std::invalid_argument when one is registered already.
std::shared_ptr<void> register_fake_communicator(FaultPlan plan);

}  // namespace mirror
