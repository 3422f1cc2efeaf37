#pragma once
// What travels with the gradients in a run of several processes, so that a training step takes
// one collective across them, not three (the gradients, the step's results, a stop). Private to
// the strategy floor; MirroredStrategy::read_record reads it back (step_record.cpp).

#include <cstdint>

#include "mirror/strategy/step_result.h"

namespace mirror {

struct Replica;

// Every replica owns one slot of kFields values and leaves the others zero, so the all-reduce's
// sum hands every process every slot unchanged (x + 0 + ... = x, in float32 like the gradients):
//   [kMetrics, +3)  its shard's loss sum, arg-max hits and top-k hits in this step;
//   [kMarks, +6)    its marks of its previous training step (ReplicaMarks: started, copied,
//                   forward_done, gradients_ready, reduced, updated), in milliseconds on its
//                   process's step clock: this step's all-reduce has not happened when the record
//                   leaves. float32 keeps them to about a microsecond for steps up to 10 s;
//   [kMemory]       its memory (MiB) then;
//   [kProcess, +5)  the first replica of each process only: its process's exchange_begin,
//                   exchange_end, step_end, overlap_begin and overlap_end of that previous step,
//                   on the same clock.
// After the slots, one value counts the processes asked to stop during this step.
struct StepRecord {
  static constexpr int64_t kFields = 15;
  static constexpr int64_t kMetrics = 0;
  static constexpr int64_t kMarks = 3;
  static constexpr int64_t kMemory = 9;
  static constexpr int64_t kProcess = 10;
  static int64_t size(int replicas) { return kFields * replicas + 1; }
  static int64_t slot(int replica) { return kFields * replica; }
  static int64_t stop(int replicas) { return kFields * replicas; }
};

// Training, before the forward pass: zeroes the replica's gradients and record, then writes into
// slot `replica` (of `replicas` in all processes) its marks and memory of its previous training
// step, `process` (this process's spans of that step) when given, and, when `stop`, this
// process's stop. Only the gradients in one process (no record).
void start_step_record(Replica& rep, int replica, int replicas, bool stop, const ProcessSpans* process);
// Training, after the forward pass: the shard's metrics into slot `replica`. Nothing in one process.
void add_metrics_to_record(Replica& rep, int replica);

}  // namespace mirror
