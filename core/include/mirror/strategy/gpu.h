#pragma once
// LibTorch's CUDA side behind one small interface: the one file that knows about c10::cuda, and
// so the one place where LibTorch 1.13 and 2.x (and CPU-only and CUDA builds) differ. Every
// function is safe to call in a CPU-only build: a no-op for CPU tensors, or a ConfigError that
// says this build has no CUDA.

#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>

namespace mirror {

// True when this build's LibTorch has CUDA and a GPU is usable.
bool cuda_training_available();

// One replica's CUDA stream: a side stream from LibTorch's pool, so replicas sharing a card run
// concurrently. Default-constructed: no stream (a CPU replica).
class ReplicaStream {
 public:
  ReplicaStream() = default;
  static ReplicaStream for_device(int device);
  bool active() const { return impl_ != nullptr; }
  int device() const;
  void* handle() const;  // the cudaStream_t; nullptr when inactive
  void synchronize() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
  friend class StreamScope;
};

// While it lives, this thread's LibTorch work on the stream's device goes to the stream (and that
// device is current). Does nothing for an inactive stream.
class StreamScope {
 public:
  explicit StreamScope(const ReplicaStream& stream);
  ~StreamScope();
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  struct Guard;
  std::unique_ptr<Guard> guard_;
};

// Blocks until the calling thread's current stream on `t`'s device has finished its queued work,
// so another thread may read `t`. Nothing for CPU tensors.
void synchronize_stream_of(const torch::Tensor& t);
// Blocks until all work queued on `device` by any stream has finished (after the trainer thread
// set weights that replica streams will read). Nothing for the CPU.
void synchronize_device(const torch::Device& device);
// The calling thread's current cudaStream_t on `device`.
void* current_stream_handle(int device);

// Caps LibTorch's caching allocator on `device` at what the process holds there now plus
// `limit_mib` (of `total_mib`): allocations beyond it fail with CUDA's out-of-memory error.
void limit_device_memory(int device, int64_t limit_mib, int64_t total_mib);
// Peak memory LibTorch allocated on `device` since the last reset, MiB.
double peak_device_memory_mib(int device);
void reset_peak_device_memory(int device);
// When `e` is a CUDA out-of-memory error: what it was trying to allocate ("2.00 GiB"), or
// "more memory" when the message does not say; empty for any other error.
std::string cuda_out_of_memory(const std::exception& e);

// A dropout generator on `device` (CPU or CUDA), seeded with `seed`.
at::Generator make_dropout_generator(const torch::Device& device, uint64_t seed);
// Makes cuBLAS deterministic (it reads CUBLAS_WORKSPACE_CONFIG when it first starts on a device).
void make_cuda_deterministic();

}  // namespace mirror
