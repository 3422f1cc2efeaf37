#include "mirror/strategy/mirrored.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <cmath>
#include <mutex>
#include <optional>
#include <thread>

#include "mirror/model/builder.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/gpu.h"
#include "mirror/strategy/hierarchical_communicator.h"
#include "mirror/strategy/replica_pool.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "mirror/util/memory.h"
#include "mirror/util/threads.h"
#include "mirror/util/words.h"

namespace mirror {

// One model copy with its optimizer, plus the outputs of its part of the current step.
// Touched only by its own replica thread during a step, and by the trainer thread between steps.
struct Replica {
  torch::Device device{torch::kCPU};
  torch::nn::Sequential model{nullptr};
  torch::Tensor flat_params;  // every parameter is a view into this buffer
  torch::Tensor flat_grads;   // every parameter's .grad is a view into this buffer
  // Runs of several processes: the step's record (StepRecord), in the same buffer as the
  // gradients, after them, so that it travels with them. Undefined in one process.
  torch::Tensor record;
  std::vector<torch::Tensor> reduce_list;  // {the gradients [and the record]}, handed to the communicator
  std::unique_ptr<Optimizer> optimizer;
  at::Generator dropout_rng;
  ReplicaStream stream;                   // CUDA replicas: its own stream
  std::unique_ptr<GpuEventTimer> timer;   // CUDA replicas: compute / all-reduce / update times
  int sharing_device = 1;                 // replicas on this replica's physical device
  torch::Tensor metrics;  // its shard's {loss sum, hits, top-k hits} this step, on its device
  MetricSums sums;        // the same, read back after the step
  // Evaluations: its shard's top classes and their probabilities, on its device, then read back.
  torch::Tensor top_classes, top_probs;
  TopPredictions top;
  ReplicaTiming timing;
  ReplicaTiming last_train_timing;  // of its last training step: what its next record carries
};

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// LibTorch's default generator is process-wide; model construction must not interleave.
std::mutex& init_mutex() {
  static std::mutex m;
  return m;
}

torch::Device torch_device(const LogicalDevice& d) {
  return d.physical.type == DeviceType::kCuda ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(d.physical.index))
                                              : torch::Device(torch::kCPU);
}

// Moves every parameter into one contiguous buffer (and every gradient into another, followed by
// `record_size` more values for the step record) so that the all-reduce, the optimizer and the
// sync check each work on a single tensor.
void flatten_parameters(Replica& r, int64_t record_size) {
  torch::NoGradGuard no_grad;
  auto params = r.model->parameters();
  int64_t total = 0;
  for (const auto& p : params) total += p.numel();
  auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(r.device);
  r.flat_params = torch::empty({total}, opts);
  auto reduced = torch::zeros({total + record_size}, opts);
  r.flat_grads = reduced.narrow(0, 0, total);
  if (record_size > 0) r.record = reduced.narrow(0, total, record_size);
  int64_t offset = 0;
  for (auto& p : params) {
    const int64_t n = p.numel();
    auto param_view = r.flat_params.narrow(0, offset, n).view(p.sizes());
    param_view.copy_(p);
    p.set_data(param_view);
    p.mutable_grad() = r.flat_grads.narrow(0, offset, n).view(p.sizes());
    offset += n;
  }
  r.reduce_list = {reduced};
}

// Per-example metrics of one shard as one float64 tensor on the shard's device: {loss sum,
// arg-max hits, top-k hits}. Read back once per step, so a GPU replica waits for the host once.
torch::Tensor shard_metrics(const torch::Tensor& logits, const torch::Tensor& y, const torch::Tensor& loss_sum,
                            int top_k) {
  torch::NoGradGuard no_grad;
  auto correct = logits.argmax(1).eq(y).sum();
  auto top = std::get<1>(logits.topk(top_k, /*dim=*/1));
  auto top_k_correct = top.eq(y.unsqueeze(1)).any(1).sum();
  return torch::stack({loss_sum.to(torch::kFloat64), correct.to(torch::kFloat64), top_k_correct.to(torch::kFloat64)});
}

