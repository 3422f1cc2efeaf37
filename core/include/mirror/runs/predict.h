#pragma once
// The what-if: a model fitted to what a run measured (compute per example, the all-reduce, the
// update, what else a step costs), and its prediction for 1 to 512 devices over a named link and
// all-reduce algorithm, in weak or strong scaling. Light on purpose (no torch, no Qt): the CLI's
// `mirrortrain predict`, the scaling page and the bench validation read it, and the simulated link
// of `mirrortrain train --link` uses its cost formulas.
//
// Times are seconds and sizes bytes throughout (the timelines' milliseconds are converted once,
// when fitting). Every function is pure and thread-safe; none keeps state.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mirror/strategy/link_model.h"

namespace mirror {

struct RunRecord;
struct StepTimeline;

// One measured all-reduce: n replicas summed `bytes` in `seconds` (the transfer, without waiting
// for stragglers).
struct AllReducePoint {
  int replicas = 0;
  double bytes = 0;
  double seconds = 0;
};

// What a run's steps say, in seconds per step. The step the model predicts at n devices with b
// examples per replica:
//   step(n, b) = overhead_s + compute_per_example_s · b + allreduce(n, bytes) + update_s
struct FittedModel {
  double compute_per_example_s = 0;  // forward + backward per example: (gradients_ready - copied) / shard
  double overhead_s = 0;             // the rest of a step: batch hand-out, shard copy, read-back
  double update_s = 0;               // the optimizer step (updated - reduced)
  double gradient_bytes = 0;         // 4 bytes per parameter (float32 gradients)
  // Several processes that exchanged fewer bytes than their gradients (the embedding's rows,
  // --sparse-exchange): the median bytes a process put into a step's exchange; 0: the gradients'.
  double exchanged_bytes = 0;
  // Buckets all-reduced during backward (--overlap): their bytes (of exchanged or gradient
  // bytes; a run that did not record them: their share of the link's time), their span (first
  // start to last end) per byte as measured while backward computed, and backward's time after the
  // first bucket per example of the largest shard. 0: no overlap measured.
  double overlap_bytes = 0;
  double overlap_seconds_per_byte = 0;
  double overlap_window_per_example_s = 0;
  int64_t per_replica_batch = 0;     // as measured (largest shard)
  int64_t global_batch = 0;          // as measured
  int measured_replicas = 0;
  int64_t steps_used = 0;            // timelines the fit used
  // Where the replicas were logical devices of the CPU, they shared its cores: `usable_cores`
  // (run.json machine.cores) among measured_replicas × `intra_op_threads` (machine.intra_op_threads)
  // threads. 0 / false when unknown or when the replicas had devices of their own.
  int usable_cores = 0;
  int intra_op_threads = 0;
  bool logical_cpu = false;
  // A study's own steps per replica count (fit_study; empty for one run). Predicting this machine
  // with its cores shared as they were, a measured count takes its own compute, update and
  // overhead, and a count between or beyond them scales the nearest smaller one's compute by
  // core_load: the prediction meets the measured boxes where there are some.
  struct MeasuredCount {
    int replicas = 0;
    double compute_per_example_s = 0, update_s = 0, overhead_s = 0;
  };
  std::vector<MeasuredCount> measured_counts;  // ascending replicas

