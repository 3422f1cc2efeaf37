#pragma once
// Whether a model's replicas fit their devices' memory, caps on the GPUs' allocators, and an
// out-of-memory error as one line a person can act on. Private to the strategy floor.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mirror/model/shape.h"
#include "mirror/strategy/device.h"

namespace mirror {

class ReplicaDevice;

// Before anything is allocated: every replica holds the weights and their gradients, so a model
// whose copies cannot fit is a ConfigError naming the largest layer, not an allocation failure
// deep inside LibTorch.
void check_model_fits(const ModelAnalysis& model, const std::vector<std::unique_ptr<ReplicaDevice>>& devices);

// LibTorch's caching allocator is per physical GPU, so the logical devices of one card share one
// cap: the sum of their --memory-limit. Filled by the replicas' devices, then applied once.
class GpuMemoryCaps {
 public:
  // A logical device of GPU `gpu` (of `card_mib`) with its limit (0: no limit, it may use the card).
  void add(int gpu, int64_t limit_mib, int64_t card_mib);
  // Caps every GPU added (a card without limits gets all of its memory back: an earlier run in
  // this process may have capped it) and resets its peak. Throws ConfigError when a card's
  // logical devices ask for more than it has.
  void apply() const;

 private:
  struct Cap {
    int64_t limit_mib = 0;  // summed limits; -1: some logical device has none
    int64_t card_mib = 0;
  };
  std::map<int, Cap> caps_;  // by GPU index
};

// Throws RunError: logical device `device` ran out of memory, needing `needed` more ("2.00 GiB").
[[noreturn]] void throw_out_of_memory(const LogicalDevice& device, const std::string& needed);

}  // namespace mirror
