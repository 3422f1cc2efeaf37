// Tested by tests/core/strategy/test_gpu.cpp.
#include "memory_fit.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "mirror/strategy/gpu.h"
#include "mirror/util/error.h"
#include "mirror/util/words.h"
#include "replica_device.h"

namespace mirror {

namespace {
std::string bytes_in_words(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} bytes", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}
}  // namespace

void check_model_fits(const ModelAnalysis& model, const std::vector<std::unique_ptr<ReplicaDevice>>& devices) {
  const auto largest = std::max_element(model.layers.begin(), model.layers.end(),
                                        [](const LayerReport& a, const LayerReport& b) { return a.params < b.params; });
  // 4 bytes for each weight and 4 for its gradient; the optimizer's slots and the activations
  // come on top.
  const double per_replica = 8.0 * static_cast<double>(model.total_params);
  auto too_big = [&](const std::string& where, double need, double have) {
    return ConfigError(fmt::format(
        "the model needs at least {} for its weights and gradients on {}, which has {}: its {} parameters are "
        "mostly in layer {} ({}, {} parameters). Use fewer units or filters, or fewer replicas",
        bytes_in_words(need), where, bytes_in_words(have), model.total_params,
        largest == model.layers.end() ? std::string("?") : largest->name,
        largest == model.layers.end() ? std::string("?") : largest->type,
        largest == model.layers.end() ? int64_t{0} : largest->params));
  };
  // Replicas that share this machine's memory (CPU replicas) fit together or not at all.
  const auto sharing = std::count_if(devices.begin(), devices.end(), [](const auto& d) { return d->shares_host_memory(); });
  const double ram = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (sharing > 0 && ram > 0 && per_replica * static_cast<double>(sharing) > ram)
    throw too_big(fmt::format("{} in this machine's memory", counted(sharing, "CPU replica")),
                  per_replica * static_cast<double>(sharing), ram);
  // The others (a GPU's logical devices) each within their own memory.
  for (const auto& d : devices) {
    if (d->shares_host_memory()) continue;
    const int64_t mib = d->own_memory_mib();
    if (mib > 0 && per_replica > static_cast<double>(mib) * (1 << 20))
      throw too_big("logical device " + d->logical().name(), per_replica, static_cast<double>(mib) * (1 << 20));
  }
}

void GpuMemoryCaps::add(int gpu, int64_t limit_mib, int64_t card_mib) {
  Cap& cap = caps_[gpu];
  cap.card_mib = card_mib;
  // A logical device without a limit may use the whole card.
  cap.limit_mib = (cap.limit_mib < 0 || limit_mib <= 0) ? -1 : cap.limit_mib + limit_mib;
}

void GpuMemoryCaps::apply() const {
  for (const auto& [gpu, cap] : caps_) {
    const int64_t limit = cap.limit_mib < 0 ? cap.card_mib : cap.limit_mib;
    if (cap.card_mib > 0 && limit > cap.card_mib)
      throw ConfigError(fmt::format("--memory-limit: the logical devices of cuda:{} ask for {} MiB together, but it "
                                    "has {} MiB",
                                    gpu, limit, cap.card_mib));
    limit_device_memory(gpu, limit, cap.card_mib);  // starts CUDA on the card too
  }
  for (const auto& [gpu, cap] : caps_) reset_peak_device_memory(gpu);
}

void throw_out_of_memory(const LogicalDevice& d, const std::string& needed) {
  const std::string limit = d.memory_limit_mib > 0
                                ? fmt::format("its limit is {} MiB (--memory-limit)", d.memory_limit_mib)
                                : fmt::format("{} has {} MiB", d.physical.name, d.physical.memory_mib);
  throw RunError(fmt::format("logical device {} ran out of memory: it needed {} more and {}. Use a smaller batch, "
                             "fewer logical devices per GPU or a larger --memory-limit",
                             d.name(), needed, limit));
}

}  // namespace mirror
