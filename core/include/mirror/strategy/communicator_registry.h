#pragma once
// The all-reduce backends this code knows, and which one serves a run: names, one-line
// summaries, availability and the choice of `auto`. Light on purpose: no torch, so the CLI's
// `devices` and the window's Devices tab can list backends without paying for LibTorch. The
// Communicator interface itself is in communicator.h.

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mirror/strategy/device.h"

namespace mirror {

class Communicator;

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
  // CPU replicas"; "not in this build: needs a CUDA LibTorch"); empty when it can. Must not throw.
  std::function<std::string(const std::vector<LogicalDevice>& devices)> unavailable;
  // `auto` picks, among the backends available for the devices, the one with the highest
  // positive rank, and says `auto_reason` for it. Zero or less: only when asked for by name.
  int auto_rank = 0;
  std::string auto_reason;
  // Builds a communicator; throws ConfigError when the spec does not suit it.
  std::function<std::unique_ptr<Communicator>(const CommunicatorSpec& spec)> make;
  // Empty when this build has the backend; else what it would need, in a few words ("needs a
  // CUDA LibTorch"). Such a backend is listed (the CLI's `devices`, the Devices tab) but never
  // chosen: asking for it by name is a ConfigError that says this.
  std::string not_in_build;
};

// Every all-reduce backend the code knows, including those this build lacks (they say why). A
// new backend (NCCL, c10d across processes, a test fake) registers itself here; `auto`, the CLI,
// the Devices tab and the tests all read this list. Thread-safe.
class CommunicatorRegistry {
 public:
  // The process-wide registry, with the built-in backends (none, reduce-to-one, shared-memory,
  // nccl).
  static CommunicatorRegistry& instance();
  // Throws std::invalid_argument when a backend of that name is already registered.
  void add(CommunicatorBackend backend);
  // Removes a backend (tests that registered their own); unknown names are ignored.
  void remove(const std::string& name);
  // A copy of the backend called `name`; nullopt when there is none.
  std::optional<CommunicatorBackend> find(const std::string& name) const;
  // Every backend, in registration order, whether this build has it or not.
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

// Throws ConfigError unless `name` is "auto" or a registered backend this build has, listing the
// choices (or saying what a backend this build lacks would need).
void check_communicator_name(const std::string& name);

// Picks the backend for these replicas: one replica needs none ("none"); `auto` takes the
// best-ranked available backend; an explicit request is honoured when it can run here, else
// ConfigError says why.
CommunicatorChoice choose_communicator(const std::string& requested, const std::vector<LogicalDevice>& devices);

}  // namespace mirror
