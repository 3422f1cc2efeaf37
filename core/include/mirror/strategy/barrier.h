#pragma once
// A reusable barrier for a fixed group of threads that can be aborted, so that one failing
// replica never leaves the others waiting forever.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace mirror {

class AbortableBarrier {
 public:
  explicit AbortableBarrier(int parties);

  // Blocks until all parties have arrived in this phase. Throws CollectiveAborted if the barrier
  // was aborted before or while waiting. Thread-safe.
  void arrive_and_wait();
  // Wakes every waiter with CollectiveAborted; later arrivals throw too, until reset(). Thread-safe.
  void abort(const std::string& reason);
  // Makes an aborted barrier usable again. Call only while no thread is waiting.
  void reset();
  int parties() const { return parties_; }

 private:
  const int parties_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;         // GUARDED_BY(mutex_)
  uint64_t generation_ = 0; // GUARDED_BY(mutex_)
  bool aborted_ = false;    // GUARDED_BY(mutex_)
  std::string reason_;      // GUARDED_BY(mutex_)
};

}  // namespace mirror
