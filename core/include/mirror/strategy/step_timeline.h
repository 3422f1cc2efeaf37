#pragma once
// One training step on one clock: when each replica started, copied its shard, finished its
// forward and backward passes, entered and left the all-reduce and finished its update; when each
// process exchanged gradients with the others; and what the trainer did around the step that is
// not training (a pace wait, a pause, a validation). Light on purpose (no torch): the window's
// Strategy tab, the trace export and the what-if model read it.
//
// The clock: milliseconds from the step's start in the reporting process (the moment its trainer
// began the step: batch gathered and handed to the replicas after it). CPU replicas read
// steady_clock; GPU replicas CUDA events relative to a per-step start event. Another process's
// replicas are placed on this clock by the exchange itself: every process leaves the cross-process
// all-reduce at (nearly) the same moment, so its offset is the difference of the two "left the
// exchange" marks (ProcessSpans::offset_ms, recorded with the step).

#include <cstdint>
#include <string>
#include <vector>

namespace mirror {

// One replica's moments within a step, in order: started <= copied <= forward_done <=
// gradients_ready (it enters the all-reduce) <= reduced (it leaves it) <= updated.
struct ReplicaMarks {
  int replica = 0;       // its place among all processes' replicas
  int process = 0;       // the process it runs in
  int64_t shard_size = 0;
  double started = 0;
  double copied = 0;
  double forward_done = 0;
  double gradients_ready = 0;
  double reduced = 0;
  double updated = 0;

  double copy_ms() const { return copied - started; }
  double forward_ms() const { return forward_done - copied; }
  double backward_ms() const { return gradients_ready - forward_done; }
  double compute_ms() const { return gradients_ready - started; }
  double allreduce_ms() const { return reduced - gradients_ready; }
  double update_ms() const { return updated - reduced; }
};

// What is not training but took time around a step; never counted as compute or all-reduce.
enum class IdleKind : uint8_t { kPace, kPause, kEvaluation };
const char* idle_kind_name(IdleKind kind);  // "pace", "pause", "evaluation"

struct IdleSpan {
  IdleKind kind = IdleKind::kPace;
  int process = 0;
  double begin = 0;  // on the step's clock: before the step, so negative
  double end = 0;
};

// One process's part of the step. Its times, like its replicas' marks, are already on the
// reporting clock: offset_ms is what was added to its own clock to put them there.
struct ProcessSpans {
  int process = 0;
  double offset_ms = 0;          // added to its own clock to place it on the reporting one (0 for itself)
  double exchange_begin = 0;     // its first replica entered the cross-process exchange (several processes)
  double exchange_end = 0;       // and left it (the processes' ends agree: they align the clocks); 0 in one process
  double step_end = 0;           // its step ended (every replica updated, results read back)
  // Buckets all-reduced during backward (BackwardOverlap): the first started and the last finished;
  // both 0 when none was.
  double overlap_begin = 0;
  double overlap_end = 0;
};

struct StepTimeline {
  int64_t global_step = 0;  // the training step it describes, 1-based; 0: none
  // Several processes: another process's times travel with the next step's gradients, so the
  // timeline reported with step N describes step N-1 (global_step says which).
  std::vector<ReplicaMarks> replicas;   // in replica order over all processes
  std::vector<ProcessSpans> processes;  // in process order
  std::vector<IdleSpan> idle;           // before this step, oldest first; the reporting process's only
  bool simulated_link = false;          // an all-reduce delay was added by --link (the what-if)
  double simulated_allreduce_ms = 0;    // then: the modelled time added to each all-reduce

  bool empty() const { return replicas.empty(); }
  // The replica that entered the all-reduce last (the one the others waited for); -1 when empty.
  int last_to_arrive() const;
  // The replica that entered first (waited longest).
  int first_to_arrive() const;
  // When the step ended on the clock: the latest of the replicas' marks and the processes' ends.
  double end_ms() const;
};

// Why the last replica to arrive was late, in words from the same numbers ("its shard was larger:
// 9 examples against 8", "it runs in another process", "its compute took 3.2 ms against 0.4 ms"),
// and the sentence the Strategy tab shows ("Replica 2 arrived last at the all-reduce, 3.1 ms after
// replica 0: ..."). Empty when the timeline has fewer than 2 replicas.
std::string straggler_sentence(const StepTimeline& t);

}  // namespace mirror