// What travels with the gradients in a run of several processes, so that a training step takes
// one collective across them, not three (the gradients, the step's results, a stop). Every
// replica owns one slot of kFields values and leaves the others zero, so the all-reduce's sum
// hands every process every slot unchanged (x + 0 + ... = x, in float32 like the gradients):
//   [kMetrics, +3)  its shard's loss sum, arg-max hits and top-k hits in this step;
//   [kTimes, +4)    its compute, all-reduce and update milliseconds and memory (MiB) of its
//                   previous training step: this step's all-reduce has not happened when the
//                   record leaves.
// After the slots, one value counts the processes asked to stop during this step.
struct StepRecord {
  static constexpr int64_t kFields = 7;
  static constexpr int64_t kMetrics = 0;
  static constexpr int64_t kTimes = 3;
  static int64_t size(int replicas) { return kFields * replicas + 1; }
  static int64_t slot(int replica) { return kFields * replica; }
  static int64_t stop(int replicas) { return kFields * replicas; }
};

// Writes `values` into the float32 `record` from `at` on (the record may live on a GPU).
void put(const torch::Tensor& record, int64_t at, const std::vector<float>& values) {
  if (record.is_cpu()) {
    std::copy(values.begin(), values.end(), record.data_ptr<float>() + at);
    return;
  }
  record.narrow(0, at, static_cast<int64_t>(values.size())).copy_(torch::tensor(values));
}

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

// Copies replica `r`'s part of a host tensor to its device: straight for CPU replicas; through
// pinned memory and asynchronously on its stream for GPU replicas.
torch::Tensor shard_to_device(const torch::Tensor& host, int64_t offset, int64_t size, const torch::Device& device) {
  auto part = host.narrow(0, offset, size);
  if (!device.is_cuda()) return part.to(device);
  return part.pin_memory().to(device, /*non_blocking=*/true);
}

// A CUDA out-of-memory error of replica `rep` as one line naming its logical device and limit.
[[noreturn]] void rethrow_out_of_memory(const LogicalDevice& d, const std::string& needed) {
  const std::string limit = d.memory_limit_mib > 0
                                ? fmt::format("its limit is {} MiB (--memory-limit)", d.memory_limit_mib)
                                : fmt::format("{} has {} MiB", d.physical.name, d.physical.memory_mib);
  throw RunError(fmt::format("logical device {} ran out of memory: it needed {} more and {}. Use a smaller batch, "
                             "fewer logical devices per GPU or a larger --memory-limit",
                             d.name(), needed, limit));
}

std::string bytes_in_words(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} bytes", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

// Before anything is allocated: every replica holds the weights and their gradients (4 bytes
// each; the optimizer's slots and the activations come on top), so a model whose copies cannot
// fit is a configuration error naming the largest layer, not an allocation failure deep inside
// LibTorch. CPU replicas share the machine's memory; a GPU's logical devices each have their limit.
void check_model_fits(const ModelAnalysis& model, const std::vector<LogicalDevice>& devices) {
  const auto largest = std::max_element(model.layers.begin(), model.layers.end(),
                                        [](const LayerReport& a, const LayerReport& b) { return a.params < b.params; });
  const double per_replica = 8.0 * static_cast<double>(model.total_params);
  auto too_big = [&](const std::string& where, double need, double have) {
    return ConfigError(fmt::format(
        "the model needs at least {} for its weights and gradients on {}, which has {}: its {} parameters are "
        "mostly in layer {} ({}, {} parameters). Use fewer units or filters, or fewer replicas",
        bytes_in_words(need), where, bytes_in_words(have), model.total_params,
        largest == model.layers.end() ? std::string("?") : largest->name,
        largest == model.layers.end() ? std::string("?") : largest->type,
        largest == model.layers.end() ? int64_t{0} : largest->params));
  };
  const auto cpu = std::count_if(devices.begin(), devices.end(), [](const LogicalDevice& d) { return d.physical.type == DeviceType::kCpu; });
  const double ram = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (cpu > 0 && ram > 0 && per_replica * static_cast<double>(cpu) > ram)
    throw too_big(fmt::format("{} in this machine's memory", counted(cpu, "CPU replica")), per_replica * static_cast<double>(cpu), ram);
  for (const auto& d : devices) {
    if (d.physical.type != DeviceType::kCuda) continue;
    const int64_t mib = d.memory_limit_mib > 0 ? d.memory_limit_mib : d.physical.memory_mib / d.logical_per_physical;
    if (mib > 0 && per_replica > static_cast<double>(mib) * (1 << 20))
      throw too_big("logical device " + d.name(), per_replica, static_cast<double>(mib) * (1 << 20));
  }
}

