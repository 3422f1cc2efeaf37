#include "mirror/strategy/device.h"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <set>
#include <sstream>

#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/gpu.h"
#include "mirror/util/error.h"
#include "mirror/util/threads.h"

namespace mirror {

std::string LogicalDevice::name() const {
  if (logical_per_physical <= 1) return physical.name;
  return fmt::format("{}/logical:{}", physical.name, logical_index);
}

std::vector<PhysicalDevice> list_physical_devices() {
  std::vector<PhysicalDevice> out;
  PhysicalDevice cpu;
  cpu.type = DeviceType::kCpu;
  cpu.name = "cpu:0";
  cpu.cores = usable_cores();
  utsname u{};
  const std::string arch = uname(&u) == 0 ? u.machine : "cpu";
  cpu.model = fmt::format("{}, {} cores", arch, cpu.cores);
  out.push_back(cpu);
  if (!cuda_training_available()) return out;  // cuda_report().unavailable says why
  for (const auto& gpu : cuda_report().gpus) {
    PhysicalDevice g;
    g.type = DeviceType::kCuda;
    g.index = gpu.index;
    g.name = fmt::format("cuda:{}", gpu.index);
    g.model = fmt::format("{}, {} MiB, compute capability {}.{}", gpu.name, gpu.memory_mib, gpu.compute_major,
                          gpu.compute_minor);
    g.memory_mib = gpu.memory_mib;
    out.push_back(g);
  }
  return out;
}

std::string describe_devices(const std::vector<PhysicalDevice>& devices) {
  std::string out;
  for (const auto& d : devices)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", d.name, d.model);
  return out;
}

std::vector<LogicalDevice> resolve_devices(const DeviceRequest& request,
                                           const std::vector<PhysicalDevice>& available) {
  const std::string avail = describe_devices(available);
  if (request.logical < 1 || request.logical > 64)
    throw ConfigError(fmt::format("--logical must be in [1, 64], got {}", request.logical));
  if (request.memory_limit_mib < 0)
    throw ConfigError(fmt::format("--memory-limit must be >= 0 MiB, got {}", request.memory_limit_mib));

  std::vector<const PhysicalDevice*> chosen;
  const std::string& spec = request.devices;
  auto find = [&](DeviceType type, int index) -> const PhysicalDevice* {
    for (const auto& d : available)
      if (d.type == type && d.index == index) return &d;
    return nullptr;
  };
  if (spec == "cpu" || spec == "cpu:0") {
    chosen.push_back(find(DeviceType::kCpu, 0));
  } else if (spec == "cuda") {
    for (const auto& d : available)
      if (d.type == DeviceType::kCuda) chosen.push_back(&d);
    if (chosen.empty())
      throw ConfigError(fmt::format("--devices cuda: no CUDA GPU is available to this build ({}); available: {}",
                                    cuda_report().unavailable, avail));
  } else if (spec.rfind("cuda:", 0) == 0) {
    std::stringstream list(spec.substr(5));
    std::string item;
    std::set<int> seen;
    while (std::getline(list, item, ',')) {
      int index = -1;
      try {
        size_t used = 0;
        index = std::stoi(item, &used);
        if (used != item.size()) index = -1;
      } catch (const std::exception&) {
        index = -1;
      }
      if (index < 0) throw ConfigError(fmt::format("--devices {}: '{}' is not a GPU index", spec, item));
      if (!seen.insert(index).second)
        throw ConfigError(fmt::format("--devices {}: GPU {} is listed twice (use --logical to split a GPU)", spec, index));
      const auto* d = find(DeviceType::kCuda, index);
      if (!d) {
        const std::string why = cuda_report().usable() ? "" : " (" + cuda_report().unavailable + ")";
        throw ConfigError(fmt::format("--devices {}: there is no cuda:{}{}; available: {}", spec, index, why, avail));
      }
      chosen.push_back(d);
    }
    if (chosen.empty()) throw ConfigError(fmt::format("--devices {}: no GPU index given", spec));
  } else {
    throw ConfigError(fmt::format("--devices '{}' is not understood (use cpu, cuda or cuda:0,1); available: {}",
                                  spec, avail));
  }
  std::vector<LogicalDevice> out;
  for (const auto* p : chosen) {
    for (int l = 0; l < request.logical; ++l) {
      LogicalDevice d;
      d.physical = *p;
      d.logical_index = l;
      d.logical_per_physical = request.logical;
      d.memory_limit_mib = request.memory_limit_mib;
      out.push_back(d);
    }
  }
  return out;
}

}  // namespace mirror
