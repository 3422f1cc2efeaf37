#pragma once
// How the mirrored strategy runs: which all-reduce, how often to check the replicas agree, the
// threads per replica. Plain values, no torch.

#include <cstdint>
#include <optional>
#include <string>

#include "mirror/model/precision.h"
#include "mirror/strategy/link_model.h"

namespace mirror {

struct MirroredOptions {
  std::string communicator = "auto";  // "auto" or a registered backend (CommunicatorRegistry)
  int sync_check_every = 100;      // steps between parameter-sync checks; 0 disables
  int64_t bucket_bytes = 1 << 20;  // shared-memory all-reduce bucket size
  int intra_op_threads = 0;        // per replica; 0: chosen (see intra_op_threads_per_replica)
  // Examples of a replica's shard in a training step, which the thread choice weighs; set by the
  // trainer from the global batch (not part of a recorded config). 0: unknown.
  int64_t shard_examples = 0;
  bool deterministic = false;      // deterministic algorithms only (same seed, same numbers)
  int top_k = 5;                   // k of the top-k accuracy (clamped to the number of classes)
  // Teaching and tests only ("Broken sync" lesson): after this training step, nudge one parameter
  // of the last replica once, so the next sync check catches the copies drifting apart. 0: never.
  int64_t perturb_replica_at_step = 0;
  // The classroom what-if (`train --link`): after each real all-reduce, every replica waits for the
  // time the ring formula gives for the gradient bytes over this link and all replicas of the run,
  // so a run on logical devices behaves as if its replicas were that far apart. Recorded with the
  // run and labelled simulated (link->simulated is true). nullopt: no delay.
  std::optional<LinkSpec> link;
  // The training step as one CUDA graph (strategy/cuda_graphs.h): "auto" captures it where it can
  // and runs eagerly elsewhere, saying why; "on" refuses a run it cannot capture; "off" never.
  std::string cuda_graphs = "auto";
  // Several processes of CPU replicas: embedding gradients cross between processes as the rows
  // the step touched (strategy/sparse_rows.h), summed into the same dense update; false: the
  // whole table, as every other gradient.
  bool sparse_exchange = true;
  // Several processes of one CPU replica each: the gradients of the last layers cross between the
  // processes while backward still computes the first ones (strategy/backward_overlap.h); false:
  // everything crosses after backward, in the step's one exchange.
  bool backward_overlap = true;
  // The number format the replicas compute in (model/precision.h): mixed-bf16 is refused, saying
  // why, on a CPU without AVX512_BF16/AMX-BF16 and on a GPU older than compute capability 8.0.
  Precision precision = Precision::kFloat32;
};

}  // namespace mirror
