#pragma once
// One writer per run folder. Whoever writes a run (a fresh run, a resume, rank 0 of several
// processes, the window) holds an exclusive lock on the folder's .writer.lock for as long as it
// writes; the kernel releases it when the process ends, however it ends, so kill -9 leaves no
// stale lock. Readers (runs list, the window's follower, export, predict, trace) never take it
// and never wait for it.

#include <string>

namespace mirror {

// The lock file in a run folder.
inline constexpr const char* kRunLockFile = ".writer.lock";

class RunLock {
 public:
  // Takes the lock on the run in `dir` (which must exist), at once or not at all: throws RunError
  // naming the process that holds it ("DIR is being written by process 1234 on host h; ...")
  // when another writer, in this process or another, has it; ConfigError when the lock file
  // cannot be made (a read-only folder). The lock file then names this process.
  explicit RunLock(const std::string& dir);
  ~RunLock();
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace mirror
