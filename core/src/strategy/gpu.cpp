#include "mirror/strategy/gpu.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <cstdlib>

#include "mirror/strategy/cuda_runtime.h"
#include "mirror/util/error.h"

#ifdef MIRROR_HAVE_CUDA_TORCH
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include <optional>
#endif

namespace mirror {

std::string cuda_out_of_memory(const std::exception& e) {
  // The caching allocator's message (1.13 and 2.x): "CUDA out of memory. Tried to allocate 2.00 GiB ...".
  const std::string what = e.what();
  if (what.find("CUDA out of memory") == std::string::npos) return {};
  const std::string key = "Tried to allocate ";
  const auto at = what.find(key);
  if (at == std::string::npos) return "more memory";
  const auto begin = at + key.size();
  const auto end = what.find_first_of(".(", what.find(' ', begin) + 1);
  std::string amount = what.substr(begin, (end == std::string::npos ? what.size() : end) - begin);
  while (!amount.empty() && amount.back() == ' ') amount.pop_back();
  return amount;
}

void make_cuda_deterministic() { setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0); }

#ifdef MIRROR_HAVE_CUDA_TORCH

struct ReplicaStream::Impl {
  c10::cuda::CUDAStream stream;
};

struct StreamScope::Guard {
  explicit Guard(const c10::cuda::CUDAStream& stream) : guard(stream) {}
  c10::cuda::CUDAStreamGuard guard;
};

bool cuda_training_available() { return cuda_report().usable() && torch::cuda::is_available(); }

ReplicaStream ReplicaStream::for_device(int device) {
  ReplicaStream s;
  s.impl_ = std::make_shared<Impl>(Impl{c10::cuda::getStreamFromPool(false, static_cast<c10::DeviceIndex>(device))});
  return s;
}

int ReplicaStream::device() const { return impl_ ? static_cast<int>(impl_->stream.device_index()) : -1; }
void* ReplicaStream::handle() const { return impl_ ? static_cast<void*>(impl_->stream.stream()) : nullptr; }
void ReplicaStream::synchronize() const {
  if (impl_) impl_->stream.synchronize();
}

StreamScope::StreamScope(const ReplicaStream& stream) {
  if (stream.impl_) guard_ = std::make_unique<Guard>(stream.impl_->stream);
}
StreamScope::~StreamScope() = default;

void synchronize_stream_of(const torch::Tensor& t) {
  if (t.defined() && t.is_cuda()) c10::cuda::getCurrentCUDAStream(t.device().index()).synchronize();
}

void synchronize_device(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

void* current_stream_handle(int device) {
  return static_cast<void*>(c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream());
}

namespace {
// LibTorch's allocator answers for a device only once CUDA has started on it.
void start_cuda_on(int device) {
  (void)torch::empty({1}, torch::TensorOptions().device(torch::kCUDA, static_cast<c10::DeviceIndex>(device)));
}
}  // namespace

void limit_device_memory(int device, int64_t limit_mib, int64_t total_mib) {
  if (limit_mib <= 0 || total_mib <= 0) return;
  start_cuda_on(device);
  const auto index = static_cast<c10::DeviceIndex>(device);
  c10::cuda::CUDACachingAllocator::setMemoryFraction(1.0, index);
  c10::cuda::CUDACachingAllocator::emptyCache();
  // What the process already holds (an earlier run's cuBLAS workspaces, say) is not this run's.
  const double held_mib = static_cast<double>(
      c10::cuda::CUDACachingAllocator::getDeviceStats(index).reserved_bytes[0].current) / (1024.0 * 1024.0);
  const double fraction = std::min(1.0, (static_cast<double>(limit_mib) + held_mib) / static_cast<double>(total_mib));
  c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, index);
}

double peak_device_memory_mib(int device) {
  // Index 0 is the aggregate over pool kinds (StatType::AGGREGATE, in 1.13 and 2.x alike).
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  return static_cast<double>(stats.allocated_bytes[0].peak) / (1024.0 * 1024.0);
}

void reset_peak_device_memory(int device) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
}

at::Generator make_dropout_generator(const torch::Device& device, uint64_t seed) {
  if (!device.is_cuda()) return at::make_generator<at::CPUGeneratorImpl>(seed);
  at::Generator g = at::cuda::detail::createCUDAGenerator(device.index());
  std::lock_guard<std::mutex> lock(g.mutex());
  g.set_current_seed(seed);
  return g;
}

#else  // CPU-only LibTorch

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw ConfigError(fmt::format("{}: {}", what, cuda_report().unavailable.empty() ? "this build has no CUDA"
                                                                                 : cuda_report().unavailable));
}
}  // namespace

struct ReplicaStream::Impl {};
struct StreamScope::Guard {};

bool cuda_training_available() { return false; }
ReplicaStream ReplicaStream::for_device(int) { no_cuda("a CUDA stream"); }
int ReplicaStream::device() const { return -1; }
void* ReplicaStream::handle() const { return nullptr; }
void ReplicaStream::synchronize() const {}
StreamScope::StreamScope(const ReplicaStream&) {}
StreamScope::~StreamScope() = default;
void synchronize_stream_of(const torch::Tensor& t) {
  if (t.defined() && t.is_cuda()) no_cuda("a CUDA tensor");
}
void synchronize_device(const torch::Device&) {}
void* current_stream_handle(int) { no_cuda("a CUDA stream"); }
void limit_device_memory(int, int64_t, int64_t) {}
double peak_device_memory_mib(int) { return 0; }
void reset_peak_device_memory(int) {}
at::Generator make_dropout_generator(const torch::Device& device, uint64_t seed) {
  if (device.is_cuda()) no_cuda("a CUDA dropout generator");
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

#endif

}  // namespace mirror
