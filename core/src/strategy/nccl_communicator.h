#pragma once
// The `nccl` backend: NVIDIA's NCCL all-reduce among replicas on distinct physical GPUs of one
// process. Registered by the communicator registry in builds with NCCL and a CUDA LibTorch.

#include <string>

#include "mirror/strategy/communicator.h"

namespace mirror {

CommunicatorBackend nccl_backend();
// The version of the NCCL library loaded ("2.28.9").
std::string nccl_version();

}  // namespace mirror