uint64_t fnv1a(const torch::Tensor& flat) {
  auto cpu = flat.device().is_cpu() ? flat.contiguous() : flat.to(torch::kCPU);
  const auto* p = static_cast<const unsigned char*>(cpu.data_ptr());
  const size_t n = static_cast<size_t>(cpu.numel()) * cpu.element_size();
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
}  // namespace

MirroredStrategy::MirroredStrategy(std::vector<LogicalDevice> devices, const ModelAnalysis& model,
                                   const OptimizerConfig& optimizer, const MirroredOptions& options,
                                   uint64_t seed, std::shared_ptr<WorkerGroup> workers)
    : devices_(std::move(devices)), options_(options), optimizer_(optimizer), workers_(std::move(workers)) {
  if (devices_.empty()) throw ConfigError("no devices to train on");
  if (options_.sync_check_every < 0)
    throw ConfigError(fmt::format("invalid sync-check interval: {}", options_.sync_check_every));
  if (options_.top_k < 1) throw ConfigError(fmt::format("invalid top-k: {}", options_.top_k));
  if (!model.ok()) throw ConfigError(fmt::format("model does not fit the data: {}", model.describe_errors()));
  optimizer.validate();
  check_model_fits(model, devices_);
  keep_freed_memory_for_reuse();
  const int n = static_cast<int>(devices_.size());
  choice_ = choose_communicator(options_.communicator, devices_);
  communicator_ = make_communicator(choice_.name, CommunicatorSpec{n, options_.bucket_bytes, devices_});
  if (workers_ && workers_->world_size() > 1) {
    processes_ = workers_->world_size();
    process_ = workers_->rank();
    const auto counts = workers_->allgather({static_cast<double>(n)});
    for (int p = 0; p < processes_; ++p)
      if (counts[static_cast<size_t>(p)][0] != n)
        throw ConfigError(fmt::format("rank {} has {} replicas and rank {} has {}: every worker needs the same "
                                      "number of devices (--devices, --logical)",
                                      process_, n, p, counts[static_cast<size_t>(p)][0]));
    first_replica_ = process_ * n;
    communicator_ = std::make_unique<HierarchicalCommunicator>(std::move(communicator_), workers_->communicator(),
                                                               process_);
    choice_.reason = fmt::format("{}{}across {} processes: c10d's Gloo", choice_.reason,
                                 choice_.reason.empty() ? "" : "; ", processes_);
    choice_.name = communicator_->name();
  }
  if (options_.perturb_replica_at_step > 0 && n * processes_ < 2)
    throw ConfigError("perturb_replica_at_step needs at least 2 replicas: with one there is no copy to drift from");
  // Worker processes on this host share its cores with ours, unless the launcher already gave each
  // its own CPUs (Slurm's task affinity: this process may use fewer cores than the host has).
  const bool own_cpus = usable_cores() < static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int local_processes =
      workers_ && workers_->world_size() > 1 && !own_cpus ? std::max(1, workers_->env().local_world_size) : 1;
  threads_per_replica_ = intra_op_threads_per_replica(n * local_processes, usable_cores(), options_.intra_op_threads,
                                                      options_.shard_examples, &threads_reason_);
  const int64_t classes = model.layers.back().output_shape.back();
  top_k_ = static_cast<int>(std::min<int64_t>(options_.top_k, classes));
  const bool on_gpu = std::any_of(devices_.begin(), devices_.end(),
                                  [](const LogicalDevice& d) { return d.physical.type == DeviceType::kCuda; });
  if (on_gpu && !cuda_training_available())
    throw ConfigError(fmt::format("cannot train on {}: {}", devices_[0].name(), cuda_report().unavailable));
  if (on_gpu && options_.deterministic) make_cuda_deterministic();
  if (options_.deterministic) at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  if (on_gpu) limit_gpu_memory();

  {
    std::lock_guard lock(init_mutex());
    torch::manual_seed(seed);
    for (int r = 0; r < n; ++r) {
      auto rep = std::make_unique<Replica>();
      rep->device = torch_device(devices_[static_cast<size_t>(r)]);
      // Each replica drops out with its own stream, derived from the run's seed.
      rep->dropout_rng =
          make_dropout_generator(rep->device, seed * 1000003ull + static_cast<uint64_t>(first_replica_ + r) + 1);
      rep->model = build_model(model, rep->dropout_rng);
      try {
        rep->model->to(rep->device);
        flatten_parameters(*rep, processes_ > 1 ? StepRecord::size(n * processes_) : 0);
      } catch (const std::exception& e) {
        if (const std::string needed = cuda_out_of_memory(e); !needed.empty())
          rethrow_out_of_memory(devices_[static_cast<size_t>(r)], needed);
        throw;
      }
      if (rep->device.is_cuda()) {
        rep->stream = ReplicaStream::for_device(rep->device.index());
        rep->timer = std::make_unique<GpuEventTimer>(rep->device.index(), rep->stream.handle(), 4);
        rep->sharing_device = static_cast<int>(
            std::count_if(devices_.begin(), devices_.end(), [&](const LogicalDevice& d) {
              return d.physical.type == DeviceType::kCuda && d.physical.index == rep->device.index();
            }));
      }
      replicas_.push_back(std::move(rep));
    }
  }
  {
    // Mirror replica 0's initial weights everywhere: the replicas start bit-identical.
    torch::NoGradGuard no_grad;
    for (int r = 1; r < n; ++r) replicas_[static_cast<size_t>(r)]->flat_params.copy_(replicas_[0]->flat_params);
  }
  for (auto& rep : replicas_) rep->optimizer = make_optimizer(optimizer, rep->flat_params);
  for (const auto& p : replicas_[0]->model->parameters()) segments_.push_back(p.numel());
  // Weights and slots were written on the default stream; replica streams do not wait for it.
  for (auto& rep : replicas_) synchronize_device(rep->device);
  const int threads = threads_per_replica_;
  pool_ = std::make_unique<ReplicaPool>(n, [threads](int) { apply_thread_budget(threads); });
}

