#pragma once
// The `nccl` backend: NVIDIA's NCCL all-reduce among replicas on distinct physical GPUs of one
// process. Registered by the communicator registry in builds with NCCL and a CUDA LibTorch.

#include "mirror/strategy/communicator.h"

namespace mirror {

CommunicatorBackend nccl_backend();

}  // namespace mirror
