#pragma once
// Reading recorded runs: run.json, metrics.jsonl and the user's notes (meta.json), tolerant of a
// run that was killed or is still being written by another process.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "mirror/train/events.h"

namespace mirror {

class UntrustedFile;

// What the person wrote about a run (meta.json, kept apart from run.json so that a process still
// writing the run never overwrites it).
struct RunMeta {
  std::string name;               // display name; empty: the directory's name
  std::vector<std::string> tags;
  std::string notes;
};

// The user's own data a run trained on (run.json's "data"): the folder or file it was read from,
// how many files, and a hash of their contents (hex SHA-256).
struct RecordedData {
  std::string data_dir;
  int64_t file_count = 0;
  std::string content_hash;
};

// run.json's "data" (`run` the whole run.json): empty figures when it holds none (a built-in
// dataset, or a run recorded before runs said what they read).
RecordedData recorded_data(const nlohmann::json& run);

struct RunRecord {
  std::string dir;
  std::string name;               // the directory's name
  nlohmann::json run;             // run.json as recorded (config, devices, status, ...)
  // running | finished | stopped | failed | interrupted (recorded as running by a process on
  // this machine that no longer exists: killed; resume it) | stalled (recorded as running by a
  // process that cannot be checked from here, with nothing written for kStalledAfterMinutes) |
  // unreadable
  std::string status;
  RunMeta meta;
  std::vector<StepMetrics> steps;   // resumed runs de-duplicated by step; no per-replica timings
  std::vector<EpochMetrics> epochs;
  // timeline.jsonl: each step on one clock, in step order, resumed runs de-duplicated by step (a
  // run of several processes has none for its first step). Empty when the run recorded none or
  // the reader was asked not to read them (list_runs); at most kMaxTimelinesKept, the latest.
  std::vector<StepTimeline> timelines;
  double best_val_accuracy = -1;  // -1: no validation recorded
  double duration_seconds = 0;
  std::vector<std::string> warnings;  // lines skipped, files missing: what was not read and why
  // The first timeline.jsonl line that was JSON but no clock's reading (a mark a week from its
  // step, moments out of order), as "timeline.jsonl line 7: ..."; empty when none. A line cut
  // short by a kill is not one. The what-if refuses such a run rather than fit it.
  std::string timeline_problem;

  // The meta name when the person gave one, else the directory's name.
  const std::string& display_name() const { return meta.name.empty() ? name : meta.name; }

  // run.json's fields that the views and the CLI show, typed. Each gives its default when the
  // field is missing or of another type (a run recorded by an older version, a damaged file);
  // none throws.
  std::string message() const;      // what the run said when it ended ("" while it runs)
  std::string started_at() const;   // when it started, "2026-11-30T13:45:01Z" as recorded; "" if unknown
  // Steps in a whole epoch: run.json's steps_per_epoch, else (runs recorded before it was noted)
  // the longest recorded epoch; 0 when there are no steps.
  int64_t steps_per_epoch() const;
  int64_t planned_epochs() const;   // config.epochs, the epochs it was set to train; 0 if unknown
  bool in_scaling_study() const;    // one run of a scaling study (sweep.scaling)
  int processes() const;            // the worker processes that trained it (see recorded_processes)
  // Its own data's folder, file count and content hash; empty and 0 when it trained on built-in or
  // generated data, or was recorded before they were noted.
  RecordedData data() const;
  // The names of the classes of the data it trained on (run.json's class_names), in class order;
  // empty when the data named none or the run was recorded before they were noted. A name that
  // is not a string reads as "".
  std::vector<std::string> class_names() const;
};

// The worker processes that trained a run, from its run.json document (workers.world_size): at
// least 1. For a caller that has read run.json alone (RunWriter::read_run_json) rather than the
// whole record. Never throws.
int recorded_processes(const nlohmann::json& run);

// Follows one run directory: each poll() reads only what was appended to metrics.jsonl since the
// last one (a line still being written waits for its newline) and re-reads run.json and meta.json
// when they changed. Works on a finished run as well as on one another process is writing.
class RunFollower {
 public:
  // Throws DataError when run.json is missing or not valid JSON. `timelines`: also follow
  // timeline.jsonl into the record's timelines.
  explicit RunFollower(std::string dir, bool timelines = true);
  // Reads what is new; true when anything changed. Never throws: a run.json that turned
  // unreadable keeps the last good one and adds a warning.
  bool poll();
  const RunRecord& record() const { return record_; }
  // Counts a trailing line without a newline as cut short (the writer is gone).
  void finish();