MirroredStrategy::~MirroredStrategy() { pool_.reset(); }

void MirroredStrategy::limit_gpu_memory() {
  // LibTorch's caching allocator is per physical GPU, so the logical devices of one card share
  // one cap: the sum of their limits. The replica whose allocation fails is named in the error.
  // A card without limits gets all of its memory back (an earlier run in this process may have
  // capped it).
  std::map<int, std::pair<int64_t, int64_t>> per_gpu;  // index -> (summed limit, card memory)
  for (const auto& d : devices_) {
    if (d.physical.type != DeviceType::kCuda) continue;
    auto& [limit, total] = per_gpu[d.physical.index];
    total = d.physical.memory_mib;
    // A logical device without a limit may use the whole card.
    limit = (limit < 0 || d.memory_limit_mib <= 0) ? -1 : limit + d.memory_limit_mib;
  }
  for (auto& [index, limits] : per_gpu)
    if (limits.first < 0) limits.first = limits.second;
  for (const auto& [index, limits] : per_gpu) {
    if (limits.second > 0 && limits.first > limits.second)
      throw ConfigError(fmt::format("--memory-limit: the logical devices of cuda:{} ask for {} MiB together, but it "
                                    "has {} MiB",
                                    index, limits.first, limits.second));
    limit_device_memory(index, limits.first, limits.second);  // starts CUDA on the card too
  }
  for (const auto& d : devices_)
    if (d.physical.type == DeviceType::kCuda) reset_peak_device_memory(d.physical.index);
}