  // The link as the run's all-reduces show it (from_run; named "shared memory" when one process
  // reduced in memory, "loopback" when several processes met over this machine's network): α and β fitted on the
  // ring formula from the measured points (least squares over the points with n >= 2). Only
  // meaningful when measured_link_fitted; otherwise it is the fallback link given to fit_model.
  LinkSpec measured_link;
  bool measured_link_fitted = false;
  std::vector<AllReducePoint> allreduce_points;  // means per (replicas, bytes) the fit saw
  std::vector<std::string> notes;    // what was assumed and why ("one replica count measured: ...")
};

// Fits the all-reduce's α and β to measured points on the ring formula. Two or more distinct
// (replicas, bytes) with replicas >= 2: least squares (α, β kept >= 0). One: α from `fallback`
// (0 when none), β from that point. None: `fallback` itself, or nullopt without one. `note`
// receives the sentence saying which.
std::optional<LinkSpec> fit_link(const std::vector<AllReducePoint>& points,
                                 const std::optional<LinkSpec>& fallback, std::string* note);

// Fits the model to timelines (of one run, or pooled over runs of one model: the gradient bytes
// must agree). Per timeline: compute per example = the mean over replicas of (gradients_ready -
// copied) / shard_size; transfer = the last replica to arrive's (reduced - gradients_ready);
// update = mean (updated - reduced); overhead = the step's span (end_ms) minus the last replica's
// compute, the transfer and the update. Where buckets crossed during backward (ProcessSpans'
// overlap), the link's time is the transfer plus the part of theirs before backward ended. A timeline with simulated_link contributes its transfer
// as measured (so the fit shows the simulated link). Medians over timelines, robust to a slow
// first step. Throws DataError when no timeline has replicas or gradient_bytes <= 0.
FittedModel fit_model(const std::vector<StepTimeline>& timelines, double gradient_bytes,
                      const std::optional<LinkSpec>& fallback_link = std::nullopt);
// The same from a recorded run (its timelines; gradient bytes = 4 × run.json's "parameters").
// Without a fallback, a run trained over a simulated link (config.simulated_link) lends that
// link's latency as α when its one replica count cannot separate α from β.
// Throws DataError naming the run when it recorded no timeline (a run recorded before timelines,
// or with timelines off) or no parameter count.
FittedModel fit_model(const RunRecord& run,
                      const std::optional<LinkSpec>& fallback_link = std::nullopt);
// Pooled over several runs of one model (a scaling study: their replica counts give the α–β fit
// its points). Throws DataError when none has timelines or their parameter counts differ.
FittedModel fit_model(const std::vector<RunRecord>& runs,
                      const std::optional<LinkSpec>& fallback_link = std::nullopt);

// The what-if's fit for the runs people predict from, one recipe for the command line's
// `predict RUN...` and the window's scaling page. One run: fit_model(run). Several (a study):
// compute, update and overhead from the runs with the fewest replicas (one device as it ran alone:
// on logical devices the others share its cores), the link from every run's all-reduces. Throws
// DataError when no run recorded timelines.
FittedModel fit_study(const std::vector<RunRecord>& runs);

enum class Scaling { kWeak, kStrong };  // weak: fixed per-replica batch; strong: fixed global batch
const char* scaling_name(Scaling s);    // "weak", "strong"
Scaling parse_scaling(const std::string& name);  // throws ConfigError

// 1, 2, 4, ..., 512.
std::vector<int> default_device_counts();
// What a what-if over `runs` keeps by default: the global batch (strong) when they are several
// runs of one global batch on different replica counts, as a scaling study trains them; the
// per-replica batch (weak) otherwise.
Scaling study_scaling(const std::vector<RunRecord>& runs);
// The counts a what-if over `runs` lists by default: 1, 2, 4, ..., 512 and each count they measured.
std::vector<int> study_device_counts(const std::vector<RunRecord>& runs);
// "1,2,4,8" -> {1,2,4,8}; also ranges "1-8" (every count) and powers "1..512" (doubling).
// Throws ConfigError on anything else, a count < 1 or > 65536. Sorted, duplicates dropped.
std::vector<int> parse_device_counts(const std::string& text);

struct PredictOptions {
  // The link to predict over; nullopt: the run's own (FittedModel::measured_link; predict throws
  // ConfigError when it was not fitted, e.g. a run on one replica). A from_run preset ("loopback")
  // is replaced by the measured link likewise.
  std::optional<LinkSpec> link;
  AllReduceAlgorithm algorithm = AllReduceAlgorithm::kRing;
  int devices_per_node = 8;                // hierarchical
  std::optional<LinkSpec> intra_node_link; // hierarchical; default the nvlink4 preset
  Scaling scaling = Scaling::kWeak;
  std::vector<int> devices = default_device_counts();
  // Whether the devices are logical devices of this machine's CPU, sharing its cores as the
  // measured replicas did: n replicas × intra-op threads over the usable cores, so that compute per
  // example grows by core_load(n) / core_load(measured) (core_load = max(1, threads / cores)).
  // nullopt: so when the link is the run's own (predicting this machine) and the model says its
  // replicas were logical CPU devices with known cores; separate devices (GPUs, machines) otherwise,
  // each computing as one replica alone on the measured machine did.
  std::optional<bool> share_cores;
};

// How many times over the replicas ask for the cores: max(1, replicas × threads / cores); 1 when
// cores or threads are unknown (<= 0).
double core_load(int replicas, int intra_op_threads, int usable_cores);

// One device count's predicted step.
struct PredictedPoint {
  int devices = 0;
  int64_t per_replica_batch = 0;  // weak: the measured one; strong: ⌈global / devices⌉
  int64_t global_batch = 0;       // weak: devices × per-replica; strong: the measured one
  double compute_s = 0;           // compute_per_example × per_replica_batch (× core_share)
  double core_share = 1;          // each example's compute against as measured: shared cores (>1 slower, <1
                                  // faster than the sharing measured), or a device of its own (1/load)
  double comm_s = 0;              // the all-reduce the step waits for (0 at one device)
  double hidden_s = 0;            // the all-reduce's time hidden under backward (--overlap), not in comm_s
  double update_s = 0;
  double overhead_s = 0;
  double step_s = 0;              // their sum
  double samples_per_s = 0;       // global_batch / step_s
  double speedup = 0;             // samples_per_s over the one-device prediction's
  double efficiency = 0;          // speedup / devices
  double comm_share() const { return step_s > 0 ? comm_s / step_s : 0; }
  bool communication_bound() const { return comm_s > compute_s; }
};

struct Prediction {
  FittedModel model;
  CommModel comm;                  // the link and algorithm it assumed (link resolved)
  Scaling scaling = Scaling::kWeak;
  bool shares_cores = false;       // the devices were taken as logical CPU devices sharing cores
  std::vector<PredictedPoint> points;
  // The smallest listed device count whose all-reduce takes longer than its compute; 0: none.
  int communication_bound_from = 0;

  // "Communication-bound from 64 devices: the all-reduce over InfiniBand NDR 400 (ring) takes
  // 3.1 ms against 2.9 ms of compute." or "Compute-bound up to 512 devices: ...".
  std::string bound_sentence() const;
};

// Predicts each count in options.devices (the speed-up is against one device, predicted too when
// 1 is not listed). Throws ConfigError as PredictOptions says, or when devices is empty.
Prediction predict(const FittedModel& model, const PredictOptions& options);

}  // namespace mirror