 private:
  void read_run_json();
  void apply_line(const std::string& line);
  void apply_timeline_line(const std::string& line);
  void derive();
  // Reads metrics.jsonl from offset_ to `size`, applying each complete line.
  void read_lines(UntrustedFile& metrics, std::uintmax_t size);

  RunRecord record_;
  std::vector<std::string> base_warnings_;
  std::string meta_warning_;
  std::filesystem::file_time_type run_json_time_{}, meta_time_{};
  std::uintmax_t offset_ = 0;
  std::string pending_;  // bytes after the last newline, at most a metrics line's limit
  bool dropping_line_ = false;  // the line being read is over the limit: dropped up to its newline
  int64_t skipped_ = 0;
  double final_seconds_ = 0;
  double wall_offset_ = 0;  // wall time recorded before the latest resume
  bool have_metrics_ = false;
  std::string metrics_problem_;        // metrics.jsonl is there but not read: what it is
  std::string timeline_file_problem_;  // the same for timeline.jsonl
  // timeline.jsonl, read like metrics.jsonl
  bool follow_timelines_ = true;
  std::uintmax_t timeline_offset_ = 0;
  std::string timeline_pending_;
  bool timeline_dropping_ = false;
  int64_t timeline_skipped_ = 0;
  int64_t timeline_lines_ = 0;    // lines handed to apply_timeline_line (the over-long are counted in skipped)
  int64_t timeline_refused_ = 0;  // of them, those that did not read as a timeline
  std::string timeline_problem_;
  int64_t timelines_dropped_ = 0;  // the earliest, beyond kMaxTimelinesKept
  double pace_offset_ = 0, pause_offset_ = 0;  // pace and pause seconds recorded before the latest resume
};

// The most step timelines a record keeps (the latest): about 20 MB of 4 replicas' timelines.
inline constexpr size_t kMaxTimelinesKept = 50000;

inline constexpr int kStalledAfterMinutes = 15;

// Whether run.json says "running" and names a process on this machine that is alive: another
// writer is at work, so the run must not be resumed, written or deleted from here.
bool written_by_live_process(const nlohmann::json& run);

// Reads a run directory completely. A malformed line of metrics.jsonl (a write cut by a kill) is
// skipped with a warning; everything intact is kept. Throws DataError only when run.json is
// missing or unreadable.
RunRecord read_run(const std::string& dir, bool timelines = true);

// Every run directory directly under `root` (those holding a run.json), newest first by name.
// Unreadable runs are listed with their warnings rather than dropped. Their timelines are not
// read (read_run reads one run's).
std::vector<RunRecord> list_runs(const std::string& root);

// meta.json of a run; empty when there is none. A malformed one reads as empty (`warning` says why).
RunMeta read_meta(const std::string& dir, std::string* warning = nullptr);
// Writes meta.json atomically. Throws RunError when it cannot be written.
void write_meta(const std::string& dir, const RunMeta& meta);

// Where runs are recorded by default: $MIRROR_RUNS_DIR, else $XDG_DATA_HOME/mirror-workbench/runs,
// else ~/.local/share/mirror-workbench/runs. Throws ConfigError when there is no home folder
// (see home_dir()), rather than sharing a folder such as /tmp with every other user.
std::string default_runs_root();

// A fresh directory name for a run: <root>/<UTC date-time>-<label as path_slug makes it>, made
// unique; always directly inside `root`, whatever `label` holds. Creates nothing.
std::string new_run_dir(const std::string& root, const std::string& label);

// The config values (flattened "a.b" keys) on which the runs differ; empty when all agree.
std::vector<std::string> differing_config_keys(const std::vector<RunRecord>& runs);
// A config value of a run by flattened key ("optimizer.learning_rate"), as text.
std::string config_value(const RunRecord& run, const std::string& key);

// Replicas the run trained on (from its recorded devices, else its config).
int replica_count(const RunRecord& run);
// The distinct physical devices under those replicas, sorted ("cpu:0/logical:1" and
// "cpu:0/logical:0" are both "cpu:0"); empty when the run recorded none.
std::vector<std::string> physical_devices(const RunRecord& run);
// Their number, at least 1.
int physical_device_count(const RunRecord& run);

}  // namespace mirror