int MirroredStrategy::num_replicas() const { return static_cast<int>(replicas_.size()); }

int64_t MirroredStrategy::num_parameters() const { return replicas_[0]->flat_params.numel(); }

torch::Tensor MirroredStrategy::replica_parameters(int replica) {
  return replicas_.at(static_cast<size_t>(replica))->flat_params;
}

void MirroredStrategy::set_learning_rate(double rate) {
  for (auto& rep : replicas_) rep->optimizer->set_learning_rate(rate);
}

double MirroredStrategy::learning_rate() const { return replicas_[0]->optimizer->learning_rate(); }

void MirroredStrategy::load_parameters(const torch::Tensor& params) {
  torch::NoGradGuard no_grad;
  if (!params.defined() || params.numel() != num_parameters())
    throw DataError(fmt::format("{} parameters given, this model has {}", params.defined() ? params.numel() : 0,
                                num_parameters()));
  for (auto& rep : replicas_) rep->flat_params.copy_(params);
  for (auto& rep : replicas_) synchronize_device(rep->device);
}

double MirroredStrategy::parameter_l2_norm() const {
  torch::NoGradGuard no_grad;
  return replicas_[0]->flat_params.to(torch::kFloat64).norm().item<double>();
}

StrategyState MirroredStrategy::state() const {
  torch::NoGradGuard no_grad;
  StrategyState s;
  s.params = replicas_[0]->flat_params.to(torch::kCPU).clone();
  for (const auto& [name, t] : replicas_[0]->optimizer->slots()) s.optimizer_slots.emplace_back(name, t.to(torch::kCPU).clone());
  s.optimizer_iterations = replicas_[0]->optimizer->iterations();
  for (const auto& rep : replicas_) s.dropout_rng.push_back(rep->dropout_rng.get_state());
  s.steps = steps_;
  if (processes_ > 1) {
    // Every process's dropout streams, in replica order: as bytes carried in doubles.
    std::vector<double> mine;
    for (const auto& g : s.dropout_rng) {
      auto bytes = g.contiguous();
      mine.push_back(static_cast<double>(bytes.numel()));
      const auto* b = bytes.data_ptr<uint8_t>();
      mine.insert(mine.end(), b, b + bytes.numel());
    }
    s.dropout_rng.clear();
    for (const auto& theirs : workers_->allgather(mine)) {
      for (size_t at = 0; at < theirs.size();) {
        const auto len = static_cast<int64_t>(theirs[at++]);
        auto t = torch::empty({len}, torch::kUInt8);
        uint8_t* bytes = t.data_ptr<uint8_t>();
        for (int64_t k = 0; k < len; ++k) bytes[k] = static_cast<uint8_t>(theirs[at + static_cast<size_t>(k)]);
        at += static_cast<size_t>(len);
        s.dropout_rng.push_back(t);
      }
    }
  }
  return s;
}

void MirroredStrategy::restore(const StrategyState& s) {
  torch::NoGradGuard no_grad;
  if (!s.params.defined() || s.params.numel() != num_parameters())
    throw DataError(fmt::format("the checkpoint holds {} parameters but this model has {}",
                                s.params.defined() ? s.params.numel() : 0, num_parameters()));
  const size_t total = static_cast<size_t>(total_replicas());
  if (s.dropout_rng.size() != total)
    throw DataError(fmt::format("the checkpoint was written by {} replicas, this run has {}; resume with as many "
                                "replicas in all (processes x --logical)", s.dropout_rng.size(), total));
  for (size_t r = 0; r < replicas_.size(); ++r) {
    auto& rep = *replicas_[r];
    rep.flat_params.copy_(s.params);
    rep.optimizer->load_slots(s.optimizer_slots, s.optimizer_iterations);
    try {
      rep.dropout_rng.set_state(s.dropout_rng[static_cast<size_t>(first_replica_) + r]);
    } catch (const c10::Error&) {
      throw DataError(fmt::format("the checkpoint's dropout stream of replica {} does not fit {}: resume on the same "
                                  "kind of device (CPU or GPU) it was written on", first_replica_ + static_cast<int>(r), devices_[r].name()));
    }
  }
  for (auto& rep : replicas_) synchronize_device(rep->device);
  steps_ = s.steps;
}

