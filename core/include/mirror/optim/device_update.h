#pragma once
// An optimizer's update in the form a CUDA graph can capture: the step-dependent numbers (rate,
// bias corrections, Nadam's schedule) live in a small buffer on the parameters' device, which the
// fused update reads when it runs, so one captured update serves every later step. Runs the same
// way on the CPU, where tests check it against the optimizer's own step().

#include <torch/types.h>

#include "mirror/optim/optimizer.h"

namespace mirror {

class DeviceUpdate {
 public:
  // Updates `params` from `grads` (contiguous float32 buffers of one size on one device, as the
  // replicas' flat buffers are) with `optimizer`'s formula and slots. All three must outlive it.
  // On a GPU the host side of the numbers is pinned memory. Throws std::invalid_argument when the
  // buffers do not fit.
  DeviceUpdate(Optimizer& optimizer, torch::Tensor params, torch::Tensor grads);

  // Host, between steps: advances the optimizer one step (its step count, its schedule) and
  // writes the step's numbers where enqueue()'s copy reads them. On a GPU, call it only once the
  // previous step's copy has run (the mirrored step waits for its device at the end of a step).
  void prepare();
  // Enqueues, on the current stream of the parameters' device: the copy of the numbers to the
  // device, then the fused update reading them there. This is what a CUDA graph captures; replay
  // it (or call enqueue() again) after each prepare(). On the CPU it runs at once.
  void enqueue();

  // The numbers the next enqueue() applies (8 float32 on the parameters' device).
  const torch::Tensor& device_values() const { return device_; }

 private:
  Optimizer& optimizer_;
  torch::Tensor params_, grads_;
  torch::Tensor host_;    // the step's numbers as the host wrote them (pinned for a GPU)
  torch::Tensor device_;  // where the update reads them
  int32_t kind_ = -1;     // the optimizer's formula, fixed by its configuration
};

}  // namespace mirror
