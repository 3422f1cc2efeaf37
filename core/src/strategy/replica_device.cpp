#include "replica_device.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "memory_fit.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {

// Host clocks: a CPU replica's work is done when the call returns.
class HostStageTimer : public StageTimer {
 public:
  void start() override {
    ms_ = {0, 0, 0};
    since_ = std::chrono::steady_clock::now();
  }
  void lap(Stage stage) override {
    const auto now = std::chrono::steady_clock::now();
    ms_[stage] = std::chrono::duration<double, std::milli>(now - since_).count();
    since_ = std::chrono::steady_clock::now();
  }
  std::array<double, 3> stages_ms() override { return ms_; }

 private:
  std::array<double, 3> ms_{};
  std::chrono::steady_clock::time_point since_;
};

// CUDA events on the replica's stream: mark 0 when the step starts, mark s + 1 when stage s ends.
class CudaStageTimer : public StageTimer {
 public:
  CudaStageTimer(int device, void* stream) : events_(device, stream, /*marks=*/4) {}
  void start() override {
    events_.mark(0);
    next_mark_ = 1;
  }
  void lap(Stage stage) override {
    events_.mark(stage + 1);
    next_mark_ = stage + 2;
  }
  std::array<double, 3> stages_ms() override {
    while (next_mark_ <= 3) events_.mark(next_mark_++);  // stages that did not run: no time
    const auto ms = events_.elapsed_ms();
    std::array<double, 3> out{};
    std::copy_n(ms.begin(), std::min<size_t>(ms.size(), out.size()), out.begin());
    return out;
  }

 private:
  GpuEventTimer events_;
  int next_mark_ = 1;
};

class CpuReplicaDevice : public ReplicaDevice {
 public:
  explicit CpuReplicaDevice(const LogicalDevice& d) : ReplicaDevice(d, torch::Device(torch::kCPU)) {}

  std::string unusable() const override { return {}; }
  void make_deterministic() const override {}
  bool shares_host_memory() const override { return true; }
  int64_t own_memory_mib() const override { return 0; }
  void add_memory_cap(GpuMemoryCaps&) const override {}  // CPU replicas share the machine's memory, uncapped
  void throw_if_out_of_memory(const std::exception&) const override {}
  void open() override {}
  StreamScope use_on_this_thread() const override { return StreamScope(ReplicaStream()); }
  torch::Tensor copy_in(const torch::Tensor& host_part) const override { return host_part.to(torch_device()); }
  StageTimer& timer() override { return timer_; }
  double peak_memory_mib() const override { return 0; }
  void synchronize() const override {}

 private:
  HostStageTimer timer_;
};

// A logical device of a CUDA GPU. Goes through gpu.h and cuda_runtime.h only, so it compiles in
// every build; in a build without CUDA, unusable() says why and the run stops before open().
class CudaReplicaDevice : public ReplicaDevice {
 public:
  CudaReplicaDevice(const LogicalDevice& d, int sharing_card)
      : ReplicaDevice(d, torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(d.physical.index))),
        sharing_card_(sharing_card) {}

  std::string unusable() const override {
    return cuda_training_available() ? std::string() : cuda_report().unavailable;
  }
  void make_deterministic() const override { make_cuda_deterministic(); }
  bool shares_host_memory() const override { return false; }
  int64_t own_memory_mib() const override {
    const LogicalDevice& d = logical();
    return d.memory_limit_mib > 0 ? d.memory_limit_mib : d.physical.memory_mib / d.logical_per_physical;
  }
  void add_memory_cap(GpuMemoryCaps& caps) const override {
    caps.add(logical().physical.index, logical().memory_limit_mib, logical().physical.memory_mib);
  }
  void throw_if_out_of_memory(const std::exception& e) const override {
    if (const std::string needed = cuda_out_of_memory(e); !needed.empty()) throw_out_of_memory(logical(), needed);
  }
  void open() override {
    stream_ = ReplicaStream::for_device(gpu());
    timer_ = std::make_unique<CudaStageTimer>(gpu(), stream_.handle());
  }
  StreamScope use_on_this_thread() const override { return StreamScope(stream_); }
  torch::Tensor copy_in(const torch::Tensor& host_part) const override {
    return host_part.pin_memory().to(torch_device(), /*non_blocking=*/true);
  }
  StageTimer& timer() override { return *timer_; }
  double peak_memory_mib() const override { return peak_device_memory_mib(gpu()) / sharing_card_; }
  void synchronize() const override { synchronize_device(torch_device()); }

 private:
  int gpu() const { return logical().physical.index; }

  int sharing_card_;  // replicas on this GPU
  ReplicaStream stream_;
  std::unique_ptr<CudaStageTimer> timer_;
};

}  // namespace

std::unique_ptr<ReplicaDevice> ReplicaDevice::for_replica(const LogicalDevice& device,
                                                          const std::vector<LogicalDevice>& all) {
  switch (device.physical.type) {
    case DeviceType::kCpu:
      return std::make_unique<CpuReplicaDevice>(device);
    case DeviceType::kCuda: {
      const auto sharing = std::count_if(all.begin(), all.end(), [&](const LogicalDevice& d) {
        return d.physical.type == device.physical.type && d.physical.index == device.physical.index;
      });
      return std::make_unique<CudaReplicaDevice>(device, static_cast<int>(sharing));
    }
  }
  throw std::logic_error("unknown device type");
}

}  // namespace mirror
