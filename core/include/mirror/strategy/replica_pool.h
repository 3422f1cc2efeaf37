#pragma once
// Long-lived worker threads, one per replica, woken once per step.

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mirror {

class ReplicaPool {
 public:
  // Starts `replicas` threads. Each runs `thread_init(rank)` once (e.g. to set its thread budget)
  // before taking work.
  ReplicaPool(int replicas, std::function<void(int)> thread_init);
  // Joins every thread. Must not be called while run() is in progress on another thread.
  ~ReplicaPool();
  ReplicaPool(const ReplicaPool&) = delete;
  ReplicaPool& operator=(const ReplicaPool&) = delete;

  // Runs job(rank) on every replica thread and blocks until all have returned. If any job
  // throws, `on_failure(rank)` is called on that thread at once (to abort collectives others
  // may be blocked in), and after all jobs end the most relevant exception is rethrown: the
  // first that is not CollectiveAborted, else the first. Not re-entrant: one caller at a time.
  void run(const std::function<void(int)>& job, const std::function<void(int)>& on_failure = {});

  int size() const { return static_cast<int>(threads_.size()); }

 private:
  void loop(int rank, const std::function<void(int)>& thread_init);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int)>* job_ = nullptr;        // GUARDED_BY(mutex_)
  const std::function<void(int)>* on_failure_ = nullptr; // GUARDED_BY(mutex_)
  uint64_t generation_ = 0;                              // GUARDED_BY(mutex_)
  int remaining_ = 0;                                    // GUARDED_BY(mutex_)
  bool shutdown_ = false;                                // GUARDED_BY(mutex_)
  std::vector<std::exception_ptr> errors_;               // GUARDED_BY(mutex_), one slot per rank
  std::vector<std::thread> threads_;
};

}  // namespace mirror
