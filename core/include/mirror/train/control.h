#pragma once
// How another thread steers a run: atomic flags, polled between steps. No torch.

#include <atomic>
#include <cstdint>

namespace mirror {

// Flags another thread sets to steer a run; all are polled between steps.
struct TrainControl {
  std::atomic<bool> stop{false};   // finish the current step, then end the run as stopped
  std::atomic<bool> pause{false};  // hold between steps until cleared (or stop is set)
  // Step by step: while paused, the trainer takes one more step for each unit here (taking the
  // unit), then holds again. Add one to advance a paused run by exactly one step.
  std::atomic<int64_t> single_steps{0};
  // Set by the trainer while it holds between steps for a pause (the step in flight has landed).
  std::atomic<bool> holding{false};
  // A demo pace: steps start at most this many times a second, so a class can watch a small
  // model learn; 0: full speed. Changes take effect at the next step. The numbers do not change.
  std::atomic<double> pace{0};
};

}  // namespace mirror
