#pragma once
// Gradient all-reduce across replicas, behind one small c10d-shaped interface. The registry of
// backends (names, availability, the choice of `auto`) is communicator_registry.h, which needs no
// torch; include that one where only the list of backends is wanted.

#include <torch/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "mirror/strategy/communicator_registry.h"

namespace mirror {

// An issued collective. In-process communicators finish their work inside allreduce_sum, so
// their Work is already complete; out-of-process ones (c10d) complete asynchronously.
class Work {
 public:
  virtual ~Work() = default;
  // Blocks until the collective has finished on this rank. Throws RunError on failure.
  virtual void wait() = 0;
  virtual bool is_completed() const = 0;
  // When the collective finished, where the backend says (after wait()); else a zero time point.
  virtual std::chrono::steady_clock::time_point completed_at() const { return {}; }
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

// Creates the registered backend `name`'s communicator. Throws ConfigError for an unknown name
// or a spec it cannot serve; std::invalid_argument for "auto" (resolve it first).
std::unique_ptr<Communicator> make_communicator(const std::string& name, const CommunicatorSpec& spec);

}  // namespace mirror
