#pragma once
// Two-stage all-reduce for several processes with several replica threads each: reduce inside
// the process first (any in-process backend), then across processes (a cross-process backend,
// e.g. c10d), then hand the result to every local replica. W processes x M replicas then sum
// over all W*M replicas, and every rank of every process holds bit-identical results.

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "mirror/strategy/barrier.h"
#include "mirror/strategy/communicator.h"

namespace mirror {

class HierarchicalCommunicator : public Communicator {
 public:
  // `local` reduces across this process's replica threads (its world size is theirs); `cross`
  // reduces across processes, and this process is its rank `process_rank`. Only local rank 0
  // calls `cross`. Both are owned (`cross` may be shared with other objects of this process).
  HierarchicalCommunicator(std::unique_ptr<Communicator> local, std::shared_ptr<Communicator> cross,
                           int process_rank);
  // Collective over the local ranks, as Communicator says; the sum is over local ranks first,
  // then over processes in rank order. Throws CollectiveAborted when aborted, and rethrows the
  // cross-process failure on local rank 0 (the other local ranks then see CollectiveAborted).
  std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) override;
  void abort(const std::string& reason) override;
  void reset() override;
  int world_size() const override { return local_->world_size(); }
  std::string name() const override;
  // When local rank 0 last entered and left the cross-process exchange (steady_clock). Read it
  // between collectives (after the replicas' threads have returned).
  std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point> last_exchange() const {
    return {exchange_begin_, exchange_end_};
  }

 private:
  std::unique_ptr<Communicator> local_;
  std::shared_ptr<Communicator> cross_;
  const int process_rank_;
  AbortableBarrier barrier_;
  std::vector<torch::Tensor>* root_ = nullptr;  // local rank 0's tensors; read between the barriers
  std::chrono::steady_clock::time_point exchange_begin_{}, exchange_end_{};  // written by local rank 0
};

}  // namespace mirror
