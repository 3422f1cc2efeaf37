// Building the mirrored strategy: its options checked, the communicator chosen, one replica per
// device with flat parameter and gradient buffers, and one thread per replica.
// Tested by tests/core/strategy/test_mirrored.cpp.
#include "replica.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include "backward_overlap.h"
#include "graph_step.h"
#include "memory_fit.h"
#include "simulated_link_communicator.h"
#include "mirror/model/builder.h"
#include "mirror/strategy/cuda_graphs.h"
#include "mirror/strategy/hierarchical_communicator.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/replica_pool.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "mirror/util/memory.h"
#include "mirror/util/threads.h"
#include "step_record.h"

namespace mirror {

namespace {
// LibTorch's default generator is process-wide; model construction must not interleave.
std::mutex& model_init_mutex() {
  static std::mutex m;
  return m;
}

// Moves every parameter into one contiguous buffer (and every gradient into another, followed by
// `record_size` more values for the step record) so that the all-reduce, the optimizer and the
// sync check each work on a single tensor.
void flatten_parameters(Replica& r, int64_t record_size) {
  torch::NoGradGuard no_grad;
  auto params = r.model->parameters();
  int64_t total = 0;
  for (const auto& p : params) total += p.numel();
  auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(r.device->torch_device());
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

// Process-wide settings for the replicas' devices, before any replica is built: each can train
// here, deterministic algorithms when asked, the GPUs' memory caps.
void prepare_devices(const std::vector<std::unique_ptr<ReplicaDevice>>& devices, bool deterministic,
                     Precision precision) {
  for (const auto& d : devices) {
    if (const std::string why = d->unusable(); !why.empty())
      throw ConfigError(fmt::format("cannot train on {}: {}", d->logical().name(), why));
    if (precision == Precision::kMixedBf16)
      if (const std::string why = d->bf16_unsupported(); !why.empty())
        throw ConfigError(fmt::format("cannot train in mixed-bf16 on {}: {}", d->logical().name(), why));
  }
  if (deterministic) {
    for (const auto& d : devices) d->make_deterministic();
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  }
  GpuMemoryCaps caps;
  for (const auto& d : devices) d->add_memory_cap(caps);
  caps.apply();
}
}  // namespace

std::unique_ptr<Replica> build_replica(std::unique_ptr<ReplicaDevice> device, const ModelAnalysis& model,
                                       uint64_t dropout_seed, int64_t record_size, Precision precision) {
  auto rep = std::make_unique<Replica>();
  rep->device = std::move(device);
  rep->dropout_rng = make_dropout_generator(rep->device->torch_device(), dropout_seed);
  rep->model = build_model(model, rep->dropout_rng, /*cpu_kernels=*/true, precision);
  try {
    rep->model->to(rep->device->torch_device());
    flatten_parameters(*rep, record_size);
  } catch (const std::exception& e) {
    rep->device->throw_if_out_of_memory(e);
    throw;
  }
  rep->device->open();
  return rep;
}

void append_top(TopPredictions& into, const TopPredictions& part) {
  into.k = part.k;
  into.classes.insert(into.classes.end(), part.classes.begin(), part.classes.end());
  into.probabilities.insert(into.probabilities.end(), part.probabilities.begin(), part.probabilities.end());
}

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
  std::vector<std::unique_ptr<ReplicaDevice>> replica_devices;
  for (const auto& d : devices_) replica_devices.push_back(ReplicaDevice::for_replica(d, devices_));
  check_model_fits(model, replica_devices);
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
    const auto& first = devices_.front().physical;
    std::string across;
    auto cross = workers_->communicator_for(first.type == DeviceType::kCuda ? first.index : -1, &across);
    auto hierarchical = std::make_unique<HierarchicalCommunicator>(std::move(communicator_), std::move(cross), process_);
    hierarchical_ = hierarchical.get();
    communicator_ = std::move(hierarchical);
    choice_.reason = fmt::format("{}{}across {} processes: {}", choice_.reason, choice_.reason.empty() ? "" : "; ",
                                 processes_, across);
    choice_.name = communicator_->name();
  }
  // The classroom what-if: every all-reduce also waits what the simulated link would take.
  if (options_.link) {
    communicator_ = std::make_unique<SimulatedLinkCommunicator>(std::move(communicator_), *options_.link, n * processes_);
    choice_.reason += fmt::format("{}each all-reduce then waits as over a simulated link, {}",
                                  choice_.reason.empty() ? "" : "; ", options_.link->describe());
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
  prepare_devices(replica_devices, options_.deterministic, options_.precision);

  {
    std::lock_guard lock(model_init_mutex());
    torch::manual_seed(seed);
    const int64_t record_size = processes_ > 1 ? StepRecord::size(n * processes_) : 0;
    for (int r = 0; r < n; ++r) {
      // Each replica drops out with its own stream, derived from the run's seed.
      const uint64_t dropout_seed = seed * 1000003ull + static_cast<uint64_t>(first_replica_ + r) + 1;
      replicas_.push_back(
          build_replica(std::move(replica_devices[static_cast<size_t>(r)]), model, dropout_seed, record_size,
                                       options_.precision));
    }
  }
  {
    // Mirror replica 0's initial weights everywhere: the replicas start bit-identical.
    torch::NoGradGuard no_grad;
    for (int r = 1; r < n; ++r) replicas_[static_cast<size_t>(r)]->flat_params.copy_(replicas_[0]->flat_params);
  }
  for (auto& rep : replicas_) rep->optimizer = make_optimizer(optimizer, rep->flat_params);
  for (const auto& p : replicas_[0]->model->parameters()) segments_.push_back(p.numel());
  if (hierarchical_ &&
      std::all_of(devices_.begin(), devices_.end(), [](const LogicalDevice& d) { return d.physical.type == DeviceType::kCpu; }))
    plan_cross_process_exchange(model);
  // Weights and slots were written on the default stream; replica streams do not wait for it.
  for (auto& rep : replicas_) rep->device->synchronize();
  const int threads = threads_per_replica_;
  pool_ = std::make_unique<ReplicaPool>(n, [threads](int) { apply_thread_budget(threads); });
  start_cuda_graphs();
}

void MirroredStrategy::plan_cross_process_exchange(const ModelAnalysis& model) {
  // The embedding tables' places in the flat gradients, for the rows-only exchange.
  std::set<std::string> tables;
  if (options_.sparse_exchange)
    for (const auto& l : model.layers)
      if (l.resolved.kind == LayerKind::kEmbedding) tables.insert(l.name + ".weight");
  std::vector<RowSegment> rows;
  std::vector<bool> in_buckets;
  int64_t offset = 0;
  for (const auto& p : replicas_[0]->model->named_parameters()) {
    const bool as_rows = tables.count(p.key()) && p.value().dim() == 2;
    if (as_rows) rows.push_back({offset, p.value().size(0), p.value().size(1)});
    in_buckets.push_back(!as_rows);
    offset += p.value().numel();
  }
  hierarchical_->exchange_rows_sparsely(std::move(rows));
  // One replica here: its gradients are the process's as backward hands them over, so the last
  // layers' may cross while backward computes the first ones'.
  if (!options_.backward_overlap || replicas_.size() != 1) return;
  Replica& rep = *replicas_[0];
  overlap_ = std::make_unique<BackwardOverlap>(rep.model->parameters(), rep.flat_grads, in_buckets,
                                               hierarchical_->cross(), process_);
  hierarchical_->leave_out(overlap_->ranges());
}

void MirroredStrategy::start_cuda_graphs() {
  GraphFacts facts;
#ifdef MIRROR_HAVE_CUDA_GRAPHS
  facts.built = true;
#endif
  std::set<int> gpus;
  facts.on_gpu = std::all_of(devices_.begin(), devices_.end(),
                             [](const LogicalDevice& d) { return d.physical.type == DeviceType::kCuda; });
  for (const auto& d : devices_)
    if (d.physical.type == DeviceType::kCuda) gpus.insert(d.physical.index);
  facts.physical_gpus = static_cast<int>(gpus.size());
  facts.processes = processes_;
  facts.simulated_link = options_.link.has_value();
  facts.clips_by_norm = optimizer_.clipnorm > 0 || optimizer_.global_clipnorm > 0;
  const GraphDecision decision = decide_cuda_graphs(options_.cuda_graphs, facts);
  graph_status_ = decision.status;
  if (!decision.capture) return;
  std::vector<Replica*> replicas;
  for (auto& rep : replicas_) replicas.push_back(rep.get());
  graph_ = std::make_unique<GraphStep>(std::move(replicas), first_replica_, top_k_);
}

MirroredStrategy::~MirroredStrategy() {
  graph_.reset();
  pool_.reset();
}

int MirroredStrategy::num_replicas() const { return static_cast<int>(replicas_.size()); }

}  // namespace mirror
