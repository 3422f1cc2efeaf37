#pragma once
// Gradient all-reduce across replicas, behind one small c10d-shaped interface.

#include <torch/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mirror/strategy/device.h"

namespace mirror {

// An issued collective. In-process communicators finish their work inside allreduce_sum, so
// their Work is already complete; out-of-process ones (c10d) complete asynchronously.
class Work {
 public:
  virtual ~Work() = default;
  // Blocks until the collective has finished on this rank. Throws RunError on failure.
  virtual void wait() = 0;
  virtual bool is_completed() const = 0;
};

// The Work of a collective that finished inside the call (in-process backends, and those that
// wait before returning).
std::shared_ptr<Work> completed_work();

// A fixed group of `world_size` ranks (replica threads) that reduce together.
class Communicator {
 public:
  virtual ~Communicator() = default;

  // Collective: every rank in [0, world_size) calls this once per step from its own thread, with
  // tensors of identical count, shapes and dtypes (float32, contiguous). On completion each
  // rank's tensors hold the element-wise sum over ranks, bit-identical on every rank, summed in
  // rank order 0, 1, ..., N-1 (so results are deterministic). Tensors are modified in place and
  // stay owned by the caller. Throws CollectiveAborted if another rank called abort().
  virtual std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) = 0;

  // Wakes every rank blocked in a collective with CollectiveAborted. Thread-safe; idempotent.
  virtual void abort(const std::string& reason) = 0;
  // Makes the communicator usable again after an abort; call while no collective is in flight.
  virtual void reset() = 0;

  virtual int world_size() const = 0;
  virtual std::string name() const = 0;
};

// What a backend is given to build a communicator for one run's replicas.
struct CommunicatorSpec {
  int world_size = 1;                  // ranks: one per replica thread
  int64_t bucket_bytes = 1 << 20;      // for backends that reduce in buckets
  std::vector<LogicalDevice> devices;  // the replicas' devices, in rank order (may be empty in tests)
};

// One all-reduce backend, as the registry knows it.
struct CommunicatorBackend {
  std::string name;     // what --communicator, run.json and the Devices tab say: "shared-memory"
  std::string summary;  // one sentence: how it reduces
  // Why it cannot serve replicas on `devices` here, in one sentence a person can act on ("needs
  // CPU replicas"; "needs a LibTorch built with CUDA"); empty when it can. Must not throw.
  std::function<std::string(const std::vector<LogicalDevice>& devices)> unavailable;
  // `auto` picks, among the backends available for the devices, the one with the highest
  // positive rank, and says `auto_reason` for it. Zero or less: only when asked for by name.
  int auto_rank = 0;
  std::string auto_reason;
  // Builds a communicator; throws ConfigError when the spec does not suit it.
  std::function<std::unique_ptr<Communicator>(const CommunicatorSpec& spec)> make;
};

// The all-reduce backends this build knows. A new backend (NCCL, c10d across processes, a test
// fake) registers itself here; `auto`, the CLI, the Devices tab and the tests all read this list.
// Thread-safe.
class CommunicatorRegistry {
 public:
  // The process-wide registry, with the built-in backends (none, reduce-to-one, shared-memory).
  static CommunicatorRegistry& instance();
  // Throws std::invalid_argument when a backend of that name is already registered.
  void add(CommunicatorBackend backend);
  // Removes a backend (tests that registered their own); unknown names are ignored.
  void remove(const std::string& name);
  // A copy of the backend called `name`; nullopt when there is none.
  std::optional<CommunicatorBackend> find(const std::string& name) const;
  // Every backend, in registration order.
  std::vector<CommunicatorBackend> backends() const;
  // Names of the backends that can reduce across `world_size` > 1 replicas on these devices (CPU
  // devices when `devices` is empty): what the equivalence tests loop over.
  std::vector<std::string> available_multi_replica(const std::vector<LogicalDevice>& devices) const;

 private:
  CommunicatorRegistry();
  mutable std::mutex mutex_;
  std::vector<CommunicatorBackend> backends_;  // GUARDED_BY(mutex_)
};

struct CommunicatorChoice {
  std::string name = "none";
  std::string reason;  // one sentence a person can read, e.g. why NCCL is not used
};

// Throws ConfigError unless `name` is "auto" or a registered backend, listing the choices.
void check_communicator_name(const std::string& name);

// Picks the backend for these replicas: one replica needs none ("none"); `auto` takes the
// best-ranked available backend; an explicit request is honoured when it can run here, else
// ConfigError says why.
CommunicatorChoice choose_communicator(const std::string& requested, const std::vector<LogicalDevice>& devices);

// Creates the registered backend `name`'s communicator. Throws ConfigError for an unknown name
// or a spec it cannot serve; std::invalid_argument for "auto" (resolve it first).
std::unique_ptr<Communicator> make_communicator(const std::string& name, const CommunicatorSpec& spec);

}  // namespace mirror
