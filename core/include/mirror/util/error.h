#pragma once
// Error types shared by the whole engine. Every error carries a message a person can act on:
// what was wrong, and what to do about it.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mirror {

// The user asked for something impossible or malformed: a bad hyperparameter, an unknown preset,
// a model whose shapes do not fit. Raised before any training starts. The CLI maps it to exit 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A data file is missing, truncated or malformed. Raised while loading. The CLI maps it to exit 2.
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run failed while training: NaN loss, a failed replica, an aborted collective.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Replicas that must hold bit-identical parameters do not. Always a bug or memory corruption.
// The sync check's error carries what it found: the step after which it ran and every replica's
// parameter checksum then, so that a view can show the failing check and not the last passing one.
class SyncError : public RunError {
 public:
  using RunError::RunError;
  SyncError(const std::string& message, int64_t step, std::vector<uint64_t> checksums)
      : RunError(message), step_(step), checksums_(std::move(checksums)) {}
  // The step after which the check failed (0: not known).
  int64_t step() const { return step_; }
  // Each replica's parameter checksum at that check, over all processes in replica order (another
  // process's replicas carry the checksum that process agreed on); empty when not known.
  const std::vector<uint64_t>& checksums() const { return checksums_; }
  // The replicas whose checksum differs from replica 0's, in order.
  std::vector<int> differing_replicas() const {
    std::vector<int> out;
    for (size_t r = 1; r < checksums_.size(); ++r)
      if (checksums_[r] != checksums_[0]) out.push_back(static_cast<int>(r));
    return out;
  }

 private:
  int64_t step_ = 0;
  std::vector<uint64_t> checksums_;
};

// Thrown out of a collective that another replica aborted; the original failure is reported
// by the replica that aborted, so callers prefer that one when several replicas fail.
class CollectiveAborted : public RunError {
 public:
  using RunError::RunError;
};

// For a write to `path` that failed: " (the disk holding DIR is full: N KiB free)" when the disk
// is full or nearly so, else empty. Appended to messages that say a file could not be written.
std::string disk_full_hint(const std::string& path);

// The message of `e` without the C++ stack trace LibTorch appends to its own errors.
std::string describe_exception(const std::exception& e);

}  // namespace mirror
