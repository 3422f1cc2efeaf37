#include "mirror/strategy/communicator.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>

#include "mirror/strategy/barrier.h"
#include "mirror/strategy/gpu.h"
#include "mirror/util/error.h"

#ifdef MIRROR_HAVE_NCCL
#include "nccl_communicator.h"
#endif

namespace mirror {

std::shared_ptr<Work> completed_work() {
  class Completed : public Work {
   public:
    void wait() override {}
    bool is_completed() const override { return true; }
  };
  static const auto done = std::make_shared<Completed>();
  return done;
}

namespace {
// GPU tensors: the calling rank's queued work on them must finish before another rank's thread
// reads or writes them (each replica runs on its own stream). Nothing for CPU tensors.
void finish_queued_work(const std::vector<torch::Tensor>& tensors) {
  if (!tensors.empty()) synchronize_stream_of(tensors.front());
}


// Base for in-process backends: ranks publish their tensor lists, then meet at barriers.
class InProcessCommunicator : public Communicator {
 public:
  explicit InProcessCommunicator(int world_size)
      : world_size_(world_size), barrier_(world_size), slots_(static_cast<size_t>(world_size)) {}

  std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) override {
    if (rank < 0 || rank >= world_size_)
      throw std::invalid_argument(fmt::format("{}: rank {} outside [0, {})", name(), rank, world_size_));
    slots_[static_cast<size_t>(rank)] = &tensors;  // read by others only between the two barriers
    finish_queued_work(tensors);
    barrier_.arrive_and_wait();
    check_shapes(rank);
    reduce(rank);
    finish_queued_work(tensors);
    barrier_.arrive_and_wait();
    return completed_work();
  }
  void abort(const std::string& reason) override { barrier_.abort(reason); }
  void reset() override { barrier_.reset(); }
  int world_size() const override { return world_size_; }

 protected:
  // Called on every rank between the barriers; afterwards every rank's tensors hold the sum.
  virtual void reduce(int rank) = 0;
  std::vector<torch::Tensor>& slot(int rank) { return *slots_[static_cast<size_t>(rank)]; }

 private:
  // Every rank checks every rank, so all of them fail together, before any data is touched.
  void check_shapes(int rank) {
    auto& first = slot(0);
    for (int q = 1; q < world_size_; ++q) {
      auto& other = slot(q);
      if (other.size() != first.size())
        throw RunError(fmt::format("{}: rank {} reduces {} tensors but rank 0 reduces {} (seen by rank {})", name(),
                                   q, other.size(), first.size(), rank));
      for (size_t i = 0; i < other.size(); ++i)
        if (other[i].sizes() != first[i].sizes() || other[i].scalar_type() != first[i].scalar_type() ||
            !other[i].is_contiguous() || !first[i].is_contiguous())
          throw RunError(fmt::format("{}: tensor {} of rank {} does not match rank 0's", name(), i, q));
    }
  }

  const int world_size_;
  AbortableBarrier barrier_;
  std::vector<std::vector<torch::Tensor>*> slots_;
};

// TensorFlow's fallback: gather to replica 0, sum there, broadcast back. Works across any mix of
// devices (including logical GPUs sharing one card, where NCCL refuses two ranks).
class ReduceToOneCommunicator : public InProcessCommunicator {
 public:
  explicit ReduceToOneCommunicator(int world_size) : InProcessCommunicator(world_size), phase_(world_size) {}
  std::string name() const override { return "reduce-to-one"; }
  void abort(const std::string& reason) override {
    phase_.abort(reason);
    InProcessCommunicator::abort(reason);
  }
  void reset() override {
    phase_.reset();
    InProcessCommunicator::reset();
  }

 protected:
  void reduce(int rank) override {
    if (rank == 0) {
      auto& root = slot(0);
      for (size_t i = 0; i < root.size(); ++i)
        for (int q = 1; q < world_size(); ++q) root[i].add_(slot(q)[i].to(root[i].device()));
      finish_queued_work(root);
    }
    phase_.arrive_and_wait();
    if (rank != 0) {
      auto& mine = slot(rank);
      for (size_t i = 0; i < mine.size(); ++i) mine[i].copy_(slot(0)[i]);
    }
  }

 private:
  AbortableBarrier phase_;  // separates the sum on rank 0 from the copies out of it
};

// Reduce-scatter + all-gather in shared memory: each tensor is cut into buckets, and every rank
// sums its own 1/N slice of each bucket over all ranks (in rank order, into rank 0's buffer) and
// writes the result to every rank's buffer. All ranks work at once; no rank is a bottleneck.
class SharedMemoryCommunicator : public InProcessCommunicator {
 public:
  SharedMemoryCommunicator(int world_size, int64_t bucket_bytes)
      : InProcessCommunicator(world_size), bucket_bytes_(std::max<int64_t>(bucket_bytes, 4096)) {}
  std::string name() const override { return "shared-memory"; }

