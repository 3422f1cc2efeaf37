#pragma once
// One model copy of the mirrored strategy, and how it is built. Private to the strategy floor:
// shared by the files of MirroredStrategy (replica.cpp builds, mirrored.cpp steps, state.cpp
// saves and restores, step_record.cpp and sync_check.cpp speak across processes).

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "mirror/model/precision.h"
#include "mirror/model/shape.h"
#include "mirror/optim/optimizer.h"
#include "mirror/strategy/step_result.h"
#include "replica_device.h"

namespace mirror {

// One model copy with its optimizer, plus the outputs of its part of the current step.
// Touched only by its own replica thread during a step, and by the trainer thread between steps.
struct Replica {
  std::unique_ptr<ReplicaDevice> device;
  torch::nn::Sequential model{nullptr};
  torch::Tensor flat_params;  // every parameter is a view into this buffer
  torch::Tensor flat_grads;   // every parameter's .grad is a view into this buffer
  // Runs of several processes: the step's record (StepRecord), in the same buffer as the
  // gradients, after them, so that it travels with them. Undefined in one process.
  torch::Tensor record;
  std::vector<torch::Tensor> reduce_list;  // {the gradients [and the record]}, handed to the communicator
  std::unique_ptr<Optimizer> optimizer;
  at::Generator dropout_rng;
  torch::Tensor metrics;  // its shard's {loss sum, hits, top-k hits} this step, on its device
  MetricSums sums;        // the same, read back after the step
  // Evaluations: its shard's top classes and their probabilities, on its device, then read back.
  torch::Tensor top_classes, top_probs;
  TopPredictions top;
  ReplicaTiming timing;
  ReplicaTiming last_train_timing;  // of its last training step: its memory is what its next record carries
  // Its last training step on its process's step clock (what its next record carries), and the
  // one before (the step a timeline of several processes describes, see read_record).
  ReplicaMarks marks, previous_marks;
};

// Per-example metrics of one shard as one float64 tensor on the shard's device: {loss sum,
// arg-max hits, top-k hits}. Read back once per step, so a GPU replica waits for the host once.
torch::Tensor shard_metrics(const torch::Tensor& logits, const torch::Tensor& y, const torch::Tensor& loss_sum,
                            int top_k);

// How many of its most probable classes an evaluation keeps for each example.
constexpr int64_t kTopPredictions = 5;

// Builds the replica on `device` with the model's weights drawn from LibTorch's default generator
// (the caller seeds it and holds it: construction must not interleave) and its own dropout
// stream seeded with `dropout_seed`. Its gradient buffer has room for `record_size` more values
// after the gradients (0 in one process); it computes in `precision`. Throws RunError when the
// device runs out of memory.
std::unique_ptr<Replica> build_replica(std::unique_ptr<ReplicaDevice> device, const ModelAnalysis& model,
                                       uint64_t dropout_seed, int64_t record_size, Precision precision);

// Appends a later part of a batch's predictions (the next replica's or process's shard).
void append_top(TopPredictions& into, const TopPredictions& part);

}  // namespace mirror
