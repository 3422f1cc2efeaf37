#pragma once
// A run's steps as a trace people already open: the Chrome Trace Event Format (JSON with
// "traceEvents"), read by Perfetto's UI (ui.perfetto.dev) and chrome://tracing.
//
// What the file holds, per step in the requested range:
//  - one pid per worker process ("rank 0 (host …)"), one tid per replica ("replica 2 · cpu:1")
//    and tid 0 for the process's trainer ("trainer · all-reduce"), named by "M" metadata events;
//  - "X" complete events: each replica's copy, forward, backward, all-reduce (with its wait for
//    the last replica and its transfer nested inside) and update; on the trainer's tid the step,
//    the all-reduce over the process's replicas, the cross-process exchange nested in it, and
//    the idle spans before the step (pace, pause, evaluation) under those names;
//  - flow events ("s" to "f") from each replica's "gradients ready" to its process's all-reduce;
//  - "C" counters for loss and learning rate at each step's end.
// Every span's args carry "step" (the global step). Times are microseconds since the run started:
// each step's clock is placed at the step's real start (StepMetrics.wall_seconds − step_seconds),
// moved later only where it would overlap the step before (clocks of different sessions, a
// missing wall time); without any wall time, steps are laid end to end. Text from files (device
// names, host names, the run's label) goes in only as JSON strings.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/train/events.h"

namespace mirror {

struct RunRecord;

// Global steps first..last, both included, 1-based.
struct StepRange {
  int64_t first = 1;
  int64_t last = 20;
  bool contains(int64_t step) const { return step >= first && step <= last; }
};
// "A-B" or "A" (one step). Throws ConfigError saying what is wrong unless 1 <= A <= B.
StepRange parse_step_range(const std::string& text);

struct TraceOptions {
  StepRange steps;                    // which steps (by timeline.global_step) go in
  std::vector<std::string> devices;   // replica device names in replica order (RunStarted::devices); may be empty
  std::vector<std::string> hosts;     // each process's host name, in process order; may be empty
  std::string label;                  // the run's name or dataset, for the file's otherData; may be empty
};

// The global step whose timeline `m` carries: its own, or (several processes) the step before.
int64_t timeline_step(const StepMetrics& m);

// The trace document of those of `steps` whose timeline is in options.steps. A step's timeline
// may describe an earlier step (several processes: timeline.global_step = global_step − 1); loss,
// learning rate and wall time are taken from the element of `steps` with that global step, when
// there is one. Steps without a timeline are left out. Never throws on odd values (a replica
// whose marks are out of order gets zero-length spans).
nlohmann::json trace_json(const std::vector<StepMetrics>& steps, const TraceOptions& options);

// The number of steps a trace_json document holds (its distinct "step" args).
int64_t traced_steps(const std::vector<StepMetrics>& steps, const TraceOptions& options);

// A recorded run's options: its replicas' devices and its processes' hosts from run.json, its
// display name as the label, and `steps`. Never throws (what run.json lacks stays empty).
TraceOptions trace_options_of(const RunRecord& run, StepRange steps);
// A recorded run's steps in `steps` with their timelines attached (RunRecord::timelines, matched
// by global step); a timeline without its step's metrics comes with an otherwise empty step.
std::vector<StepMetrics> steps_with_timelines(const RunRecord& run, StepRange steps);

struct TraceWritten {
  std::string path;
  int64_t steps = 0;     // steps traced
  uintmax_t bytes = 0;   // the file's size
};

// The file a trace given `path` is written to: `path` itself when nothing is there or a regular
// file is, the file a symbolic link names when it names a regular file. Anything else (a folder,
// a device such as /dev/full, a pipe, a socket, a link to one or to nothing) throws ConfigError
// naming what is there: the atomic write would replace it with a regular file.
std::string trace_target(const std::string& path);

// Writes trace_json(steps, options) to trace_target(path) atomically (temp file + rename in its folder).
// Throws ConfigError when no step in the range carries a timeline (nothing to trace), RunError
// naming the path when the file cannot be written. Thread-safe (touches no shared state).
TraceWritten write_trace(const std::string& path, const std::vector<StepMetrics>& steps,
                         const TraceOptions& options);

// An EventSink that keeps the steps of options.steps (and the step metrics they need, without
// per-replica detail) and writes the trace once the range's last step has come, or when the run
// finishes, whichever is first. Devices and the label come from on_started when options has
// none. Like every sink it never throws: written() and error() say how it went. Not thread-safe;
// called on the trainer's thread, read after the run.
class TraceRecorder : public EventSink {
 public:
  TraceRecorder(std::string path, TraceOptions options);
  void on_started(const RunStarted& e) override;
  void on_step(const StepMetrics& e) override;
  void on_finished(const RunFinished& e) override;

  // Writes now if it has not yet (a run that ended without on_finished).
  void flush();
  bool written() const { return written_; }
  const TraceWritten& result() const { return result_; }
  const std::string& error() const { return error_; }  // why nothing was written; "" otherwise

 private:
  void write();

  std::string path_;
  TraceOptions options_;
  std::vector<StepMetrics> kept_;
  bool have_last_timeline_ = false, have_last_metrics_ = false;
  bool written_ = false, done_ = false;
  TraceWritten result_;
  std::string error_;
};

}  // namespace mirror
