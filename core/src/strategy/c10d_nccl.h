#pragma once
// Replicas on GPUs across processes: c10d's ProcessGroupNCCL, from a CUDA LibTorch with NCCL, for
// c10d_workers.cpp. Built (c10d_nccl.cpp) with USE_C10D_NCCL and without the precompiled header,
// where the build defines MIRROR_HAVE_C10D_NCCL; elsewhere make_c10d_nccl is never called.

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>

#include "mirror/strategy/communicator.h"

namespace mirror {

// Sums float32 CUDA tensors across the `size` processes, this one being `rank`, over a
// ProcessGroupNCCL that meets under its own prefix in `store`. Every process's tensors are on a
// GPU of its own (choose_cross_process checks this first). allreduce_sum returns once the sum is
// in the tensors, the GPU synchronised, so that other replica threads can read them at once
// (HierarchicalCommunicator copies them on their streams). When NCCL fails or `timeout` passes,
// `failed` is called with the error: it throws the run's message (c10d_workers: which worker is
// gone); if it returns, the error is rethrown.
std::shared_ptr<Communicator> make_c10d_nccl(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                             std::chrono::milliseconds timeout,
                                             std::function<void(const std::exception&)> failed);

}  // namespace mirror
