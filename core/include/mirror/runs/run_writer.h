#pragma once
// Records a run in its directory: run.json (config, devices, status), metrics.jsonl (one JSON
// object per event) and timeline.jsonl (each step on one clock, events_json.h's compact form; a
// line of about 60 bytes per replica). run.json is replaced atomically (temp file + rename); metrics.jsonl is
// append-only and flushed at every epoch, at the end, and at least once a second in between so
// that a reader following the run live sees its steps.

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "mirror/runs/run_lock.h"
#include "mirror/train/events.h"
#include "mirror/util/machine_load.h"

namespace mirror {

class RunWriter : public EventSink {
 public:
  // Creates `dir` (and parents) and writes run.json with status "running". `config` is the run's
  // full configuration; the members of `extra` (a sweep's id and position, say) are added to
  // run.json as they are. run.json also names the host and process writing it, so that a reader
  // can tell a run in progress from one whose process was killed. Throws ConfigError if the
  // directory cannot be created or already holds a run.json (runs are never overwritten), and
  // RunError when another writer holds the folder (run_lock.h): the lock is taken first.
  RunWriter(std::string dir, nlohmann::json config, const nlohmann::json& extra = nlohmann::json::object());

  // Reopens a recorded run to continue it: run.json goes back to "running" (keeping what it
  // held), and metrics.jsonl gets a {"type":"resumed","global_step":N} line, after which a
  // reader should drop earlier lines with a larger step (they were written after the checkpoint
  // the run resumes from). The members of `update` replace run.json's. `lock`: the folder's
  // lock when the caller took it before reading the run (RecordedRun::resume does), else it is
  // taken here before anything is written. Throws ConfigError when `dir` holds no run.json or it
  // is corrupt, RunError when another writer holds the folder.
  static std::unique_ptr<RunWriter> resume(const std::string& dir, int64_t from_step,
                                           const nlohmann::json& update = nlohmann::json::object(),
                                           std::optional<RunLock> lock = std::nullopt);

  // The recorded run.json of `dir`; throws ConfigError naming the problem.
  static nlohmann::json read_run_json(const std::string& dir);

  void on_started(const RunStarted& e) override;
  void on_step(const StepMetrics& e) override;
  void on_epoch(const EpochMetrics& e) override;
  // Appends the evaluation to evaluations.jsonl and flushes it (one line per validation).
  void on_evaluation(const Evaluation& e) override;
  // A paused run: what it wrote reaches the file, so that a reader following it sees every step.
  void on_hold() override;
  void on_finished(const RunFinished& e) override;

  const std::string& dir() const { return dir_; }
  // Gives up the folder's lock once the run has ended and nothing more is written (after
  // on_finished and every other sink), so that a resume may take it while this object lives.
  void release_folder() { lock_.reset(); }

 private:
  RunWriter() = default;
  void write_run_json();
  void append(const nlohmann::json& j, bool flush);
  // Appends one line to `file` (named `name` in the run directory) and flushes it when asked;
  // throws RunError saying what to do when the disk refuses it.
  void append_line(std::ofstream& file, const char* name, const nlohmann::json& j, bool flush);
  // Notes which folder and metrics file this writer holds open, so that later writes can tell
  // when someone deleted, moved or replaced them (the open file would keep taking lines that no
  // one can read, and the next checkpoint would make an empty folder of the same name).
  void remember_files();
  // Throws RunError saying what happened when the folder or metrics.jsonl is no longer the one
  // remember_files() saw.
  void check_files_still_there() const;

  std::string dir_;
  nlohmann::json run_;
  std::optional<RunLock> lock_;  // held for the writer's life: one writer per run folder
  std::ofstream metrics_;
  std::ofstream evaluations_;  // opened at the first evaluation
  std::ofstream timeline_;     // opened at the first step with a timeline
  std::chrono::steady_clock::time_point last_flush_ = std::chrono::steady_clock::now();
  // Step and epoch lines carry "wall": seconds since this writer started (a reader adds the
  // time recorded before a resume).
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  // What else the machine ran while this session of the run trained: run.json's "machine".
  std::optional<CpuUseMeter> cpu_use_;
  // (device, inode) of the run folder and of metrics.jsonl when they were opened.
  std::pair<uint64_t, uint64_t> folder_id_{}, metrics_id_{};
};

// The run directory's file of step timelines: one line per step, to_json(StepTimeline) (a run of
// several processes starts at its second step: each line describes the step before the one that
// carried it). Flushed with metrics.jsonl.
inline constexpr const char* kTimelineFile = "timeline.jsonl";

// This machine's host name, as run.json records it.
std::string host_name();

// The current UTC time in a strftime `format` ("%Y%m%d-%H%M%S" names run folders and sweeps).
std::string utc_now(const char* format);

// Writes `text` to `path` atomically: a temp file in the same directory, flushed, then renamed.
// Throws std::system_error (a std::runtime_error) naming the path, with the reason as its code.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace mirror