 protected:
  void reduce(int rank) override {
    const int n = world_size();
    auto& root = slot(0);
    for (size_t i = 0; i < root.size(); ++i) {
      const int64_t numel = root[i].numel();
      const int64_t bucket = std::max<int64_t>(1, bucket_bytes_ / static_cast<int64_t>(root[i].element_size()));
      auto root_flat = root[i].view(-1);
      for (int64_t begin = 0; begin < numel; begin += bucket) {
        const int64_t len = std::min(bucket, numel - begin);
        const int64_t lo = begin + len * rank / n;
        const int64_t hi = begin + len * (rank + 1) / n;
        if (hi <= lo) continue;
        auto acc = root_flat.slice(0, lo, hi);
        for (int q = 1; q < n; ++q) acc.add_(slot(q)[i].view(-1).slice(0, lo, hi));
        for (int q = 1; q < n; ++q) slot(q)[i].view(-1).slice(0, lo, hi).copy_(acc);
      }
    }
  }

 private:
  int64_t bucket_bytes_;
};

class SingleReplicaCommunicator : public Communicator {
 public:
  std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>&) override {
    if (rank != 0) throw std::invalid_argument("single-replica communicator: rank must be 0");
    return completed_work();
  }
  void abort(const std::string&) override {}
  void reset() override {}
  int world_size() const override { return 1; }
  std::string name() const override { return "none"; }
};

bool all_cpu(const std::vector<LogicalDevice>& devices) {
  return std::all_of(devices.begin(), devices.end(),
                     [](const LogicalDevice& d) { return d.physical.type == DeviceType::kCpu; });
}

// A backend the code knows but this build lacks: listed with `why` ("needs a CUDA LibTorch"),
// never chosen, and a ConfigError that says so when asked for.
[[maybe_unused]] CommunicatorBackend backend_not_in_build(const std::string& name, const std::string& summary, const std::string& why) {
  CommunicatorBackend b;
  b.name = name;
  b.summary = summary;
  b.not_in_build = why;
  b.unavailable = [why](const std::vector<LogicalDevice>&) { return "not in this build: " + why; };
  b.make = [name, why](const CommunicatorSpec&) -> std::unique_ptr<Communicator> {
    throw ConfigError(fmt::format("this build has no {} communicator: it {}", name, why));
  };
  return b;
}

[[maybe_unused]] constexpr const char* kNcclSummary =
    "NVIDIA NCCL all-reduce: one replica per physical GPU, in one process";

std::vector<CommunicatorBackend> built_in_backends() {
  std::vector<CommunicatorBackend> b;
  b.push_back({"none", "one replica: nothing to reduce",
               [](const std::vector<LogicalDevice>& d) {
                 return d.size() > 1 ? std::string("serves one replica only") : std::string();
               },
               0, "",
               [](const CommunicatorSpec& s) -> std::unique_ptr<Communicator> {
                 if (s.world_size != 1) throw ConfigError("the 'none' communicator serves one replica only");
                 return std::make_unique<SingleReplicaCommunicator>();
               },
               /*not_in_build=*/""});
  b.push_back({"reduce-to-one",
               "gather to replica 0, sum there, broadcast back (TensorFlow's fallback); any mix of devices",
               [](const std::vector<LogicalDevice>&) { return std::string(); }, 10,
               "reduce-to-one: logical devices share a physical device (NCCL needs one rank per GPU)",
               [](const CommunicatorSpec& s) -> std::unique_ptr<Communicator> {
                 return std::make_unique<ReduceToOneCommunicator>(s.world_size);
               },
               /*not_in_build=*/""});
  b.push_back({"shared-memory", "each replica thread sums its own slice of every bucket; CPU replicas in one process",
               [](const std::vector<LogicalDevice>& d) {
                 return all_cpu(d) ? std::string() : std::string("needs CPU replicas; use reduce-to-one for GPUs");
               },
               20, "shared-memory: all replicas are CPU threads in one process, so each reduces its own slice",
               [](const CommunicatorSpec& s) -> std::unique_ptr<Communicator> {
                 return std::make_unique<SharedMemoryCommunicator>(s.world_size, s.bucket_bytes);
               },
               /*not_in_build=*/""});
#ifdef MIRROR_HAVE_NCCL
  b.push_back(nccl_backend());
#elif defined(MIRROR_HAVE_CUDA_TORCH)
  b.push_back(backend_not_in_build("nccl", kNcclSummary,
                                   "needs NCCL (nccl.h and libnccl) when it is built (README: Building against a "
                                   "CUDA LibTorch)"));
#else
  b.push_back(backend_not_in_build("nccl", kNcclSummary,
                                   "needs a CUDA LibTorch (README: Building against a CUDA LibTorch)"));
#endif
  return b;
}

