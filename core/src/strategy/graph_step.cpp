// Tested by tests/core/strategy/test_cuda_graphs.cpp.
#include "graph_step.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>

#include "mirror/strategy/cuda_graphs.h"
#include "mirror/util/error.h"

#ifdef MIRROR_HAVE_CUDA_GRAPHS
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>

#include "mirror/optim/device_update.h"
#include "mirror/strategy/cuda_runtime.h"
#endif

namespace mirror {

#ifdef MIRROR_HAVE_CUDA_GRAPHS

struct GraphStep::Shape {
  int eager_steps = 0;                  // run so far without the graph
  std::vector<torch::Tensor> x, y;      // each replica's shard, where the graph reads it
  std::vector<torch::Tensor> metrics;   // each replica's {loss sum, hits, top-k hits}, where it writes them
  std::unique_ptr<at::cuda::CUDAGraph> graph;
};

struct GraphStep::Cuda {
  int device = 0;
  at::cuda::CUDAEvent fork;  // recorded on the capturing stream, waited for by the replicas' streams
  std::vector<std::unique_ptr<at::cuda::CUDAEvent>> joined;  // one per replica, waited for by the capturing stream
  std::vector<std::unique_ptr<DeviceUpdate>> updates;        // one per replica
  std::unique_ptr<GpuEventTimer> timer;                      // around the step, on the capturing stream
};

GraphStep::GraphStep(std::vector<Replica*> replicas, int first_replica, int top_k)
    : replicas_(std::move(replicas)), first_replica_(first_replica), top_k_(top_k), cuda_(std::make_unique<Cuda>()) {
  if (replicas_.empty()) throw std::invalid_argument("GraphStep: no replicas");
  const torch::Device device = replicas_[0]->device->torch_device();
  for (Replica* rep : replicas_)
    if (!rep->device->torch_device().is_cuda() || rep->device->torch_device() != device)
      throw std::invalid_argument("GraphStep: every replica must be on one CUDA GPU");
  cuda_->device = device.index();
  for (Replica* rep : replicas_) {
    cuda_->joined.push_back(std::make_unique<at::cuda::CUDAEvent>());
    cuda_->updates.push_back(std::make_unique<DeviceUpdate>(*rep->optimizer, rep->flat_params, rep->flat_grads));
  }
}

GraphStep::~GraphStep() = default;

void GraphStep::enqueue(Shape& s, double inv_global) {
  const auto device = static_cast<c10::DeviceIndex>(cuda_->device);
  const auto main = c10::cuda::getCurrentCUDAStream(device);
  auto on_each_replica = [&](auto&& work) {
    cuda_->fork.record(main);
    for (size_t r = 0; r < replicas_.size(); ++r) {
      Replica& rep = *replicas_[r];
      StreamScope on_stream = rep.device->use_on_this_thread();
      const auto stream = c10::cuda::getCurrentCUDAStream(device);
      cuda_->fork.block(stream);
      work(r, rep);
      cuda_->joined[r]->record(stream);
    }
    for (auto& joined : cuda_->joined) joined->block(main);
  };
  // Forward and backward, each replica on its own stream.
  on_each_replica([&](size_t r, Replica& rep) {
    rep.flat_grads.zero_();
    if (s.x[r].size(0) == 0) {  // more replicas than examples: contributes nothing
      s.metrics[r].zero_();
      return;
    }
    rep.model->train();
    auto logits = rep.model->forward(s.x[r]);
    auto loss_sum = torch::nn::functional::cross_entropy(
        logits, s.y[r], torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
    (loss_sum * inv_global).backward();
    s.metrics[r].copy_(shard_metrics(logits.detach(), s.y[r], loss_sum.detach(), top_k_));
  });
  {
    // The all-reduce in reduce-to-one's order: replica 0 sums the others in rank order, and every
    // replica copies the sum (the same bits as the eager step with that communicator).
    torch::NoGradGuard no_grad;
    auto& root = replicas_[0]->flat_grads;
    for (size_t q = 1; q < replicas_.size(); ++q) root.add_(replicas_[q]->flat_grads);
    for (size_t q = 1; q < replicas_.size(); ++q) replicas_[q]->flat_grads.copy_(root);
  }
  // The update, each replica on its own stream, its numbers read from device memory.
  on_each_replica([&](size_t r, Replica&) {
    torch::NoGradGuard no_grad;
    cuda_->updates[r]->enqueue();
  });
}

void GraphStep::train_step(const Batch& batch, const ShardPlan& plan, double inv_global,
                           std::chrono::steady_clock::time_point step_start) {
  using Clock = std::chrono::steady_clock;
  const int64_t global = batch.size();
  auto& slot = shapes_[global];
  if (!slot) slot = std::make_unique<Shape>();
  Shape& s = *slot;
  // Everything below runs on replica 0's stream (a side stream: capture needs one).
  StreamScope on_stream = replicas_[0]->device->use_on_this_thread();
  const auto device = static_cast<c10::DeviceIndex>(cuda_->device);
  const auto main = c10::cuda::getCurrentCUDAStream(device);
  if (!cuda_->timer) cuda_->timer = std::make_unique<GpuEventTimer>(cuda_->device, main.stream(), 2);
  const double started = std::chrono::duration<double, std::milli>(Clock::now() - step_start).count();
  cuda_->timer->mark(0);
  // The shards into the static inputs, from pinned memory, on this stream (before the step).
  for (size_t r = 0; r < replicas_.size(); ++r) {
    const int g = first_replica_ + static_cast<int>(r);
    const auto x = batch.x.narrow(0, plan.offset(g), plan.size(g));
    const auto y = batch.y.narrow(0, plan.offset(g), plan.size(g));
    if (s.x.size() <= r) {
      const auto on_gpu = torch::TensorOptions().device(replicas_[r]->device->torch_device());
      s.x.push_back(torch::empty(x.sizes(), on_gpu.dtype(x.scalar_type())));
      s.y.push_back(torch::empty(y.sizes(), on_gpu.dtype(y.scalar_type())));
      s.metrics.push_back(torch::zeros({3}, on_gpu.dtype(torch::kFloat64)));
    }
    s.x[r].copy_(x.is_pinned() ? x : x.pin_memory(), /*non_blocking=*/true);
    s.y[r].copy_(y.is_pinned() ? y : y.pin_memory(), /*non_blocking=*/true);
  }
  try {
    if (!s.graph && s.eager_steps >= kGraphWarmupSteps) {
      // Capture: nothing runs now; the numbers of the update are read at each replay.
      auto graph = std::make_unique<at::cuda::CUDAGraph>();
      for (Replica* rep : replicas_) graph->register_generator_state(rep->dropout_rng);
      graph->capture_begin();
      try {
        enqueue(s, inv_global);
      } catch (...) {
        try {
          graph->capture_end();
        } catch (...) {
        }
        throw;
      }
      graph->capture_end();
      s.graph = std::move(graph);
      ++captured_;
    }
    for (auto& update : cuda_->updates) update->prepare();
    if (s.graph) {
      s.graph->replay();
      ++replayed_;
    } else {
      enqueue(s, inv_global);
      ++s.eager_steps;
    }
  } catch (const c10::Error& e) {
    throw RunError(fmt::format("CUDA graph step on cuda:{}: {}", cuda_->device, e.what_without_backtrace()));
  }
  cuda_->timer->mark(1);
  const double gpu_ms = cuda_->timer->elapsed_ms().at(0);  // waits for the step
  const double ended = started + gpu_ms;
  for (size_t r = 0; r < replicas_.size(); ++r) {
    Replica& rep = *replicas_[r];
    const int g = first_replica_ + static_cast<int>(r);
    const auto m = s.metrics[r].to(torch::kCPU);
    const double* v = m.data_ptr<double>();
    rep.sums = MetricSums{};
    rep.sums.samples = plan.size(g);
    rep.sums.loss_sum = v[0];
    rep.sums.correct = static_cast<int64_t>(v[1]);
    rep.sums.top_k_correct = static_cast<int64_t>(v[2]);
    // One block of compute: the phases are inside the graph.
    const ReplicaMarks marks{g, 0, plan.size(g), started, started, ended, ended, ended, ended};
    rep.timing = ReplicaTiming{g, plan.size(g), marks.compute_ms(), marks.allreduce_ms(), marks.update_ms(),
                               rep.device->peak_memory_mib()};
    rep.last_train_timing = rep.timing;
    rep.previous_marks = rep.marks;
    rep.marks = marks;
  }
}

#else  // no CUDA graphs in this build

struct GraphStep::Shape {};
struct GraphStep::Cuda {};

GraphStep::GraphStep(std::vector<Replica*>, int, int) {
  throw ConfigError("this build has no CUDA graphs: it needs a CUDA LibTorch (README: Building against a CUDA LibTorch)");
}
GraphStep::~GraphStep() = default;
void GraphStep::enqueue(Shape&, double) {}
void GraphStep::train_step(const Batch&, const ShardPlan&, double, std::chrono::steady_clock::time_point) {}

#endif

}  // namespace mirror
