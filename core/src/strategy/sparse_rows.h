#pragma once
// The cross-process stage of the all-reduce with embedding gradients exchanged as the rows a
// batch touched (TensorFlow's IndexedSlices, which MirroredStrategy all-gathers) instead of the
// whole table. One collective per step: an all-reduce of the dense rest, each process's message
// length, and one slot per process where each puts its rows (an all-gather made of a sum, so that
// any cross-process backend serves it); every process then sums the rows into the table in rank
// order. The slots' size is the longest recent message with a quarter to spare, decided alike on
// every process from the lengths they all received; the first step sends the tables whole with
// the lengths, and a step whose message does not fit its slot sends the messages again, side by
// side at their lengths, in a second all-reduce. Private to the strategy floor
// (HierarchicalCommunicator calls it).

#include <torch/types.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "mirror/strategy/hierarchical_communicator.h"

namespace mirror {

class SparseRowExchange {
 public:
  // `segments` cross as rows; `left_out` (offset, length) not at all: another collective sums them
  // (the buckets overlapped with backward, backward_overlap.h). With no segments, everything else
  // crosses whole.
  explicit SparseRowExchange(std::vector<RowSegment> segments, std::vector<std::pair<int64_t, int64_t>> left_out = {});
  // Sums `flat` (1-D float32 on the CPU: this process's sum of its replicas) over the processes of
  // `cross`, this process being rank `process` of `processes`: afterwards `flat` holds the sum on
  // every process, bit-identical everywhere. The segments' rows are summed over the processes in
  // rank order (exactly the dense sum for 2 processes; within float summation order for more).
  // The left-out ranges are neither sent nor touched. Returns the bytes this process put into the
  // collectives.
  int64_t exchange(Communicator& cross, int process, int processes, torch::Tensor& flat);

 private:
  // One all-reduce of `flat` whole with the message lengths after it.
  int64_t exchange_densely(Communicator& cross, int process, int processes, torch::Tensor& flat,
                           int64_t message_length, std::vector<int64_t>& lengths);

  // Each segment's rows with a value not zero, and the message they make: for each segment its row
  // count, the rows' ids, then the rows.
  struct Touched {
    std::vector<std::vector<int64_t>> ids;
    int64_t length = 0;  // floats
  };
  Touched touched_rows(const torch::Tensor& flat) const;
  void write_message(const torch::Tensor& flat, const Touched& touched, float* out) const;
  // The segments of `flat` become the sum of the messages in `received` from `starts`, in order.
  void add_rows(torch::Tensor& flat, const torch::Tensor& received, const std::vector<int64_t>& starts) const;

  std::vector<RowSegment> segments_;
  std::vector<std::pair<int64_t, int64_t>> tables_;    // the segments as offset, length
  std::vector<std::pair<int64_t, int64_t>> left_out_;  // sorted
  int64_t sparse_n_ = 0;       // the segments' floats
  int64_t slot_ = 0;           // floats per process for its rows; 0: exchange the tables whole
  int64_t largest_table_ = 0;  // rows
};

}  // namespace mirror
