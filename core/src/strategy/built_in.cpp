// Tested by tests/cli/test_cli.sh (`mirrortrain devices` on each build).
#include "mirror/strategy/built_in.h"

#include <fmt/format.h>
#include <torch/version.h>

#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/workers.h"
#ifdef MIRROR_HAVE_NCCL
#include "nccl_communicator.h"
#endif

namespace mirror {

namespace {
constexpr const char* kCudaLibTorch = "needs a CUDA LibTorch (README: Building against a CUDA LibTorch)";

// Why a part built for GPUs cannot run here; empty when a GPU is usable.
[[maybe_unused]] std::string gpu_here() {
  const CudaReport& cuda = cuda_report();
  if (cuda.usable()) return {};
  return fmt::format("no GPU visible ({})", cuda.unavailable.empty() ? "no CUDA GPU found" : cuda.unavailable);
}
}  // namespace

std::vector<BuiltInPart> built_in_parts() {
  std::vector<BuiltInPart> parts;
  const std::string cuda_version = cuda_report().runtime_version;
#ifdef MIRROR_HAVE_CUDA_TORCH
  parts.push_back({"CUDA", true, fmt::format("LibTorch {} with CUDA {}", TORCH_VERSION, cuda_version), gpu_here()});
#else
  parts.push_back({"CUDA", false, "", fmt::format("LibTorch {} has no CUDA: {}", TORCH_VERSION, kCudaLibTorch)});
#endif
#ifdef MIRROR_HAVE_NCCL
  parts.push_back({"nccl", true, fmt::format("NCCL {}: one replica per GPU, in one process", nccl_version()), gpu_here()});
#elif defined(MIRROR_HAVE_CUDA_TORCH)
  parts.push_back({"nccl", false, "", "NCCL (nccl.h and libnccl) was not found when this build was configured"});
#else
  parts.push_back({"nccl", false, "", kCudaLibTorch});
#endif
#ifdef MIRROR_HAVE_CUDA_GRAPHS
  parts.push_back({"CUDA graphs", true, "the step captured once and replayed (--cuda-graphs)", gpu_here()});
#elif defined(MIRROR_HAVE_CUDA_TORCH)
  parts.push_back({"CUDA graphs", false, "", "no CUDA compiler (nvcc) when this build was configured"});
#else
  parts.push_back({"CUDA graphs", false, "", kCudaLibTorch});
#endif
#ifdef MIRROR_HAVE_NVTX
  parts.push_back({"NVTX", true, "ranges named as the trace's phases, for Nsight Systems", ""});
#elif defined(MIRROR_HAVE_CUDA_TORCH)
  parts.push_back({"NVTX", false, "", "the CUDA toolkit's nvtx3 headers were not found"});
#else
  parts.push_back({"NVTX", false, "", kCudaLibTorch});
#endif
  if (c10d_available()) {
#ifdef MIRROR_HAVE_C10D_NCCL
    parts.push_back({"c10d", true, "across processes: Gloo for CPU replicas, NCCL for GPU replicas", ""});
#else
    parts.push_back({"c10d", true, "across processes: Gloo for CPU replicas", ""});
#endif
  } else {
    parts.push_back({"c10d", false, "", "c10d's Gloo headers were not found when this build was configured "
                                        "(Debian: libgloo-dev)"});
  }
  return parts;
}

std::string describe(const BuiltInPart& part) {
  if (!part.built) return "not built: " + part.here;
  std::string text = part.here.empty() ? "built" : "built, " + part.here;
  if (!part.detail.empty()) text += "; " + part.detail;
  return text;
}

}  // namespace mirror
