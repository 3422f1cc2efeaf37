#pragma once
// How a global batch is split across replicas.

#include <cstdint>
#include <vector>

namespace mirror {

// Splits `global_batch` examples into `replicas` contiguous shards whose sizes differ by at most
// one; the first (global_batch % replicas) shards get the extra example. No example is dropped.
// A shard may be empty when global_batch < replicas. Immutable, thread-safe.
class ShardPlan {
 public:
  // Throws std::invalid_argument if replicas < 1 or global_batch < 0.
  ShardPlan(int64_t global_batch, int replicas);

  int64_t global_batch() const { return global_batch_; }
  int replicas() const { return static_cast<int>(sizes_.size()); }
  int64_t size(int replica) const { return sizes_.at(static_cast<size_t>(replica)); }
  int64_t offset(int replica) const { return offsets_.at(static_cast<size_t>(replica)); }
  const std::vector<int64_t>& sizes() const { return sizes_; }

 private:
  int64_t global_batch_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> offsets_;
};

}  // namespace mirror
