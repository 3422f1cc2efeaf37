// The fused updates as one CUDA kernel per replica and step: the per-element arithmetic of
// fused_update.h (compiled with --fmad=false, so it rounds as the CPU does), its numbers read from
// device memory when a captured graph replays, or passed with the launch.
#include <cuda_runtime_api.h>

#include "fused_update.h"

namespace mirror::fused {

namespace {
__global__ void update_kernel(int32_t kind, Values by_value, const float* __restrict__ k_device, float* p,
                              const float* g, float* a, float* b, int64_t n) {
  Values k = by_value;
  if (k_device != nullptr)
    for (int j = 0; j < kValues; ++j) k.v[j] = k_device[j];
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    update_element(kind, k, p, g, a, b, i);
}
}  // namespace

const char* update_cuda(int32_t kind, const Values& k, const float* k_device, float* p, const float* g, float* a,
                        float* b, int64_t n, void* stream) {
  if (n <= 0) return nullptr;
  constexpr int kThreads = 256;
  // Enough blocks to fill any current GPU several times over; the loop strides over the rest.
  const int64_t wanted = (n + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
  update_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(kind, k, k_device, p, g, a, b, n);
  const cudaError_t rc = cudaGetLastError();
  return rc == cudaSuccess ? nullptr : cudaGetErrorString(rc);
}

}  // namespace mirror::fused
