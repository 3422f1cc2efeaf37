#pragma once
// What differs between a replica on the CPU and one on a GPU, behind one small interface, so that
// the mirrored step reads the same for both. Chosen once per replica from its LogicalDevice
// (ReplicaDevice::for_replica); a new device kind is one more implementation in
// replica_device.cpp. Private to the strategy floor.

#include <torch/types.h>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "mirror/strategy/device.h"
#include "mirror/strategy/gpu.h"

namespace mirror {

class GpuMemoryCaps;

// Marks one replica's step on its process's step clock: milliseconds since the moment the process
// began the step (its `step_start`, a host steady_clock time). Host clocks for CPU replicas; for
// GPU replicas, whose work is asynchronous, CUDA events relative to a start event recorded when
// the replica begins (placed on the host clock by the host time of that start). Used by the
// replica's own thread only.
class StageTimer {
 public:
  using Clock = std::chrono::steady_clock;
  // The moments after the start, in the order they come (ReplicaMarks' fields).
  enum Mark { kCopied = 0, kForwardDone = 1, kGradientsReady = 2, kReduced = 3, kUpdated = 4 };
  static constexpr int kMarks = 5;
  virtual ~StageTimer() = default;
  // The replica begins its part of the step that its process began at `step_start`.
  virtual void start(Clock::time_point step_start) = 0;
  // `mark` is reached; marks come in order, and one may be left out (an evaluation has no
  // all-reduce or update): it then reads as the one before it.
  virtual void mark(Mark mark) = 0;
  // The start, then each mark, in milliseconds since `step_start`. Waits for the device's queued work.
  virtual std::array<double, kMarks + 1> marks_ms() = 0;
};

class ReplicaDevice {
 public:
  // The implementation for `device`'s kind. `all` are the run's replica devices in this process
  // (a GPU's logical devices share its memory). Has no effect on the device: nothing starts
  // until open().
  static std::unique_ptr<ReplicaDevice> for_replica(const LogicalDevice& device,
                                                    const std::vector<LogicalDevice>& all);
  virtual ~ReplicaDevice() = default;
  ReplicaDevice(const ReplicaDevice&) = delete;
  ReplicaDevice& operator=(const ReplicaDevice&) = delete;

  const LogicalDevice& logical() const { return logical_; }
  const torch::Device& torch_device() const { return torch_device_; }

  // Before any replica is built (trainer thread).
  // Why this build or machine cannot train on the device, in one line; empty when it can.
  virtual std::string unusable() const = 0;
  // Why the device cannot compute in bfloat16 at a useful speed (mixed-bf16), empty when it can.
  virtual std::string bf16_unsupported() const = 0;
  // Deterministic algorithms only on this device (process-wide settings; idempotent).
  virtual void make_deterministic() const = 0;
  // True when the replica's memory is this machine's, shared with the other such replicas (CPU);
  // else it has own_memory_mib() of its own (0: unknown).
  virtual bool shares_host_memory() const = 0;
  virtual int64_t own_memory_mib() const = 0;
  // Adds the device's --memory-limit to its card's cap (GPU); nothing for the CPU.
  virtual void add_memory_cap(GpuMemoryCaps& caps) const = 0;
  // When `e` is this device's out-of-memory error, throws RunError naming the logical device and
  // its limit; otherwise returns (the caller rethrows `e`).
  virtual void throw_if_out_of_memory(const std::exception& e) const = 0;

  // Once the replica's model is on the device: starts what its thread will use (a GPU replica's
  // stream and event timer). Call once.
  virtual void open() = 0;

  // During a step, on the replica's thread.
  // While the returned scope lives, this thread's LibTorch work goes to the replica's stream.
  virtual StreamScope use_on_this_thread() const = 0;
  // `host_part` (a part of a host tensor) on the device: a plain copy for the CPU; through pinned
  // memory and asynchronously on the replica's stream for a GPU.
  virtual torch::Tensor copy_in(const torch::Tensor& host_part) const = 0;
  virtual StageTimer& timer() = 0;
  // Peak memory of the replica's card so far, divided among the replicas on that card; 0 on the CPU.
  virtual double peak_memory_mib() const = 0;

  // Between steps, on the trainer thread: blocks until work queued on the device by any stream
  // has finished (after the trainer thread wrote weights that the replica's stream will read).
  virtual void synchronize() const = 0;

 protected:
  ReplicaDevice(const LogicalDevice& logical, const torch::Device& device)
      : logical_(logical), torch_device_(device) {}

 private:
  LogicalDevice logical_;
  torch::Device torch_device_;
};

}  // namespace mirror