// The choices for --communicator: "auto, none, ...", without the backends this build lacks.
std::string backend_names(const std::vector<CommunicatorBackend>& backends) {
  std::string names = "auto";
  for (const auto& b : backends)
    if (b.not_in_build.empty()) names += ", " + b.name;
  return names;
}

std::string not_in_build_error(const CommunicatorBackend& b) {
  return fmt::format("this build has no {} communicator: it {}; choose {}", b.name, b.not_in_build,
                     backend_names(CommunicatorRegistry::instance().backends()));
}
}  // namespace

CommunicatorRegistry::CommunicatorRegistry() : backends_(built_in_backends()) {}

CommunicatorRegistry& CommunicatorRegistry::instance() {
  static CommunicatorRegistry registry;
  return registry;
}

void CommunicatorRegistry::add(CommunicatorBackend backend) {
  std::lock_guard lock(mutex_);
  if (backend.name.empty() || backend.name == "auto" || !backend.make || !backend.unavailable)
    throw std::invalid_argument("communicator backend: give a name (not 'auto'), an availability check and a factory");
  for (const auto& b : backends_)
    if (b.name == backend.name)
      throw std::invalid_argument(fmt::format("communicator backend '{}' is already registered", backend.name));
  backends_.push_back(std::move(backend));
}

void CommunicatorRegistry::remove(const std::string& name) {
  std::lock_guard lock(mutex_);
  // erase-remove rather than std::erase_if: the fuzz project builds this file as C++17.
  backends_.erase(std::remove_if(backends_.begin(), backends_.end(), [&](const CommunicatorBackend& b) { return b.name == name; }),
                  backends_.end());
}

std::optional<CommunicatorBackend> CommunicatorRegistry::find(const std::string& name) const {
  std::lock_guard lock(mutex_);
  for (const auto& b : backends_)
    if (b.name == name) return b;
  return std::nullopt;
}

std::vector<CommunicatorBackend> CommunicatorRegistry::backends() const {
  std::lock_guard lock(mutex_);
  return backends_;
}

std::vector<std::string> CommunicatorRegistry::available_multi_replica(const std::vector<LogicalDevice>& devices) const {
  const std::vector<LogicalDevice> probe =
      devices.empty() ? std::vector<LogicalDevice>{LogicalDevice{PhysicalDevice{}, 0, 2}, LogicalDevice{PhysicalDevice{}, 1, 2}} : devices;
  std::vector<std::string> names;
  for (const auto& b : backends())
    if (b.unavailable(probe).empty()) names.push_back(b.name);
  return names;
}

namespace {
// The backend called `name`; ConfigError listing the choices when there is none.
CommunicatorBackend backend_named(const std::string& name) {
  if (auto b = CommunicatorRegistry::instance().find(name)) {
    if (!b->not_in_build.empty()) throw ConfigError(not_in_build_error(*b));
    return *b;
  }
  throw ConfigError(fmt::format("unknown communicator '{}' (choose {})", name,
                                backend_names(CommunicatorRegistry::instance().backends())));
}
}  // namespace

void check_communicator_name(const std::string& name) {
  if (name != "auto") backend_named(name);
}

CommunicatorChoice choose_communicator(const std::string& requested, const std::vector<LogicalDevice>& devices) {
  if (devices.empty()) throw ConfigError("no devices to train on");
  check_communicator_name(requested);
  if (devices.size() == 1) return {"none", "one replica: nothing to reduce"};
  const auto& registry = CommunicatorRegistry::instance();
  if (requested != "auto") {
    const CommunicatorBackend b = backend_named(requested);
    if (const std::string why = b.unavailable(devices); !why.empty())
      throw ConfigError(fmt::format("the {} communicator cannot serve these {} replicas: {}", b.name, devices.size(), why));
    return {b.name, b.name + ": requested"};
  }
  std::optional<CommunicatorBackend> best;
  for (const auto& b : registry.backends())
    if (b.auto_rank > 0 && b.unavailable(devices).empty() && (!best || b.auto_rank > best->auto_rank)) best = b;
  if (!best) throw ConfigError(fmt::format("no communicator can reduce across these {} replicas", devices.size()));
  return {best->name, best->auto_reason};
}

std::unique_ptr<Communicator> make_communicator(const std::string& name, const CommunicatorSpec& spec) {
  if (spec.world_size < 1) throw std::invalid_argument("communicator: world size must be >= 1");
  if (name == "auto") throw std::invalid_argument("make_communicator: resolve 'auto' with choose_communicator first");
  return backend_named(name).make(spec);
}

}  // namespace mirror
