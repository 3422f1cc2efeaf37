// Tested by tests/core/strategy/test_gpu.cpp (on GPUs; scripts/gpu-check.sh).
#include "nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>
#include <torch/types.h>

#include <map>
#include <mutex>

#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/gpu.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
void check(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) throw RunError(fmt::format("NCCL {}: {}", what, ncclGetErrorString(rc)));
}

class EnqueuedWork : public Work {
 public:
  // The all-reduce is queued on the rank's stream; later work on that stream runs after it.
  void wait() override {}
  bool is_completed() const override { return true; }
};

// One NCCL communicator per GPU, made together (ncclCommInitAll); rank r's thread drives GPU r
// on its current (replica) stream. NCCL's ring sums in its own order, not rank order, but every
// rank receives the same bits.
class NcclCommunicator : public Communicator {
 public:
  explicit NcclCommunicator(std::vector<int> gpus) : gpus_(std::move(gpus)) { init(); }
  ~NcclCommunicator() override { destroy(/*abort=*/false); }

  std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) override {
    if (rank < 0 || rank >= world_size())
      throw std::invalid_argument(fmt::format("nccl: rank {} outside [0, {})", rank, world_size()));
    ncclComm_t comm = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (!aborted_.empty()) throw CollectiveAborted(aborted_);
      comm = comms_[static_cast<size_t>(rank)];
    }
    const int gpu = gpus_[static_cast<size_t>(rank)];
    auto stream = static_cast<cudaStream_t>(current_stream_handle(gpu));
    check(ncclGroupStart(), "group start");
    for (auto& t : tensors) {
      if (!t.is_cuda() || t.device().index() != gpu || t.scalar_type() != torch::kFloat32 || !t.is_contiguous()) {
        ncclGroupEnd();
        throw RunError(fmt::format("nccl: rank {} must reduce contiguous float32 tensors on cuda:{}", rank, gpu));
      }
      check(ncclAllReduce(t.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel()), ncclFloat32, ncclSum, comm,
                          stream),
            "all-reduce");
    }
    check(ncclGroupEnd(), "group end");
    return std::make_shared<EnqueuedWork>();
  }

  void abort(const std::string& reason) override {
    std::lock_guard lock(mutex_);
    if (!aborted_.empty()) return;
    aborted_ = reason;
    for (ncclComm_t c : comms_) ncclCommAbort(c);  // unblocks ranks whose all-reduce waits on a failed one
    comms_.clear();
  }

  void reset() override {
    std::lock_guard lock(mutex_);
    if (aborted_.empty()) return;
    aborted_.clear();
    init_locked();
  }

  int world_size() const override { return static_cast<int>(gpus_.size()); }
  std::string name() const override { return "nccl"; }

 private:
  void init() {
    std::lock_guard lock(mutex_);
    init_locked();
  }
  void init_locked() {
    comms_.assign(gpus_.size(), nullptr);
    check(ncclCommInitAll(comms_.data(), world_size(), gpus_.data()), "init");
  }
  void destroy(bool abort) {
    std::lock_guard lock(mutex_);
    for (ncclComm_t c : comms_) abort ? ncclCommAbort(c) : ncclCommDestroy(c);
    comms_.clear();
  }

  std::vector<int> gpus_;
  std::mutex mutex_;
  std::vector<ncclComm_t> comms_;  // GUARDED_BY(mutex_)
  std::string aborted_;            // GUARDED_BY(mutex_)
};

// Why NCCL cannot serve these replicas; empty when it can.
std::string nccl_unavailable(const std::vector<LogicalDevice>& devices) {
  std::map<int, int> per_gpu;
  for (const auto& d : devices) {
    if (d.physical.type != DeviceType::kCuda) return "needs GPU replicas";
    ++per_gpu[d.physical.index];
  }
  for (const auto& [gpu, count] : per_gpu)
    if (count > 1)
      return fmt::format("NCCL needs one replica per physical GPU, and {} replicas share cuda:{} (logical GPUs); "
                         "reduce-to-one serves them",
                         count, gpu);
  if (!cuda_report().usable()) return cuda_report().unavailable;
  for (const auto& [gpu, count] : per_gpu)
    if (gpu < 0 || gpu >= static_cast<int>(cuda_report().gpus.size()))
      return fmt::format("there is no cuda:{} here", gpu);
  return {};
}
}  // namespace

std::string nccl_version() {
  int version = 0;
  ncclGetVersion(&version);
  return fmt::format("{}.{}.{}", version / 10000, (version / 100) % 100, version % 100);
}

CommunicatorBackend nccl_backend() {
  CommunicatorBackend b;
  b.name = "nccl";
  b.summary = fmt::format("NVIDIA NCCL {} all-reduce: one replica per physical GPU, in one process", nccl_version());
  b.unavailable = nccl_unavailable;
  b.auto_rank = 30;
  b.auto_reason = "nccl: every replica has its own physical GPU";
  b.make = [](const CommunicatorSpec& spec) -> std::unique_ptr<Communicator> {
    if (const std::string why = nccl_unavailable(spec.devices); !why.empty())
      throw ConfigError("the nccl communicator cannot serve these replicas: " + why);
    std::vector<int> gpus;
    for (const auto& d : spec.devices) gpus.push_back(d.physical.index);
    return std::make_unique<NcclCommunicator>(std::move(gpus));
  };
  return b;
}

}  // namespace mirror
