// Tested by tests/core/strategy/test_mirrored_processes.cpp (ranks held and woken, aborts).
#include "mirror/strategy/barrier.h"

#include <fmt/format.h>

#include "mirror/util/error.h"

namespace mirror {

AbortableBarrier::AbortableBarrier(int parties) : parties_(parties) {}

void AbortableBarrier::arrive_and_wait() {
  std::unique_lock lock(mutex_);
  if (aborted_) throw CollectiveAborted(fmt::format("collective aborted: {}", reason_));
  const uint64_t gen = generation_;
  if (++arrived_ == parties_) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  cv_.wait(lock, [&] { return generation_ != gen || aborted_; });
  if (generation_ == gen) throw CollectiveAborted(fmt::format("collective aborted: {}", reason_));
}

void AbortableBarrier::abort(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (!aborted_) reason_ = reason;
  aborted_ = true;
  cv_.notify_all();
}

void AbortableBarrier::reset() {
  std::lock_guard lock(mutex_);
  aborted_ = false;
  arrived_ = 0;
  reason_.clear();
}

}  // namespace mirror
