#pragma once
// Two-stage all-reduce for several processes with several replica threads each: reduce inside
// the process first (any in-process backend), then across processes (a cross-process backend,
// e.g. c10d), then hand the result to every local replica. W processes x M replicas then sum
// over all W*M replicas, and every rank of every process holds bit-identical results.

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "mirror/strategy/barrier.h"
#include "mirror/strategy/communicator.h"

namespace mirror {

// An embedding table's gradient inside the flat gradients: `rows` x `width` floats from `offset`.
struct RowSegment {
  int64_t offset = 0;
  int64_t rows = 0;
  int64_t width = 0;
};

class SparseRowExchange;

class HierarchicalCommunicator : public Communicator {
 public:
  // `local` reduces across this process's replica threads (its world size is theirs); `cross`
  // reduces across processes, and this process is its rank `process_rank`. Only local rank 0
  // calls `cross`. Both are owned (`cross` may be shared with other objects of this process).
  HierarchicalCommunicator(std::unique_ptr<Communicator> local, std::shared_ptr<Communicator> cross,
                           int process_rank);
  ~HierarchicalCommunicator() override;
  // From now on the cross-process stage exchanges these segments of a collective's tensor (when
  // it is one, CPU, float32) as the rows that are not zero (sparse_rows.h), the rest densely;
  // empty: all densely. Call before the first collective.
  void exchange_rows_sparsely(std::vector<RowSegment> segments);
  // From now on the cross-process stage leaves these (offset, length) places of a collective's one
  // tensor alone: another collective sums them across the processes (BackwardOverlap). Call before
  // the first collective.
  void leave_out(std::vector<std::pair<int64_t, int64_t>> ranges);
  // The cross-process stage itself (local rank 0's), for collectives beside the step's.
  Communicator& cross() { return *cross_; }
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
  // The bytes this process put into the last cross-process exchange (read as last_exchange()).
  int64_t last_exchange_bytes() const { return exchange_bytes_; }

 private:
  std::unique_ptr<Communicator> local_;
  std::shared_ptr<Communicator> cross_;
  const int process_rank_;
  AbortableBarrier barrier_;
  std::vector<torch::Tensor>* root_ = nullptr;  // local rank 0's tensors; read between the barriers
  std::chrono::steady_clock::time_point exchange_begin_{}, exchange_end_{};  // written by local rank 0
  int64_t exchange_bytes_ = 0;                                               // likewise
  void rebuild_exchange();
  std::vector<RowSegment> rows_;
  std::vector<std::pair<int64_t, int64_t>> left_out_;
  std::unique_ptr<SparseRowExchange> sparse_;  // null: all densely (no rows, nothing left out)
};

}  // namespace mirror
