// Tested by tests/core/strategy/test_mirrored.cpp and tests/core/strategy/test_gpu.cpp.
#include "replica_device.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "memory_fit.h"
#include "mirror/model/precision.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/phase_names.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {

double ms_between(StageTimer::Clock::time_point from, StageTimer::Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// Host clocks: a CPU replica's work is done when the call returns.
class HostStageTimer : public StageTimer {
 public:
  void start(Clock::time_point step_start) override {
    step_start_ = step_start;
    ms_.fill(ms_between(step_start_, Clock::now()));
    next_ = 0;
  }
  void mark(Mark mark) override {
    const double now = ms_between(step_start_, Clock::now());
    for (; next_ <= mark; ++next_) ms_[static_cast<size_t>(next_) + 1] = now;  // a mark left out: no time
  }
  std::array<double, kMarks + 1> marks_ms() override {
    for (; next_ < kMarks; ++next_) ms_[static_cast<size_t>(next_) + 1] = ms_[static_cast<size_t>(next_)];
    return ms_;
  }

 private:
  Clock::time_point step_start_;
  std::array<double, kMarks + 1> ms_{};
  int next_ = 0;  // the next mark to come
};

// CUDA events on the replica's stream: event 0 when the replica starts, event m + 1 at mark m.
// The start event is placed on the process's clock by the host time at which it was recorded (the
// stream is idle then: the previous step's results were read back).
class CudaStageTimer : public StageTimer {
 public:
  CudaStageTimer(int device, void* stream) : events_(device, stream, /*marks=*/kMarks + 1) {}
  void start(Clock::time_point step_start) override {
    events_.mark(0);
    started_ms_ = ms_between(step_start, Clock::now());
    next_ = 0;
    reached_ = 0;
    range_.reset();
    range_.emplace(kPhaseCopy);
  }
  void mark(Mark mark) override {
    // A mark left out is recorded with the next one reached, so it takes no time.
    for (; next_ <= mark; ++next_) events_.mark(next_ + 1);
    reached_ = next_;
    // Nsight Systems sees the host side of each phase under the trace export's names.
    range_.reset();
    if (const char* phase = phase_after(mark)) range_.emplace(phase);
  }
  std::array<double, kMarks + 1> marks_ms() override {
    while (next_ < kMarks) events_.mark(++next_);  // every event must be recorded to be timed
    const auto gaps = events_.elapsed_ms();
    std::array<double, kMarks + 1> out{};
    out[0] = started_ms_;
    for (size_t i = 1; i < out.size(); ++i) {
      const bool timed = static_cast<int>(i) <= reached_ && i - 1 < gaps.size();
      out[i] = out[i - 1] + (timed ? gaps[i - 1] : 0.0);  // marks never reached: no time
    }
    return out;
  }

 private:
  // The phase that begins when `mark` is reached; none after the update.
  static const char* phase_after(Mark mark) {
    switch (mark) {
      case kCopied: return kPhaseForward;
      case kForwardDone: return kPhaseBackward;
      case kGradientsReady: return kPhaseAllReduce;
      case kReduced: return kPhaseUpdate;
      case kUpdated: return nullptr;
    }
    return nullptr;
  }

  GpuEventTimer events_;
  std::optional<PhaseRange> range_;  // NVTX range of the phase under way (GPU builds with NVTX)
  double started_ms_ = 0;
  int next_ = 0;     // marks recorded so far
  int reached_ = 0;  // of them, reached by the replica (the rest were recorded to be timed)
};

class CpuReplicaDevice : public ReplicaDevice {
 public:
  explicit CpuReplicaDevice(const LogicalDevice& d) : ReplicaDevice(d, torch::Device(torch::kCPU)) {}

  std::string unusable() const override { return {}; }
  std::string bf16_unsupported() const override { return cpu_bf16_unsupported(); }
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
  std::string bf16_unsupported() const override {
    for (const GpuInfo& g : cuda_report().gpus)
      if (g.index == gpu()) return gpu_bf16_unsupported(g.name, g.compute_major, g.compute_minor);
    return {};
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
