#pragma once
// The training step of every replica of this process, all on one physical GPU (the tutorial's
// logical GPUs, or one replica), as one CUDA graph: each replica's forward and backward on its
// own stream forked from the capturing one, the all-reduce in reduce-to-one's order (replica 0
// sums the others in rank order and every replica copies the sum, so the bits are the eager
// step's), and each replica's fused update reading the step's numbers from device memory
// (DeviceUpdate). Recorded once per batch size after kGraphWarmupSteps eager steps of the same
// work from the same thread, then replayed: one launch a step instead of hundreds.
// Private to the strategy floor; built only in builds with CUDA graphs (MIRROR_HAVE_CUDA_GRAPHS):
// elsewhere constructing one throws.

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "mirror/data/batch.h"
#include "mirror/data/dataset.h"
#include "mirror/strategy/shard_plan.h"
#include "replica.h"

namespace mirror {

class GraphStep {
 public:
  // `replicas` (this process's, on one GPU, each with its optimizer) outlive it. `first_replica`
  // is the first one's place among all replicas (0 in one process); `top_k` as the eager step's.
  // Throws ConfigError in a build without CUDA graphs.
  GraphStep(std::vector<Replica*> replicas, int first_replica, int top_k);
  ~GraphStep();
  GraphStep(const GraphStep&) = delete;
  GraphStep& operator=(const GraphStep&) = delete;

  // One training step on `batch` (global, sharded by `plan`, loss scaled by `inv_global`), run
  // from the calling (trainer) thread: eagerly for a batch size's first kGraphWarmupSteps steps,
  // then captured and replayed. Leaves each replica's sums, timing and marks as the eager step
  // does; the step's phases are inside the graph, so a replica's marks show it as one block of
  // compute measured by CUDA events around the replay. Throws RunError when CUDA fails (a capture
  // included: the step has then not been applied, and the caller may run it eagerly).
  void train_step(const Batch& batch, const ShardPlan& plan, double inv_global,
                  std::chrono::steady_clock::time_point step_start);

  int captured() const { return captured_; }     // graphs recorded (one per batch size)
  int64_t replayed() const { return replayed_; }  // steps run as a replay

 private:
  struct Shape;  // one batch size: its static inputs and outputs, its graph
  struct Cuda;   // events, timer and updates
  // Enqueues the whole step on the calling thread's current stream (replica 0's): what is run
  // eagerly while warming up and what is captured.
  void enqueue(Shape& shape, double inv_global);

  std::vector<Replica*> replicas_;
  int first_replica_ = 0;
  int top_k_ = 1;
  std::map<int64_t, std::unique_ptr<Shape>> shapes_;  // by global batch size
  std::unique_ptr<Cuda> cuda_;
  int captured_ = 0;
  int64_t replayed_ = 0;
};

}  // namespace mirror
