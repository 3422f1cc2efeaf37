#pragma once
// What the CUDA runtime says about this machine's GPUs, and event timers for GPU work. Needs only
// the CUDA runtime (no CUDA LibTorch), so it is compiled wherever the CUDA toolkit is found.
// Light: no torch, no CUDA headers.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mirror {

struct GpuInfo {
  int index = 0;
  std::string name;  // "NVIDIA H200"
  int64_t memory_mib = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
};

struct CudaReport {
  std::vector<GpuInfo> gpus;    // every GPU the CUDA runtime sees (also in a CPU-only LibTorch build)
  std::string driver_version;   // "13.0"; empty without a driver
  std::string runtime_version;  // the CUDA runtime this build uses; empty without one
  // Why replicas cannot train on a GPU here, in one line a person can act on ("no NVIDIA driver",
  // "this LibTorch was built without CUDA", ...); empty when they can.
  std::string unavailable;
  bool usable() const { return unavailable.empty() && !gpus.empty(); }
};

// Asks the CUDA runtime once per process; later calls return the same report. Thread-safe.
const CudaReport& cuda_report();

// Times consecutive stretches of one stream's work with CUDA events: mark(0) .. mark(n-1) record
// events on the stream; elapsed_ms() waits for the last one and returns the n-1 gaps. Host
// timers lie on an asynchronous GPU; these don't. Create and use it on one thread.
class GpuEventTimer {
 public:
  // `stream` is a cudaStream_t; `marks` >= 2. Throws RunError when CUDA refuses.
  GpuEventTimer(int device, void* stream, int marks);
  ~GpuEventTimer();
  GpuEventTimer(const GpuEventTimer&) = delete;
  GpuEventTimer& operator=(const GpuEventTimer&) = delete;
  void set_stream(void* stream);
  void mark(int i);
  std::vector<double> elapsed_ms();

 private:
  struct Events;
  std::unique_ptr<Events> events_;
};

}  // namespace mirror
