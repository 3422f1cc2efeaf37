#pragma once
// What a mirrored step (or an evaluation batch) yields, as plain values. Light on purpose: no
// torch, so event headers and the window can include it without paying for LibTorch.

#include <cstdint>
#include <vector>

#include "mirror/strategy/step_timeline.h"

namespace mirror {

// Where one replica's step time went, in milliseconds. In a run of several processes, another
// process's replicas report the times of their previous training step (they travel with this
// step's gradients, before this step's all-reduce has happened): zero on a run's first step.
struct ReplicaTiming {
  int replica = 0;
  int64_t shard_size = 0;
  double compute_ms = 0;    // forward + backward
  double allreduce_ms = 0;  // waiting for and doing the all-reduce
  double update_ms = 0;     // optimizer update
  double memory_mib = 0;    // GPU replicas: peak memory of its card so far / replicas on that card
};

// Sums over examples: of one step's global batch, of an epoch so far, of a validation pass.
// The one type for these sums everywhere (steps, epochs, checkpoints); divide by `samples` for
// means. Not thread-safe.
struct MetricSums {
  int64_t samples = 0;
  double loss_sum = 0;        // sum of per-example losses
  int64_t correct = 0;        // arg-max hits
  int64_t top_k_correct = 0;  // label among the k largest logits

  void add(const MetricSums& o) {
    samples += o.samples;
    loss_sum += o.loss_sum;
    correct += o.correct;
    top_k_correct += o.top_k_correct;
  }
  double loss() const { return samples ? loss_sum / static_cast<double>(samples) : 0.0; }
  double accuracy() const { return samples ? static_cast<double>(correct) / static_cast<double>(samples) : 0.0; }
  double top_k_accuracy() const {
    return samples ? static_cast<double>(top_k_correct) / static_cast<double>(samples) : 0.0;
  }
};

// An evaluation's predictions, example by example in batch order: each example's k most probable
// classes (most probable first) and their probabilities, k at a time.
struct TopPredictions {
  int k = 0;
  std::vector<int32_t> classes;
  std::vector<float> probabilities;
  int64_t examples() const { return k > 0 ? static_cast<int64_t>(classes.size()) / k : 0; }
};

// One step's sums over the global batch, and each replica's timing (train steps only).
struct StepResult {
  MetricSums sums;
  std::vector<ReplicaTiming> replicas;
  bool sync_checked = false;  // training: the replicas were checked bit-identical after this step
  bool stop_asked = false;    // training: some process was asked to stop; all stop after this step
  // When sync_checked: each replica's parameter checksum (64-bit FNV-1a of the bytes), in replica
  // order over all processes; all equal, or the check would have failed.
  std::vector<uint64_t> checksums;
  TopPredictions top;         // evaluation only: every example's top predictions
  int64_t exchange_bytes = 0; // training, several processes: the bytes this process put into the cross-process exchange
  int64_t overlap_bytes = 0;  // of them, the buckets' that crossed during backward (--overlap)
  // Training: the step on one clock (step_timeline.h). Several processes: of the previous step.
  StepTimeline timeline;
};

}  // namespace mirror
