#pragma once
// Gradients all-reduced across processes while backward still runs (the overlap of DDP's
// buckets). The replica's parameters, in reverse order (the order backward finishes them), are
// grouped into buckets of about kOverlapBucketBytes; a hook on each parameter copies its gradient
// into its place in the flat gradients as autograd hands it over, and the bucket whose last
// gradient arrived starts its all-reduce at once, in Gloo's threads, while backward goes on with
// the layers below. Buckets start strictly in bucket order on every process, so the collectives
// match and the sum is the same everywhere; the step's own exchange then carries what is left
// (the embedding tables' rows, the record), and the buckets are waited for before the update.
// One replica per process, CPU (the only case where a bucket's gradient is final when its hook
// runs; several replicas must first sum inside the process). Private to the strategy floor
// (MirroredStrategy builds it; HierarchicalCommunicator leaves its ranges out).

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "mirror/strategy/communicator.h"

namespace mirror {

constexpr int64_t kOverlapBucketBytes = 256 * 1024;

class BackwardOverlap {
 public:
  using Clock = std::chrono::steady_clock;
  // `params`: the replica's parameters in order, whose gradients are views of `flat_grads` in that
  // order; those with `keep[i]` false stay out of the buckets (they go with the step's exchange).
  // `cross` sums over the processes, this one being its rank `process`; it outlives this object.
  BackwardOverlap(std::vector<torch::Tensor> params, torch::Tensor flat_grads, const std::vector<bool>& keep,
                  Communicator& cross, int process);
  ~BackwardOverlap();
  BackwardOverlap(const BackwardOverlap&) = delete;
  BackwardOverlap& operator=(const BackwardOverlap&) = delete;

  // The offsets and lengths in the flat gradients that the buckets sum, in order.
  std::vector<std::pair<int64_t, int64_t>> ranges() const;
  int buckets() const { return static_cast<int>(buckets_.size()); }
  // Before backward (after the flat gradients were zeroed): the hooks are armed.
  void begin_step();
  // After backward, before the step's exchange: starts the buckets no hook started (a parameter
  // backward gave no gradient keeps its zeros), in order.
  void launch_rest();
  // After the step's exchange: waits for every bucket; the flat gradients then hold the sums.
  // Rethrows a bucket's failure.
  void wait();
  // When the first bucket started and the last one finished in the last step (zero when none ran).
  std::pair<Clock::time_point, Clock::time_point> last_span() const { return {first_start_, last_end_}; }
  // The bytes the buckets put into the collectives a step.
  int64_t bytes() const { return 4 * floats_; }

 private:
  struct Bucket {
    std::vector<size_t> params;  // indices into params_
    int64_t offset = 0, length = 0;
    std::vector<torch::Tensor> flat;  // {its range of the flat gradients}
    int arrived = 0;
    std::shared_ptr<Work> work;
    Clock::time_point finished{};  // when its collective was known done at its start
  };
  void arrived(size_t bucket, size_t param, const torch::Tensor& grad);
  void launch(Bucket& b);
  void launch_ready();  // starts, in order, the buckets whose gradients have all arrived

  std::vector<torch::Tensor> params_;
  std::vector<int64_t> offsets_;
  torch::Tensor flat_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, unsigned>> hooks_;  // parameter, hook handle
  Communicator& cross_;
  const int process_;
  bool armed_ = false;
  size_t next_ = 0;  // the next bucket to start
  int64_t floats_ = 0;
  Clock::time_point first_start_{}, last_end_{};
};

}  // namespace mirror
