#pragma once
// Physical devices found on this machine, and the logical devices (replicas) a run trains on.

#include <cstdint>
#include <string>
#include <vector>

namespace mirror {

enum class DeviceType { kCpu, kCuda };

struct PhysicalDevice {
  DeviceType type = DeviceType::kCpu;
  int index = 0;
  std::string name;        // "cpu:0", "cuda:1"
  std::string model;       // "x86_64, 2 cores" or the GPU's name
  int cores = 0;           // CPU only
  int64_t memory_mib = 0;  // GPU memory; 0 when unknown
};

// One replica's device: a physical device, or a slice of one.
struct LogicalDevice {
  PhysicalDevice physical;
  int logical_index = 0;         // 0..logical_per_physical-1
  int logical_per_physical = 1;
  int64_t memory_limit_mib = 0;  // recorded for every device; enforced on CUDA devices only
  // "cpu:0" when not split, "cpu:0/logical:1" when split.
  std::string name() const;
};

// What a person asked for: "--devices cpu|cuda|cuda:0,1 --logical N --memory-limit MIB".
struct DeviceRequest {
  std::string devices = "cpu";
  int logical = 1;
  int64_t memory_limit_mib = 0;
};

// The devices this process can use: always the CPU, plus every CUDA GPU when LibTorch was built
// with CUDA. Thread-safe.
std::vector<PhysicalDevice> list_physical_devices();

// Turns a request into the replica list, in order (physical device major, logical minor).
// Throws ConfigError with the list of available devices when the request cannot be satisfied
// (unknown syntax, a GPU that does not exist, logical count outside [1, 64], ...).
std::vector<LogicalDevice> resolve_devices(const DeviceRequest& request,
                                           const std::vector<PhysicalDevice>& available);

// "cpu:0 (x86_64, 2 cores), ..." for error messages and the `devices` command.
std::string describe_devices(const std::vector<PhysicalDevice>& devices);

}  // namespace mirror
