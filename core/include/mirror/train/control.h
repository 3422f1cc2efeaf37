#pragma once
// How another thread steers a run: atomic flags, polled between steps. No torch.

#include <atomic>

namespace mirror {

// Flags another thread sets to steer a run; both are polled between steps.
struct TrainControl {
  std::atomic<bool> stop{false};   // finish the current step, then end the run as stopped
  std::atomic<bool> pause{false};  // hold between steps until cleared (or stop is set)
  // Set by the trainer while it holds between steps for a pause (the step in flight has landed).
  std::atomic<bool> holding{false};
};

}  // namespace mirror
