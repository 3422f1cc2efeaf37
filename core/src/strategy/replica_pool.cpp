// Tested by tests/core/strategy/test_mirrored.cpp.
#include "mirror/strategy/replica_pool.h"

#include "mirror/util/error.h"

namespace mirror {

ReplicaPool::ReplicaPool(int replicas, std::function<void(int)> thread_init) {
  errors_.resize(static_cast<size_t>(replicas));
  threads_.reserve(static_cast<size_t>(replicas));
  for (int r = 0; r < replicas; ++r)
    threads_.emplace_back([this, r, init = thread_init] { loop(r, init); });
}

ReplicaPool::~ReplicaPool() {
  {
    std::lock_guard lock(mutex_);
    shutdown_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ReplicaPool::loop(int rank, const std::function<void(int)>& thread_init) {
  if (thread_init) thread_init(rank);
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job;
    const std::function<void(int)>* on_failure;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return shutdown_ || generation_ != seen; });
      if (shutdown_) return;
      seen = generation_;
      job = job_;
      on_failure = on_failure_;
    }
    std::exception_ptr error;
    try {
      (*job)(rank);
    } catch (...) {
      error = std::current_exception();
      if (on_failure && *on_failure) {
        try {
          (*on_failure)(rank);
        } catch (...) {
        }
      }
    }
    std::lock_guard lock(mutex_);
    // Moved, not copied: this thread keeps no reference to the exception once the step is over,
    // so the caller's thread is the one that frees it (ThreadSanitizer cannot see the exception's
    // reference count, which lives in the uninstrumented C++ runtime).
    errors_[static_cast<size_t>(rank)] = std::move(error);
    if (--remaining_ == 0) done_.notify_one();
  }
}

void ReplicaPool::run(const std::function<void(int)>& job, const std::function<void(int)>& on_failure) {
  std::unique_lock lock(mutex_);
  for (auto& e : errors_) e = nullptr;
  job_ = &job;
  on_failure_ = &on_failure;
  remaining_ = size();
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [&] { return remaining_ == 0; });
  job_ = nullptr;
  on_failure_ = nullptr;
  // Prefer the error that caused an abort over the aborts it caused.
  std::exception_ptr first, root;
  for (const auto& e : errors_) {
    if (!e) continue;
    if (!first) first = e;
    if (!root) {
      try {
        std::rethrow_exception(e);
      } catch (const CollectiveAborted&) {
      } catch (...) {
        root = e;
      }
    }
  }
  if (root) std::rethrow_exception(root);
  if (first) std::rethrow_exception(first);
}

}  // namespace mirror
