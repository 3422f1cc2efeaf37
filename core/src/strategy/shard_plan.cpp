#include "mirror/strategy/shard_plan.h"

#include <fmt/format.h>

#include <stdexcept>

namespace mirror {

ShardPlan::ShardPlan(int64_t global_batch, int replicas) : global_batch_(global_batch) {
  if (replicas < 1) throw std::invalid_argument(fmt::format("ShardPlan: {} replicas", replicas));
  if (global_batch < 0) throw std::invalid_argument(fmt::format("ShardPlan: batch of {}", global_batch));
  const int64_t base = global_batch / replicas;
  const int64_t extra = global_batch % replicas;
  int64_t offset = 0;
  for (int r = 0; r < replicas; ++r) {
    const int64_t size = base + (r < extra ? 1 : 0);
    sizes_.push_back(size);
    offsets_.push_back(offset);
    offset += size;
  }
}

}  // namespace mirror
