#include "mirror/runs/run_reader.h"

#include <fmt/format.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "mirror/optim/schedule.h"
#include "mirror/runs/run_writer.h"
#include "mirror/strategy/link_model.h"
#include "mirror/train/events_json.h"
#include "mirror/util/error.h"
#include "mirror/util/home.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/json_file.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"
#include "tailed_lines.h"

namespace fs = std::filesystem;

namespace mirror {

namespace {
// Linux never hands out a pid above PID_MAX_LIMIT (2^22 on 64-bit machines). A larger one in a
// run.json is damage: cast to pid_t it could name another process, or (2^40 -> 0) our own group.
constexpr int64_t kMaxPid = int64_t{1} << 22;

bool process_gone(int64_t pid) {
  return pid > kMaxPid || (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
}

std::filesystem::file_time_type mtime(const fs::path& p) {
  std::error_code ec;
  const auto t = fs::last_write_time(p, ec);
  return ec ? fs::file_time_type{} : t;
}
}  // namespace


RunFollower::RunFollower(std::string dir, bool timelines) : follow_timelines_(timelines) {
  record_.dir = std::move(dir);
  record_.name = fs::path(record_.dir).filename().string();
  if (record_.name.empty()) record_.name = fs::path(record_.dir).parent_path().filename().string();
  read_run_json();  // throws DataError: nothing to follow without it
  poll();
}

void RunFollower::read_run_json() {
  const auto path = fs::path(record_.dir) / "run.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) throw DataError(fmt::format("{}: no run.json", record_.dir));
  run_json_time_ = mtime(path);
  nlohmann::json run;
  try {
    run = parse_json_file(path.string(), kRunJson);
  } catch (const DataError& e) {
    throw DataError(fmt::format("{}; the metrics in metrics.jsonl are untouched", e.what()));
  }
  if (!run.is_object())
    throw DataError(fmt::format("{}: run.json is not a JSON object; the metrics in metrics.jsonl are untouched",
                                path.string()));
  record_.run = std::move(run);
}

bool RunFollower::poll() {
  bool changed = false;
  base_warnings_.clear();
  const fs::path dir(record_.dir);
  if (const auto t = mtime(dir / "run.json"); t != run_json_time_) {
    try {
      read_run_json();
      changed = true;
    } catch (const DataError& e) {
      base_warnings_.push_back(fmt::format("{} (showing the last good copy)", e.what()));
    }
  }
  if (const auto t = mtime(dir / "meta.json"); t != meta_time_) {
    meta_time_ = t;
    meta_warning_.clear();
    record_.meta = read_meta(record_.dir, &meta_warning_);
    changed = true;
  }
  if (!meta_warning_.empty()) base_warnings_.push_back(meta_warning_);
  // A stranger's run folder may hold a FIFO or a link to a device here: refused without waiting.
  UntrustedFile metrics((dir / "metrics.jsonl").string(), kMaxRecordFileBytes);
  have_metrics_ = !metrics.missing();
  metrics_problem_ = have_metrics_ && !metrics.ok() ? "metrics.jsonl " + metrics.problem() + ": its steps are not read" : "";
  if (metrics.ok()) {
    const std::uintmax_t size = metrics.size();
    if (size < offset_) {  // replaced by a shorter file: start over
      offset_ = 0;
      pending_.clear();
      dropping_line_ = false;
      record_.steps.clear();
      record_.epochs.clear();
      skipped_ = 0;
    }
    if (size > offset_) {
      read_lines(metrics, size);
      changed = true;
    }
  }
  if (follow_timelines_) {
    UntrustedFile timeline((dir / kTimelineFile).string(), kMaxRecordFileBytes);  // none: an older run, or no step yet
    timeline_file_problem_ = !timeline.missing() && !timeline.ok()
                                 ? fmt::format("{} {}: its step timelines are not read", kTimelineFile, timeline.problem())
                                 : "";
    if (timeline.ok()) {
      const std::uintmax_t size = timeline.size();
      if (size < timeline_offset_) {  // replaced by a shorter file: start over
        timeline_offset_ = 0;
        timeline_pending_.clear();
        timeline_dropping_ = false;
        record_.timelines.clear();
        timeline_skipped_ = timelines_dropped_ = timeline_lines_ = timeline_refused_ = 0;
        timeline_problem_.clear();
      }
      if (size > timeline_offset_) {
        read_new_lines(timeline, size, timeline_offset_, timeline_pending_, timeline_dropping_, timeline_skipped_,
                       [this](const std::string& line) { apply_timeline_line(line); });
        changed = true;
      }
    }
  }
  derive();
  return changed;
}

void RunFollower::read_lines(UntrustedFile& metrics, std::uintmax_t size) {
  read_new_lines(metrics, size, offset_, pending_, dropping_line_, skipped_,
                 [this](const std::string& line) { apply_line(line); });
}


void RunFollower::finish() {
  if (!pending_.empty()) {
    apply_line(pending_);
    pending_.clear();
  }
  if (!timeline_pending_.empty()) {
    apply_timeline_line(timeline_pending_);
    timeline_pending_.clear();
  }
  derive();
}

namespace {
// Steps and samples beyond this are damage, not a run (a million steps a second for 30 years).
constexpr int64_t kMaxCount = int64_t{1} << 50;

// A count: absent or not a number reads as 0 (like other fields of the wrong type); a number that
// is no int64 (1e300, 2^64 - 1) reads as -1, which every caller refuses.
int64_t count_field(const nlohmann::json& j, const char* key) {
  const nlohmann::json* v = json_field(j, key);
  if (!v || !v->is_number()) return 0;
  const int64_t n = json_int(j, key, INT64_MIN);
  return n == INT64_MIN ? -1 : n;
}
}  // namespace

void RunFollower::apply_line(const std::string& line) {
  if (line.empty()) return;
  nlohmann::json j;
  try {
    j = parse_json_text(line, "a metrics line", kMetricsLineJson);
  } catch (const DataError&) {  // cut by a kill, or not ours
  }
  if (!j.is_object()) {
    ++skipped_;
    return;
  }
  auto& steps = record_.steps;
  auto& epochs = record_.epochs;
  const auto truncate_after = [&](int64_t step) {  // drop what a resumed run writes again
    while (!steps.empty() && steps.back().global_step > step) steps.pop_back();
    while (!epochs.empty() && epochs.back().global_step > step) epochs.pop_back();
  };
  const std::string type = json_string(j, "type");
  if (type == "step") {
    StepMetrics p;
    p.global_step = count_field(j, "global_step");
    p.samples = count_field(j, "samples");
    const int64_t seen = steps.empty() ? 0 : steps.back().samples_seen;
    const int64_t epoch = count_field(j, "epoch");
    // Counts no run reaches (a damaged or hand-edited line): skipped like a line cut short, before
    // any arithmetic on them could overflow.
    if (p.global_step < 1 || p.global_step > kMaxCount || p.samples < 0 || p.samples > kMaxCount - seen ||
        epoch < 0 || epoch > kMaxCount) {
      ++skipped_;
      return;
    }
    truncate_after(p.global_step - 1);
    p.epoch = static_cast<int>(std::min<int64_t>(epoch, INT32_MAX));
    p.step = json_int(j, "step");
    p.step_seconds = json_number(j, "step_seconds");
    p.samples_per_sec = json_number(j, "samples_per_sec");
    p.learning_rate = json_number(j, "learning_rate");
    p.exchange_bytes = std::max<int64_t>(0, json_int(j, "exchange_bytes"));
    p.overlap_bytes = std::clamp<int64_t>(json_int(j, "overlap_bytes"), 0, p.exchange_bytes);
    p.samples_seen = (steps.empty() ? 0 : steps.back().samples_seen) + p.samples;
    p.train_seconds = (steps.empty() ? 0 : steps.back().train_seconds) + p.step_seconds;
    // Runs recorded before "wall" existed: training time is the best estimate.
    p.wall_seconds = j.contains("wall") ? wall_offset_ + json_number(j, "wall") : p.train_seconds;
    p.loss = json_number(j, "loss");
    p.accuracy = json_number(j, "accuracy");
    p.top_k_accuracy = json_number(j, "top_k_accuracy");
    p.pace_seconds = pace_offset_ + json_number(j, "pace_seconds");
    p.pause_seconds = pause_offset_ + json_number(j, "pause_seconds");
    if (const auto it = j.find("replicas"); it != j.end() && it->is_array() && !it->empty()) {
      for (const auto& r : *it) {
        p.compute_ms += json_number(r, "compute_ms");
        p.allreduce_ms += json_number(r, "allreduce_ms");
        p.update_ms += json_number(r, "update_ms");
      }
      const double n = static_cast<double>(it->size());
      p.compute_ms /= n;
      p.allreduce_ms /= n;
      p.update_ms /= n;
    }
    steps.push_back(p);
  } else if (type == "resumed") {
    truncate_after(json_int(j, "global_step"));
    wall_offset_ = steps.empty() ? 0 : steps.back().wall_seconds;
    pace_offset_ = steps.empty() ? 0 : steps.back().pace_seconds;
    pause_offset_ = steps.empty() ? 0 : steps.back().pause_seconds;
    if (!epochs.empty() && !steps.empty() && epochs.back().global_step == steps.back().global_step)
      wall_offset_ = std::max(wall_offset_, epochs.back().wall_seconds);  // its validation ran before the stop
    final_seconds_ = 0;  // the run is going again
  } else if (type == "epoch") {
    EpochMetrics e;
    const int64_t epoch = count_field(j, "epoch");
    if (epoch < 0 || epoch > INT32_MAX) {
      ++skipped_;
      return;
    }
    e.epoch = static_cast<int>(epoch);
    if (!steps.empty()) {
      e.global_step = steps.back().global_step;
      e.samples_seen = steps.back().samples_seen;
      e.train_seconds = steps.back().train_seconds;
      e.wall_seconds = steps.back().wall_seconds;
    }
    if (j.contains("wall")) e.wall_seconds = wall_offset_ + json_number(j, "wall");
    e.loss = json_number(j, "loss");
    e.accuracy = json_number(j, "accuracy");
    e.top_k_accuracy = json_number(j, "top_k_accuracy");
    e.steps = json_int(j, "steps");
    e.seconds = json_number(j, "seconds");
    e.samples_per_sec = json_number(j, "samples_per_sec");
    e.learning_rate = json_number(j, "learning_rate");
    if (j.contains("val_accuracy")) {
      e.has_validation = true;
      e.val_loss = json_number(j, "val_loss");
      e.val_accuracy = json_number(j, "val_accuracy");
      e.val_top_k_accuracy = json_number(j, "val_top_k_accuracy");
    }
    // A run stopped part-way writes a partial epoch; resumed, it writes that epoch again, whole.
    while (!epochs.empty() && epochs.back().epoch >= e.epoch) epochs.pop_back();
    epochs.push_back(e);
  } else if (type == "final") {
    final_seconds_ = wall_offset_ + json_number(j, "seconds");  // the trainer counts from its own start
  }
}

void RunFollower::derive() {
  RunRecord& r = record_;
  r.warnings = base_warnings_;
  r.status = json_string(r.run, "status", "unknown");
  const bool checkable = json_string(r.run, "host") == host_name() && json_int(r.run, "pid") > 0;
  if (r.status == "running" && checkable && process_gone(json_int(r.run, "pid"))) {
    r.status = "interrupted";
    const int64_t pid = json_int(r.run, "pid");
    const std::string why =
        pid > kMaxPid ? fmt::format("run.json's pid {} is out of range (at most {}): no process of it is writing this run",
                                    pid, kMaxPid)
                      : fmt::format("the process that was writing this run (pid {}) is gone", pid);
    r.warnings.push_back(fmt::format("{}; continue it with `mirrortrain train --resume {}`", why, r.dir));
  } else if (r.status == "running" && !checkable) {
    // Another machine's job, or a run recorded before runs named their process: judge by its files.
    const auto now = fs::file_time_type::clock::now();
    // (A missing file reads as file_time_type{}, which libstdc++ places in the future: skip it.)
    auto last = mtime(fs::path(r.dir) / "run.json");
    if (have_metrics_) last = std::max(last, mtime(fs::path(r.dir) / "metrics.jsonl"));
    const auto idle = std::chrono::duration_cast<std::chrono::minutes>(now - last).count();
    if (idle >= kStalledAfterMinutes) {
      r.status = "stalled";
      r.warnings.push_back(fmt::format("recorded as running, but nothing was written for {} min; its process "
                                       "may be gone (resume it with `mirrortrain train --resume {}`)",
                                       idle, r.dir));
    }
  }
  if (!have_metrics_) r.warnings.push_back("no metrics.jsonl");
  if (!metrics_problem_.empty()) r.warnings.push_back(metrics_problem_);
  if (!timeline_file_problem_.empty()) r.warnings.push_back(timeline_file_problem_);
  if (skipped_ > 0)
    r.warnings.push_back(fmt::format("{} of metrics.jsonl skipped (a write cut short?)", counted(skipped_, "malformed line")));
  if (timeline_skipped_ > 0)
    r.warnings.push_back(fmt::format("{} of {} skipped (a write cut short?)", counted(timeline_skipped_, "malformed line"),
                                     kTimelineFile));
  r.timeline_problem = timeline_problem_;
  if (!timeline_problem_.empty()) r.warnings.push_back(timeline_problem_);
  if (timelines_dropped_ > 0)
    r.warnings.push_back(fmt::format("{}: kept the latest {} step timelines of {}", kTimelineFile, r.timelines.size(),
                                     r.timelines.size() + static_cast<size_t>(timelines_dropped_)));
  r.best_val_accuracy = -1;
  for (const auto& e : r.epochs)
    if (e.has_validation) r.best_val_accuracy = std::max(r.best_val_accuracy, e.val_accuracy);
  r.duration_seconds = final_seconds_;
  if (r.duration_seconds == 0)
    for (const auto& e : r.epochs) r.duration_seconds += e.seconds;
  if (r.duration_seconds == 0 && !r.steps.empty()) r.duration_seconds = r.steps.back().train_seconds;
}

bool written_by_live_process(const nlohmann::json& run) {
  if (json_string(run, "status") != "running") return false;
  const int64_t pid = json_int(run, "pid");
  if (json_string(run, "host") != host_name() || pid <= 0) return false;
  return !process_gone(pid);
}

RunRecord read_run(const std::string& dir, bool timelines) {
  RunFollower f(dir, timelines);
  f.finish();
  return f.record();
}
}  // namespace mirror
