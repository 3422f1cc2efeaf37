#pragma once
// Error types shared by the whole engine. Every error carries a message a person can act on:
// what was wrong, and what to do about it.

#include <stdexcept>
#include <string>

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
class SyncError : public RunError {
 public:
  using RunError::RunError;
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
