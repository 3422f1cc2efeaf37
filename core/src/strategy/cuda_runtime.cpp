// Tested by tests/core/strategy/test_gpu.cpp (on a GPU; scripts/gpu-check.sh).
#include "mirror/strategy/cuda_runtime.h"

#include <fmt/format.h>

#include "mirror/util/error.h"

#ifdef MIRROR_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif

namespace mirror {

namespace {
#ifdef MIRROR_HAVE_CUDART
std::string version_text(int v) { return v > 0 ? fmt::format("{}.{}", v / 1000, (v % 1000) / 10) : std::string(); }

void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw RunError(fmt::format("CUDA {}: {}", what, cudaGetErrorString(rc)));
}

CudaReport ask_runtime() {
  CudaReport r;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  r.driver_version = version_text(driver);
  r.runtime_version = version_text(runtime);
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc == cudaErrorNoDevice || (rc == cudaSuccess && count == 0)) {
    r.unavailable = "no CUDA GPU found";
    return r;
  }
  if (rc == cudaErrorInsufficientDriver) {
    r.unavailable = driver == 0 ? "no NVIDIA driver is installed or loaded"
                                : fmt::format("the NVIDIA driver (CUDA {}) is older than this build's CUDA runtime ({})",
                                              r.driver_version, r.runtime_version);
    return r;
  }
  if (rc != cudaSuccess) {
    r.unavailable = fmt::format("the CUDA runtime cannot reach a GPU: {}", cudaGetErrorString(rc));
    return r;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    r.gpus.push_back({i, p.name, static_cast<int64_t>(p.totalGlobalMem >> 20), p.major, p.minor, p.multiProcessorCount});
  }
#ifndef MIRROR_HAVE_CUDA_TORCH
  r.unavailable = fmt::format("this LibTorch was built without CUDA, so it cannot train on the {} GPU(s) found; "
                              "build against a CUDA LibTorch (README: Building against a CUDA LibTorch)",
                              r.gpus.size());
#endif
  return r;
}
#else
CudaReport ask_runtime() {
  CudaReport r;
  r.unavailable = "this build has no CUDA (the CUDA toolkit was not found when it was configured)";
  return r;
}
#endif
}  // namespace

const CudaReport& cuda_report() {
  static const CudaReport report = ask_runtime();
  return report;
}

#ifdef MIRROR_HAVE_CUDART
struct GpuEventTimer::Events {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> marks;
};

GpuEventTimer::GpuEventTimer(int device, void* stream, int marks) : events_(std::make_unique<Events>()) {
  if (marks < 2) throw std::invalid_argument("GpuEventTimer: at least two marks");
  events_->device = device;
  events_->stream = static_cast<cudaStream_t>(stream);
  check(cudaSetDevice(device), "set device");
  for (int i = 0; i < marks; ++i) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "create event");
    events_->marks.push_back(e);
  }
}

GpuEventTimer::~GpuEventTimer() {
  for (cudaEvent_t e : events_->marks) cudaEventDestroy(e);
}

void GpuEventTimer::set_stream(void* stream) { events_->stream = static_cast<cudaStream_t>(stream); }

void GpuEventTimer::mark(int i) {
  check(cudaEventRecord(events_->marks.at(static_cast<size_t>(i)), events_->stream), "record event");
}

std::vector<double> GpuEventTimer::elapsed_ms() {
  check(cudaEventSynchronize(events_->marks.back()), "wait for event");
  std::vector<double> out;
  for (size_t i = 1; i < events_->marks.size(); ++i) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, events_->marks[i - 1], events_->marks[i]), "time events");
    out.push_back(ms);
  }
  return out;
}
#else
struct GpuEventTimer::Events {};
GpuEventTimer::GpuEventTimer(int, void*, int) {
  throw RunError("GPU event timers need a build with the CUDA runtime");
}
GpuEventTimer::~GpuEventTimer() = default;
void GpuEventTimer::set_stream(void*) {}
void GpuEventTimer::mark(int) {}
std::vector<double> GpuEventTimer::elapsed_ms() { return {}; }
#endif

}  // namespace mirror
