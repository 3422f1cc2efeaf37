#pragma once
// What a training run reports while it runs: plain value structs, safe to copy across threads.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/strategy/step_result.h"
#include "mirror/train/evaluation.h"

namespace mirror {

struct RunStarted {
  std::string dataset;
  std::string model;
  std::vector<std::string> devices;  // replica device names, in replica order
  std::string communicator;
  std::string communicator_reason;
  // How its steps run on a GPU: "the step is one CUDA graph, ...", "eager: <why>", "off (...)";
  // empty for CPU replicas (MirroredStrategy::cuda_graphs_status).
  std::string cuda_graphs;
  std::string precision;  // "float32" or "mixed-bf16" (model/precision.h)
  int intra_op_threads = 1;          // per replica
  std::string intra_op_threads_reason;  // why that many, in words
  int64_t parameters = 0;
  int64_t train_size = 0;
  int64_t val_size = 0;
  int64_t global_batch = 0;
  std::vector<int64_t> shard_sizes;  // of a full global batch
  int64_t steps_per_epoch = 0;
  int epochs = 0;
  int64_t max_steps = 0;    // the config's limit on global steps (0: none): the run may end mid-epoch
  int top_k = 5;            // k of the top-k accuracy, clamped to the classes
  int64_t num_classes = 0;  // 0: unknown
};

// One training step: what the trainer reports as it happens, what metrics.jsonl records, and what
// a reader of the record gets back (RunRecord.steps). The one step record of the project.
struct StepMetrics {
  int epoch = 0;                // 1-based
  int64_t step = 0;             // 1-based within the epoch (0: not recorded)
  int64_t steps_per_epoch = 0;  // 0 when read back (run.json has it)
  int64_t global_step = 0;      // 1-based over the run
  int64_t samples = 0;          // in this step's global batch
  int64_t samples_seen = 0;     // over the run, this step included
  double train_seconds = 0;     // training time over the run, this step included (validation excluded)
  // Since the run started, validation and pauses included. Live: since this session of the run
  // started; read back: over resumes, the time before the kill plus the time since.
  double wall_seconds = 0;
  double loss = 0;              // mean over the global batch
  double accuracy = 0;
  double top_k_accuracy = 0;
  double step_seconds = 0;      // wall time of the whole step
  double samples_per_sec = 0;   // this step
  double learning_rate = 0;     // the rate this step's update used (0 when read back from older runs)
  bool sync_checked = false;    // the replicas were checked bit-identical after this step
  std::vector<uint64_t> checksums;  // then: each replica's parameter checksum; empty when read back
  double compute_ms = 0, allreduce_ms = 0, update_ms = 0;  // means over the replicas
  int64_t exchange_bytes = 0;   // several processes: this process's bytes into the cross-process exchange
  int64_t overlap_bytes = 0;    // of them, the buckets' that crossed during backward (--overlap)
  std::vector<ReplicaTiming> replicas;  // each replica's timing; empty when read back
  // Not training, over the run so far (this session live, all sessions read back): waiting for the
  // demo pace, and paused. Throughput and ETA leave them out.
  double pace_seconds = 0;
  double pause_seconds = 0;
  // The step on one clock (step_timeline.h): live, in --json and in timeline.jsonl; several
  // processes: of the previous step (timeline.global_step). Empty when not recorded.
  StepTimeline timeline;
  // Live only: the training-set indices of the first few examples (kShardExamplesShown) of each
  // replica's shard, in replica order, so a view can show what each replica worked on; empty
  // when read back.
  std::vector<std::vector<int64_t>> shard_examples;
};
inline constexpr int64_t kShardExamplesShown = 3;

// One epoch, live and read back alike (RunRecord.epochs).
struct EpochMetrics {
  int epoch = 0;  // 1-based
  int epochs = 0;               // planned; 0 when read back
  int64_t steps = 0;            // of this epoch, trained
  int64_t global_step = 0;      // at the epoch's end
  int64_t samples_seen = 0;     // over the run at the epoch's end
  double train_seconds = 0;     // training time over the run at the epoch's end
  double wall_seconds = 0;      // as StepMetrics', at the end of the epoch's validation
  double loss = 0, accuracy = 0, top_k_accuracy = 0;              // training, over the epoch
  double val_loss = 0, val_accuracy = 0, val_top_k_accuracy = 0;  // validation, at epoch end
  bool has_validation = false;
  double seconds = 0;           // training time of the epoch, validation excluded
  double samples_per_sec = 0;   // training throughput over the epoch
  double learning_rate = 0;     // the rate of the epoch's last step
};

enum class RunStatus { kFinished, kStopped, kFailed };
const char* run_status_name(RunStatus status);

struct RunFinished {
  RunStatus status = RunStatus::kFinished;
  std::string message;          // why it stopped or failed; empty when finished
  int64_t steps = 0;
  int epochs_completed = 0;
  double seconds = 0;
  double param_l2_norm = 0;
  double train_samples_per_sec = 0;  // over all training steps
  // Failed by the sync check (SyncError): the step after which it ran, and each replica's
  // parameter checksum then, in replica order (the failing check, which no step reported).
  // 0 and empty otherwise.
  int64_t sync_failed_step = 0;
  std::vector<uint64_t> sync_failed_checksums;
};

// Receives a run's events, on the trainer's thread, in order: started, then steps, evaluations,
// epochs and holds, then exactly one finished. An evaluation comes just before the epoch whose
// validation it is. Implementations must not throw (the trainer ignores what they do).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_started(const RunStarted&) {}
  virtual void on_step(const StepMetrics&) {}
  virtual void on_epoch(const EpochMetrics&) {}
  virtual void on_evaluation(const Evaluation&) {}
  // The run begins to hold between steps (paused): a sink that batches events delivers them now.
  virtual void on_hold() {}
  virtual void on_finished(const RunFinished&) {}
};

// Forwards every event to each of several sinks, in order (a printer, a run's writers, the GUI).
// Does not own them.
class TeeSink : public EventSink {
 public:
  explicit TeeSink(std::vector<EventSink*> sinks) : sinks_(std::move(sinks)) {}
  void on_started(const RunStarted& e) override { for (auto* s : sinks_) s->on_started(e); }
  void on_step(const StepMetrics& e) override { for (auto* s : sinks_) s->on_step(e); }
  void on_epoch(const EpochMetrics& e) override { for (auto* s : sinks_) s->on_epoch(e); }
  void on_evaluation(const Evaluation& e) override { for (auto* s : sinks_) s->on_evaluation(e); }
  void on_hold() override { for (auto* s : sinks_) s->on_hold(); }
  void on_finished(const RunFinished& e) override { for (auto* s : sinks_) s->on_finished(e); }

 private:
  std::vector<EventSink*> sinks_;
};

}  // namespace mirror
