// Tested by tests/core/strategy/test_gpu.cpp's cross-process case on two GPUs
//   (scripts/gpu-check.sh); compiled and linked by CI's CUDA phase at every stop. The choice of
//   NCCL or Gloo is tested on the CPU by tests/core/strategy/test_workers.cpp.
#include "c10d_nccl.h"

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/cuda.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "mirror/strategy/workers.h"

namespace mirror {

namespace {
class C10dNcclCommunicator : public Communicator {
 public:
  C10dNcclCommunicator(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                       std::chrono::milliseconds timeout, std::function<void(const std::exception&)> failed)
      : size_(size), timeout_(timeout), failed_(std::move(failed)) {
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = timeout;
    pg_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(c10::make_intrusive<c10d::PrefixStore>("mirror/nccl", store),
                                                      rank, size, opts);
  }
  ~C10dNcclCommunicator() override {
    try {
      pg_->shutdown();  // ends NCCL's watchdog thread and frees the communicators before the process exits
    } catch (const std::exception&) {
    }
  }

  // One tensor a collective (ProcessGroupNCCL takes one device's tensor at a time); each waits on
  // this thread's stream, and the host then waits for the GPU.
  std::shared_ptr<Work> allreduce_sum(int, std::vector<torch::Tensor>& tensors) override {
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::SUM;
    o.timeout = timeout_;
    try {
      for (auto& t : tensors) {
        if (!t.is_cuda())
          throw std::invalid_argument(fmt::format("NCCL across processes sums CUDA tensors, not {}", t.device().str()));
        std::vector<at::Tensor> one{t};
        pg_->allreduce(one, o)->wait(timeout_);
      }
      if (!tensors.empty()) torch::cuda::synchronize(tensors.front().device().index());
    } catch (const std::invalid_argument&) {
      throw;
    } catch (const std::exception& e) {
      failed_(e);
      throw;
    }
    return completed_work();
  }
  // A collective stuck on a peer ends at its timeout (NCCL's watchdog), which names the lost worker.
  void abort(const std::string&) override {}
  void reset() override {}
  int world_size() const override { return size_; }
  std::string name() const override { return "nccl"; }

 private:
  const int size_;
  const std::chrono::milliseconds timeout_;
  std::function<void(const std::exception&)> failed_;
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> pg_;
};
}  // namespace

std::shared_ptr<Communicator> make_c10d_nccl(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                             std::chrono::milliseconds timeout,
                                             std::function<void(const std::exception&)> failed) {
  return std::make_shared<C10dNcclCommunicator>(store, rank, size, timeout, std::move(failed));
}

bool c10d_nccl_built() { return true; }

}  // namespace mirror
