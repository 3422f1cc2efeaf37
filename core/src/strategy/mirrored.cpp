// The mirrored step: shard the global batch, forward and backward on every replica's thread,
// all-reduce the gradients, the same update everywhere. Building the replicas is replica.cpp,
// the cross-process record step_record.cpp, checkpoints state.cpp, the sync check sync_check.cpp.
#include "mirror/strategy/mirrored.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>
#include <optional>

#include "mirror/strategy/hierarchical_communicator.h"
#include "mirror/strategy/link_model.h"
#include "mirror/strategy/replica_pool.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/util/error.h"
#include "backward_overlap.h"
#include "graph_step.h"
#include "replica.h"
#include "step_record.h"

namespace mirror {

torch::Tensor shard_metrics(const torch::Tensor& logits, const torch::Tensor& y, const torch::Tensor& loss_sum,
                            int top_k) {
  torch::NoGradGuard no_grad;
  auto correct = logits.argmax(1).eq(y).sum();
  auto top = std::get<1>(logits.topk(top_k, /*dim=*/1));
  auto top_k_correct = top.eq(y.unsqueeze(1)).any(1).sum();
  return torch::stack({loss_sum.to(torch::kFloat64), correct.to(torch::kFloat64), top_k_correct.to(torch::kFloat64)});
}

namespace {

// Replica `r`'s part of a step, the one place a shard meets a model: forward on its shard and,
// when `train`, backward with the summed loss scaled by `inv_global` (so that the all-reduced
// sum of gradients is the gradient of the mean loss over the global batch). Leaves the shard's
// metrics (and, evaluating, its top predictions) on the device. An empty shard (more replicas
// than examples) contributes nothing.
// Marks the shard copied and the forward pass done on `timer`.
void run_shard(Replica& rep, StageTimer& timer, const Batch& batch, const ShardPlan& plan, int r, bool train,
               double inv_global, int top_k) {
  if (plan.size(r) == 0) return;
  auto x = rep.device->copy_in(batch.x.narrow(0, plan.offset(r), plan.size(r)));
  auto y = rep.device->copy_in(batch.y.narrow(0, plan.offset(r), plan.size(r)));
  timer.mark(StageTimer::kCopied);
  std::optional<torch::NoGradGuard> no_grad;
  if (!train) no_grad.emplace();
  train ? rep.model->train() : rep.model->eval();
  auto logits = rep.model->forward(x);
  auto loss_sum = torch::nn::functional::cross_entropy(
      logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
  timer.mark(StageTimer::kForwardDone);
  if (train) (loss_sum * inv_global).backward();
  rep.metrics = shard_metrics(logits.detach(), y, loss_sum.detach(), top_k);
  if (train) return;
  // What the model makes of each example: its most probable classes (the confusion matrix and
  // the sample predictions of the run's evaluations).
  const int64_t k = std::min<int64_t>(kTopPredictions, logits.size(1));
  std::tie(rep.top_probs, rep.top_classes) = torch::softmax(logits, /*dim=*/1).topk(k, /*dim=*/1);
  rep.model->train();
}

// Reads the shard's metrics and top predictions back into rep.sums and rep.top (waits for the
// device).
void read_metrics(Replica& rep, int64_t samples) {
  rep.sums = MetricSums{};
  if (!rep.metrics.defined()) return;
  const auto m = rep.metrics.to(torch::kCPU);
  const double* v = m.data_ptr<double>();
  rep.sums.samples = samples;
  rep.sums.loss_sum = v[0];
  rep.sums.correct = static_cast<int64_t>(v[1]);
  rep.sums.top_k_correct = static_cast<int64_t>(v[2]);
  rep.metrics = torch::Tensor();
  rep.top = TopPredictions{};
  if (!rep.top_classes.defined()) return;
  const auto classes = rep.top_classes.to(torch::kCPU, torch::kInt32).contiguous();
  const auto probs = rep.top_probs.to(torch::kCPU, torch::kFloat32).contiguous();
  rep.top.k = static_cast<int>(classes.size(1));
  rep.top.classes.assign(classes.data_ptr<int32_t>(), classes.data_ptr<int32_t>() + classes.numel());
  rep.top.probabilities.assign(probs.data_ptr<float>(), probs.data_ptr<float>() + probs.numel());
  rep.top_classes = rep.top_probs = torch::Tensor();
}
}  // namespace

StepResult MirroredStrategy::train_step(const Batch& batch, bool stop_asked) {
  stop_asked_ = stop_asked;
  StepResult total = run_step(batch, /*train=*/true);
  ++steps_;
  if (steps_ == options_.perturb_replica_at_step && process_ == processes_ - 1) {
    // The "Broken sync" lesson: one parameter of the last replica, once. Identical updates keep
    // the difference, so the next sync check sees it.
    torch::NoGradGuard no_grad;
    replicas_.back()->flat_params.narrow(0, 0, 1).add_(1e-3);
  }
  if (options_.sync_check_every > 0 && steps_ % options_.sync_check_every == 0) {
    total.checksums = check_sync();
    total.sync_checked = true;
  }
  return total;
}

StepResult MirroredStrategy::evaluate(const Batch& batch) {
  if (batch.size() < 1) return {};
  return run_step(batch, /*train=*/false);
}

StepResult MirroredStrategy::run_step(const Batch& batch, bool train) {
  const int64_t global = batch.size();
  if (global < 1) throw RunError("empty batch");
  const ShardPlan plan(global, total_replicas());
  const double inv_global = 1.0 / static_cast<double>(global);
  const int top_k = top_k_;
  step_start_ = StageTimer::Clock::now();
  // A captured step leaves every replica's sums, timing and marks as the eager step below does.
  const bool graphed = train && graph_ && run_graph_step(batch, plan, inv_global);
  if (!graphed) run_replicas([&](int r) {
    Replica& rep = *replicas_[static_cast<size_t>(r)];
    try {
      StreamScope on_stream = rep.device->use_on_this_thread();
      replica_step(rep, batch, plan, r, train, inv_global, top_k);
    } catch (const CollectiveAborted&) {
      throw;
    } catch (const std::exception& e) {
      rep.device->throw_if_out_of_memory(e);
      throw;
    }
  });
  const double step_end = std::chrono::duration<double, std::milli>(StageTimer::Clock::now() - step_start_).count();
  StepResult total;
  for (const auto& rep : replicas_) {
    total.sums.add(rep->sums);
    if (train) total.replicas.push_back(rep->timing);
    if (!train && rep->top.k > 0) append_top(total.top, rep->top);
  }
  if (train) total.stop_asked = stop_asked_;
  if (processes_ > 1 && !train) gather_evaluation(total);
  if (!train) return total;
  ProcessSpans spans{process_, 0, 0, 0, step_end};
  if (processes_ > 1) {
    // This step's exchange, on its clock: what the next step's record carries.
    const auto [begin, end] = hierarchical_->last_exchange();
    total.exchange_bytes = hierarchical_->last_exchange_bytes();
    auto ms = [this](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double, std::milli>(t - step_start_).count();
    };
    spans.exchange_begin = ms(begin);
    spans.exchange_end = ms(end);
    if (overlap_) {
      total.overlap_bytes = overlap_->bytes();
      total.exchange_bytes += total.overlap_bytes;
      const auto [first, last] = overlap_->last_span();
      if (last != std::chrono::steady_clock::time_point{}) spans.overlap_begin = ms(first), spans.overlap_end = ms(last);
    }
    read_record(total, plan);  // the timeline of the previous step
    mark_simulated_link(total.timeline);
    previous_process_ = spans;
    previous_global_ = global;
    has_previous_step_ = true;
    return total;
  }
  total.timeline.global_step = steps_ + 1;  // this step
  total.timeline.processes = {spans};
  for (const auto& rep : replicas_) total.timeline.replicas.push_back(rep->marks);
  mark_simulated_link(total.timeline);
  return total;
}

bool MirroredStrategy::run_graph_step(const Batch& batch, const ShardPlan& plan, double inv_global) {
  try {
    graph_->train_step(batch, plan, inv_global, step_start_);
    return true;
  } catch (const RunError& e) {
    // Out of memory, or a layer LibTorch cannot capture: in auto mode this and every later step
    // run eagerly (the failed capture applied nothing), saying why; asked for, the run stops.
    if (options_.cuda_graphs == "on") throw;
    graph_status_ = fmt::format("eager: capturing the step failed at step {}: {}", steps_ + 1, e.what());
    graph_.reset();
    for (auto& rep : replicas_) rep->device->synchronize();
    return false;
  }
}

void MirroredStrategy::mark_simulated_link(StepTimeline& timeline) const {
  if (!options_.link || timeline.empty()) return;
  // What SimulatedLinkCommunicator added to each all-reduce: the modelled ring over every replica
  // of every process, for the gradients' bytes.
  const double bytes = 4.0 * static_cast<double>(replicas_[0]->flat_grads.numel());
  timeline.simulated_link = true;
  timeline.simulated_allreduce_ms = 1e3 * ring_allreduce_seconds(*options_.link, total_replicas(), bytes);
}

void MirroredStrategy::run_replicas(const std::function<void(int)>& job) {
  try {
    pool_->run(job, [this](int rank) { communicator_->abort(fmt::format("replica {} failed", rank)); });
  } catch (...) {
    communicator_->reset();
    throw;
  }
}

void MirroredStrategy::replica_step(Replica& rep, const Batch& batch, const ShardPlan& plan, int r, bool train,
                                    double inv_global, int top_k) {
  const int g = first_replica_ + r;  // its place among all processes' replicas
  StageTimer& timer = rep.device->timer();
  timer.start(step_start_);
  // The first replica of a process sends the process's spans of the previous step.
  if (train) start_step_record(rep, g, total_replicas(), /*stop=*/r == 0 && stop_asked_,
                               r == 0 && has_previous_step_ ? &previous_process_ : nullptr);
  if (train && overlap_) overlap_->begin_step();
  run_shard(rep, timer, batch, plan, g, train, inv_global, top_k);
  if (train) add_metrics_to_record(rep, g);
  timer.mark(StageTimer::kGradientsReady);
  if (train) {
    if (overlap_) overlap_->launch_rest();
    communicator_->allreduce_sum(r, rep.reduce_list)->wait();
    if (overlap_) overlap_->wait();
    timer.mark(StageTimer::kReduced);
    {
      torch::NoGradGuard no_grad;
      // After the all-reduce: every replica clips the same gradient the same way.
      clip_gradients(optimizer_, rep.flat_grads, segments_);
      rep.optimizer->step(rep.flat_params, rep.flat_grads);
    }
    timer.mark(StageTimer::kUpdated);
  }
  read_metrics(rep, plan.size(g));
  const auto ms = timer.marks_ms();
  const ReplicaMarks marks{g, process_, plan.size(g), ms[0], ms[1], ms[2], ms[3], ms[4], ms[5]};
  rep.timing = ReplicaTiming{g, plan.size(g), marks.compute_ms(), marks.allreduce_ms(), marks.update_ms(),
                             rep.device->peak_memory_mib()};
  if (!train) return;
  rep.last_train_timing = rep.timing;
  rep.previous_marks = rep.marks;
  rep.marks = marks;
}

torch::Tensor MirroredStrategy::predict(const torch::Tensor& x) {
  Replica& rep = *replicas_[0];
  torch::NoGradGuard no_grad;
  rep.model->eval();
  auto probs = torch::softmax(rep.model->forward(x.to(rep.device->torch_device())), /*dim=*/1)
                   .to(torch::kCPU, torch::kFloat32);
  rep.model->train();
  return probs;
}

}  // namespace mirror