void MirroredStrategy::run_replicas(const std::function<void(int)>& job) {
  try {
    pool_->run(job, [this](int rank) { communicator_->abort(fmt::format("replica {} failed", rank)); });
  } catch (...) {
    communicator_->reset();
    throw;
  }
}

namespace {
constexpr int64_t kTopPredictions = 5;

// Replica `r`'s part of a step, the one place a shard meets a model: forward on its shard and,
// when `train`, backward with the summed loss scaled by `inv_global` (so that the all-reduced
// sum of gradients is the gradient of the mean loss over the global batch). Adds the shard's
// sums to rep.sums. An empty shard (more replicas than examples) contributes nothing.
void run_shard(Replica& rep, const Batch& batch, const ShardPlan& plan, int r, bool train, double inv_global,
               int top_k) {
  if (plan.size(r) == 0) return;
  auto x = shard_to_device(batch.x, plan.offset(r), plan.size(r), rep.device);
  auto y = shard_to_device(batch.y, plan.offset(r), plan.size(r), rep.device);
  std::optional<torch::NoGradGuard> no_grad;
  if (!train) no_grad.emplace();
  train ? rep.model->train() : rep.model->eval();
  auto logits = rep.model->forward(x);
  auto loss_sum = torch::nn::functional::cross_entropy(
      logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
  if (train) (loss_sum * inv_global).backward();
  rep.metrics = shard_metrics(logits.detach(), y, loss_sum.detach(), top_k);
  if (train) return;
  // What the model makes of each example: its most probable classes (the confusion matrix and
  // the sample predictions of the run's evaluations).
  const int64_t k = std::min<int64_t>(kTopPredictions, logits.size(1));
  std::tie(rep.top_probs, rep.top_classes) = torch::softmax(logits, /*dim=*/1).topk(k, /*dim=*/1);
  rep.model->train();
}
}  // namespace

void MirroredStrategy::replica_step(Replica& rep, const Batch& batch, const ShardPlan& plan, int r, bool train,
                                    double inv_global, int top_k) {
  const int g = first_replica_ + r;  // its place among all processes' replicas
  rep.timing = ReplicaTiming{g, plan.size(g), 0, 0, 0};
  // Host clocks time CPU replicas; CUDA events time GPU replicas, whose work is asynchronous.
  GpuEventTimer* gpu = rep.timer.get();
  double host_ms[3] = {0, 0, 0};
  auto t0 = Clock::now();
  auto lap = [&](int stage) {
    if (gpu) {
      gpu->mark(stage + 1);
    } else {
      host_ms[stage] = ms_since(t0);
      t0 = Clock::now();
    }
  };
  if (gpu) gpu->mark(0);
  if (train) {
    rep.reduce_list[0].zero_();  // the gradients, and the record after them
    if (rep.record.defined()) {
      const ReplicaTiming& last = rep.last_train_timing;
      put(rep.record, StepRecord::slot(g) + StepRecord::kTimes,
          {static_cast<float>(last.compute_ms), static_cast<float>(last.allreduce_ms),
           static_cast<float>(last.update_ms), static_cast<float>(last.memory_mib)});
      if (r == 0 && stop_asked_) put(rep.record, StepRecord::stop(total_replicas()), {1.0f});
    }
  }
  run_shard(rep, batch, plan, g, train, inv_global, top_k);
  if (train && rep.record.defined() && rep.metrics.defined())
    rep.record.narrow(0, StepRecord::slot(g) + StepRecord::kMetrics, 3).copy_(rep.metrics);
  lap(0);
  if (train) {
    communicator_->allreduce_sum(r, rep.reduce_list)->wait();
    lap(1);
    {
      torch::NoGradGuard no_grad;
      // After the all-reduce: every replica clips the same gradient the same way.
      clip_gradients(optimizer_, rep.flat_grads, segments_);
      rep.optimizer->step(rep.flat_params, rep.flat_grads);
    }
    lap(2);
  } else if (gpu) {
    gpu->mark(2);
    gpu->mark(3);
  }
  read_metrics(rep, plan.size(g));
  if (gpu) {
    const auto ms = gpu->elapsed_ms();
    std::copy(ms.begin(), ms.end(), host_ms);
    rep.timing.memory_mib = peak_device_memory_mib(rep.device.index()) / rep.sharing_device;
  }
  rep.timing.compute_ms = host_ms[0];
  rep.timing.allreduce_ms = host_ms[1];
  rep.timing.update_ms = host_ms[2];
  if (train) rep.last_train_timing = rep.timing;
}

namespace {
// Appends a later part of the batch's predictions (the next replica's or process's shard).
void append_top(TopPredictions& into, const TopPredictions& part) {
  into.k = part.k;
  into.classes.insert(into.classes.end(), part.classes.begin(), part.classes.end());
  into.probabilities.insert(into.probabilities.end(), part.probabilities.begin(), part.probabilities.end());
}
}  // namespace

StepResult MirroredStrategy::run_step(const Batch& batch, bool train) {
  const int64_t global = batch.size();
  if (global < 1) throw RunError("empty batch");
  const ShardPlan plan(global, total_replicas());
  const double inv_global = 1.0 / static_cast<double>(global);
  const int top_k = top_k_;
  run_replicas([&](int r) {
    Replica& rep = *replicas_[static_cast<size_t>(r)];
    try {
      StreamScope on_stream(rep.stream);
      replica_step(rep, batch, plan, r, train, inv_global, top_k);
    } catch (const CollectiveAborted&) {
      throw;
    } catch (const std::exception& e) {
      if (const std::string needed = cuda_out_of_memory(e); !needed.empty())
        rethrow_out_of_memory(devices_[static_cast<size_t>(r)], needed);
      throw;
    }
  });
  StepResult total;
  for (const auto& rep : replicas_) {
    total.sums.add(rep->sums);
    if (train) total.replicas.push_back(rep->timing);
    if (!train && rep->top.k > 0) append_top(total.top, rep->top);
  }
  if (train) total.stop_asked = stop_asked_;
  if (processes_ > 1 && train) read_record(total, plan);
  if (processes_ > 1 && !train) gather_evaluation(total);
  return total;
}

void MirroredStrategy::read_record(StepResult& total, const ShardPlan& plan) const {
  // Every replica holds the same record after the all-reduce.
  const auto record = replicas_[0]->record.to(torch::kCPU);
  const float* v = record.data_ptr<float>();
  const int all = total_replicas();
  total.sums = MetricSums{};
  total.replicas.clear();
  for (int g = 0; g < all; ++g) {
    const float* slot = v + StepRecord::slot(g);
    const float* metrics = slot + StepRecord::kMetrics;
    total.sums.add(MetricSums{plan.size(g), metrics[0], static_cast<int64_t>(metrics[1]), static_cast<int64_t>(metrics[2])});
    const int local = g - first_replica_;
    if (local >= 0 && local < num_replicas()) {
      total.replicas.push_back(replicas_[static_cast<size_t>(local)]->timing);
      continue;
    }
    // To the microsecond: float32 carries about seven digits, the rest would be noise.
    const float* times = slot + StepRecord::kTimes;
    auto ms = [&](int k) { return std::round(static_cast<double>(times[k]) * 1000.0) / 1000.0; };
    total.replicas.push_back(ReplicaTiming{g, plan.size(g), ms(0), ms(1), ms(2), ms(3)});
  }
  total.stop_asked = v[StepRecord::stop(all)] > 0;
}

void MirroredStrategy::gather_evaluation(StepResult& total) {
  constexpr size_t kHeader = 6;  // the sums, then k and the examples of the predictions that follow
  const int64_t examples = total.top.examples();
  std::vector<double> mine = {static_cast<double>(total.sums.samples), total.sums.loss_sum,
                              static_cast<double>(total.sums.correct), static_cast<double>(total.sums.top_k_correct),
                              static_cast<double>(total.top.k), static_cast<double>(examples)};
  // This process's examples' top predictions, pairs of (class, probability). The processes'
  // shares of a batch differ by up to one example per replica, and an allgather takes one
  // length from all: every process pads to the largest share.
  double largest = 0;
  for (const auto& n : workers_->allgather({static_cast<double>(examples)})) largest = std::max(largest, n[0]);
  for (size_t i = 0; i < total.top.classes.size(); ++i)
    mine.insert(mine.end(), {static_cast<double>(total.top.classes[i]), static_cast<double>(total.top.probabilities[i])});
  mine.resize(kHeader + 2 * static_cast<size_t>(kTopPredictions) * static_cast<size_t>(largest), 0.0);
  StepResult all;
  for (const auto& v : workers_->allgather(mine)) {
    all.sums.add(MetricSums{static_cast<int64_t>(v[0]), v[1], static_cast<int64_t>(v[2]), static_cast<int64_t>(v[3])});
    TopPredictions theirs;
    theirs.k = static_cast<int>(v[4]);
    const auto values = static_cast<size_t>(v[5]) * static_cast<size_t>(std::max(0, theirs.k));
    for (size_t at = kHeader; at + 2 <= v.size() && at < kHeader + 2 * values; at += 2) {
      theirs.classes.push_back(static_cast<int32_t>(v[at]));
      theirs.probabilities.push_back(static_cast<float>(v[at + 1]));
    }
    if (theirs.k > 0) append_top(all.top, theirs);
  }
  total.sums = all.sums;
  total.top = std::move(all.top);
}

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

torch::Tensor MirroredStrategy::predict(const torch::Tensor& x) {
  Replica& rep = *replicas_[0];
  torch::NoGradGuard no_grad;
  rep.model->eval();
  auto probs = torch::softmax(rep.model->forward(x.to(rep.device)), /*dim=*/1).to(torch::kCPU, torch::kFloat32);
  rep.model->train();
  return probs;
}

std::vector<uint64_t> MirroredStrategy::check_sync() {
  const uint64_t reference = fnv1a(replicas_[0]->flat_params);
  std::vector<uint64_t> checksums = {reference};
  for (int r = 1; r < num_replicas(); ++r) {
    const auto& p = replicas_[static_cast<size_t>(r)]->flat_params;
    checksums.push_back(fnv1a(p));
    if (checksums.back() == reference) continue;
    torch::NoGradGuard no_grad;
    auto diff = (p.to(torch::kCPU) - replicas_[0]->flat_params.to(torch::kCPU)).abs();
    const int64_t differing = diff.ne(0).sum().item<int64_t>();
    throw SyncError(fmt::format(
        "replicas out of sync after step {}: replica {} differs from replica 0 in {} of {} parameters "
        "(max |difference| {:.3g}). Mirrored replicas must stay bit-identical; this is a bug or memory "
        "corruption, so the run stops rather than train on inconsistent copies",
        steps_, r, differing, p.numel(), diff.max().item<double>()));
  }
  if (processes_ <= 1) return checksums;
  // Across processes: every process's replicas against process 0's, by checksum.
  const auto all = workers_->allgather({static_cast<double>(reference >> 32), static_cast<double>(reference & 0xffffffffu)});
  std::vector<uint64_t> everyone;
  for (int p = 0; p < processes_; ++p) {
    const auto& v = all[static_cast<size_t>(p)];
    if (p == process_) everyone.insert(everyone.end(), checksums.begin(), checksums.end());
    else everyone.insert(everyone.end(), static_cast<size_t>(num_replicas()), (static_cast<uint64_t>(v[0]) << 32) | static_cast<uint64_t>(v[1]));
  }
  for (int p = 1; p < processes_; ++p)
    if (all[static_cast<size_t>(p)] != all[0])
      throw SyncError(fmt::format(
          "replicas out of sync after step {}: the replicas of process {} (on {}) differ from those of process 0. "
          "Mirrored replicas must stay bit-identical; this is a bug or memory corruption, so the run stops rather "
          "than train on inconsistent copies",
          steps_, p, workers_->hosts().at(static_cast<size_t>(p))));
  return everyone;
}

}  // namespace mirror
