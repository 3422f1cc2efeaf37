#pragma once
// What this build of the engine was compiled with for GPUs and across processes, and whether each
// part can run on this machine: `mirrortrain devices` prints it, so that a build against a CUDA
// LibTorch on a machine without a GPU says "built, no GPU visible" rather than nothing.
// Light: plain values, no torch.

#include <string>
#include <vector>

namespace mirror {

struct BuiltInPart {
  std::string name;     // "CUDA", "nccl", "CUDA graphs", "NVTX", "c10d"
  bool built = false;   // compiled and linked into this build
  std::string detail;   // built: versions and what it serves ("LibTorch 2.11.0, CUDA 13.0")
  // Built: empty when it can run here, else why not ("no GPU visible: no NVIDIA driver ...").
  // Not built: what the build lacked and how to get it.
  std::string here;
};

// Every part, in a fixed order. Asks the CUDA runtime once (cuda_report()). Thread-safe.
std::vector<BuiltInPart> built_in_parts();

// "built, no GPU visible (no CUDA GPU found)", "built", "not built: needs a CUDA LibTorch ..."
std::string describe(const BuiltInPart& part);

}  // namespace mirror
