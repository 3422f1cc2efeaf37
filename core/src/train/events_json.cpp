#include "mirror/train/events_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "mirror/util/error.h"

namespace mirror {

nlohmann::json to_json(const RunStarted& e) {
  return {{"type", "started"},           {"dataset", e.dataset},
          {"model", e.model},            {"devices", e.devices},
          {"communicator", e.communicator}, {"communicator_reason", e.communicator_reason},
          {"cuda_graphs", e.cuda_graphs}, {"precision", e.precision},
          {"intra_op_threads", e.intra_op_threads}, {"intra_op_threads_reason", e.intra_op_threads_reason},
          {"parameters", e.parameters},
          {"train_size", e.train_size},  {"val_size", e.val_size},
          {"global_batch", e.global_batch}, {"shard_sizes", e.shard_sizes},
          {"steps_per_epoch", e.steps_per_epoch}, {"epochs", e.epochs},
          {"top_k", e.top_k},            {"num_classes", e.num_classes}};
}

nlohmann::json to_json(const StepMetrics& e) {
  nlohmann::json replicas = nlohmann::json::array();
  for (const auto& r : e.replicas) {
    nlohmann::json j = {{"replica", r.replica}, {"shard", r.shard_size}, {"compute_ms", r.compute_ms},
                        {"allreduce_ms", r.allreduce_ms}, {"update_ms", r.update_ms}};
    if (r.memory_mib > 0) j["memory_mib"] = r.memory_mib;
    replicas.push_back(std::move(j));
  }
  nlohmann::json j = {{"type", "step"},
          {"epoch", e.epoch},
          {"step", e.step},
          {"global_step", e.global_step},
          {"samples", e.samples},
          {"loss", e.loss},
          {"accuracy", e.accuracy},
          {"top_k_accuracy", e.top_k_accuracy},
          {"step_seconds", e.step_seconds},
          {"samples_per_sec", e.samples_per_sec},
          {"learning_rate", e.learning_rate},
          {"replicas", std::move(replicas)}};
  if (e.sync_checked) j["sync_checked"] = true;
  if (e.exchange_bytes > 0) j["exchange_bytes"] = e.exchange_bytes;
  if (e.overlap_bytes > 0) j["overlap_bytes"] = e.overlap_bytes;
  if (e.pace_seconds > 0) j["pace_seconds"] = e.pace_seconds;
  if (e.pause_seconds > 0) j["pause_seconds"] = e.pause_seconds;
  if (!e.timeline.empty()) j["timeline"] = to_json(e.timeline);
  return j;
}

namespace {
// Milliseconds to the microsecond: a timeline's clocks are no finer, and the lines stay short.
double to_us(double ms) { return std::round(ms * 1000.0) / 1000.0; }

// Limits on a timeline read from a file a stranger may have written: far beyond any run.
constexpr size_t kMaxTimelineReplicas = 1 << 16;
constexpr size_t kMaxTimelineProcesses = 1 << 16;
constexpr size_t kMaxTimelineIdle = 1024;
constexpr double kTimelineMaxRank = 1 << 20;
constexpr double kTimelineMaxCount = 1125899906842624.0;  // 2^50

// A mark further than this from its step's start, either way, is no clock's reading: a week of
// milliseconds (a simulated link at its slowest still waits far less per step).
constexpr double kTimelineMaxMs = 7.0 * 24 * 3600 * 1e3;

[[noreturn]] void timeline_bad(const std::string& field, const std::string& why) {
  throw ConfigError(fmt::format("timeline: {} {}", field, why));
}

// Milliseconds on a step's clock, or ConfigError naming `field`: a row of 1e308 fitted a
// 300-digit step time and a "512x speed-up" before this.
double timeline_ms(double x, const std::string& field) {
  if (!(std::abs(x) <= kTimelineMaxMs))
    timeline_bad(field, fmt::format("holds {:g} ms, more than a week from its step's start: no clock reads that", x));
  return x;
}

// `j` as an array of `n` finite numbers, or ConfigError naming `field`.
std::vector<double> timeline_numbers(const nlohmann::json& j, size_t n, const std::string& field) {
  if (!j.is_array()) timeline_bad(field, "is not an array");
  if (j.size() != n) timeline_bad(field, fmt::format("has {} values, expected {}", j.size(), n));
  std::vector<double> out;
  for (const auto& v : j) {
    if (!v.is_number()) timeline_bad(field, "holds a value that is not a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) timeline_bad(field, "holds a number that is not finite");
    out.push_back(x);
  }
  return out;
}

// A whole number in [0, max], or ConfigError naming `field`.
int64_t timeline_whole(double x, double max, const std::string& field) {
  if (x < 0 || x > max || x != std::floor(x)) timeline_bad(field, fmt::format("must be a whole number from 0 to {:.0f}", max));
  return static_cast<int64_t>(x);
}

// The array under `key` (absent: empty), at most `max` long.
const nlohmann::json& timeline_array(const nlohmann::json& j, const char* key, size_t max) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const auto it = j.find(key);
  if (it == j.end()) return kEmpty;
  if (!it->is_array()) timeline_bad(key, "is not an array");
  if (it->size() > max) timeline_bad(key, fmt::format("has {} entries, more than {}", it->size(), max));
  return *it;
}
}  // namespace

nlohmann::json to_json(const StepTimeline& t) {
  nlohmann::json replicas = nlohmann::json::array();
  for (const auto& r : t.replicas)
    replicas.push_back({r.replica, r.process, r.shard_size, to_us(r.started), to_us(r.copied), to_us(r.forward_done),
                        to_us(r.gradients_ready), to_us(r.reduced), to_us(r.updated)});
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& p : t.processes) {
    nlohmann::json v = {p.process, to_us(p.offset_ms), to_us(p.exchange_begin), to_us(p.exchange_end), to_us(p.step_end)};
    if (p.overlap_end > 0) v.insert(v.end(), {to_us(p.overlap_begin), to_us(p.overlap_end)});  // buckets during backward
    processes.push_back(std::move(v));
  }
  nlohmann::json j = {{"step", t.global_step}, {"replicas", std::move(replicas)}, {"processes", std::move(processes)}};
  if (!t.idle.empty()) {
    nlohmann::json idle = nlohmann::json::array();
    for (const auto& s : t.idle) idle.push_back({idle_kind_name(s.kind), s.process, to_us(s.begin), to_us(s.end)});
    j["idle"] = std::move(idle);
  }
  if (t.simulated_link) j["simulated_allreduce_ms"] = to_us(t.simulated_allreduce_ms);
  return j;
}

StepTimeline as_recorded(StepTimeline t) {
  for (auto& r : t.replicas)
    for (double* v : {&r.started, &r.copied, &r.forward_done, &r.gradients_ready, &r.reduced, &r.updated}) *v = to_us(*v);
  for (auto& p : t.processes)
    for (double* v : {&p.offset_ms, &p.exchange_begin, &p.exchange_end, &p.step_end, &p.overlap_begin, &p.overlap_end})
      *v = to_us(*v);
  for (auto& i : t.idle) i.begin = to_us(i.begin), i.end = to_us(i.end);
  if (t.simulated_link) t.simulated_allreduce_ms = to_us(t.simulated_allreduce_ms);
  return t;
}

StepTimeline timeline_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw ConfigError("timeline: not a JSON object");
  StepTimeline t;
  const auto step = j.find("step");
  if (step == j.end() || !step->is_number()) timeline_bad("step", "is missing or not a number");
  t.global_step = timeline_whole(step->get<double>(), kTimelineMaxCount, "step");
  const auto& replicas = timeline_array(j, "replicas", kMaxTimelineReplicas);
  for (size_t i = 0; i < replicas.size(); ++i) {
    const std::string field = fmt::format("replicas[{}]", i);
    const auto v = timeline_numbers(replicas[i], 9, field);
    ReplicaMarks r;
    r.replica = static_cast<int>(timeline_whole(v[0], kTimelineMaxRank, field + "'s replica"));
    r.process = static_cast<int>(timeline_whole(v[1], kTimelineMaxRank, field + "'s process"));
    r.shard_size = timeline_whole(v[2], kTimelineMaxCount, field + "'s shard size");
    r.started = timeline_ms(v[3], field);
    r.copied = timeline_ms(v[4], field);
    r.forward_done = timeline_ms(v[5], field);
    r.gradients_ready = timeline_ms(v[6], field);
    r.reduced = timeline_ms(v[7], field);
    r.updated = timeline_ms(v[8], field);
    for (size_t k = 4; k < 9; ++k)
      if (v[k] < v[k - 1]) timeline_bad(field, "has its moments out of order (started, copied, forward done, gradients ready, reduced, updated)");
    t.replicas.push_back(r);
  }
  const auto& processes = timeline_array(j, "processes", kMaxTimelineProcesses);
  for (size_t i = 0; i < processes.size(); ++i) {
    const std::string field = fmt::format("processes[{}]", i);
    // [process, offset, exchange begin, end, step end] and, when buckets overlapped backward, their
    // begin and end.
    const bool overlapped = processes[i].is_array() && processes[i].size() == 7;
    const auto v = timeline_numbers(processes[i], overlapped ? 7 : 5, field);
    ProcessSpans p;
    p.process = static_cast<int>(timeline_whole(v[0], kTimelineMaxRank, field + "'s process"));
    p.offset_ms = timeline_ms(v[1], field);
    p.exchange_begin = timeline_ms(v[2], field);
    p.exchange_end = timeline_ms(v[3], field);
    p.step_end = timeline_ms(v[4], field);
    if (p.exchange_end < p.exchange_begin) timeline_bad(field, "ends its exchange before it begins");
    if (overlapped) {
      p.overlap_begin = timeline_ms(v[5], field);
      p.overlap_end = timeline_ms(v[6], field);
      if (p.overlap_end < p.overlap_begin) timeline_bad(field, "ends its overlapped all-reduce before it begins");
    }
    t.processes.push_back(p);
  }
  const auto& idle = timeline_array(j, "idle", kMaxTimelineIdle);
  for (size_t i = 0; i < idle.size(); ++i) {
    const std::string field = fmt::format("idle[{}]", i);
    const auto& e = idle[i];
    if (!e.is_array() || e.size() != 4 || !e[0].is_string()) timeline_bad(field, "is not [kind, process, begin, end]");
    IdleSpan s;
    const std::string kind = e[0].get<std::string>();
    if (kind == idle_kind_name(IdleKind::kPace)) s.kind = IdleKind::kPace;
    else if (kind == idle_kind_name(IdleKind::kPause)) s.kind = IdleKind::kPause;
    else if (kind == idle_kind_name(IdleKind::kEvaluation)) s.kind = IdleKind::kEvaluation;
    else timeline_bad(field, "has an unknown kind (pace, pause or evaluation)");
    nlohmann::json rest = nlohmann::json::array({e[1], e[2], e[3]});
    const auto v = timeline_numbers(rest, 3, field);
    s.process = static_cast<int>(timeline_whole(v[0], kTimelineMaxRank, field + "'s process"));
    s.begin = timeline_ms(v[1], field);
    s.end = timeline_ms(v[2], field);
    if (s.end < s.begin) timeline_bad(field, "ends before it begins");
    t.idle.push_back(s);
  }
  if (const auto it = j.find("simulated_allreduce_ms"); it != j.end()) {
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
      timeline_bad("simulated_allreduce_ms", "must be a number of milliseconds, 0 or more");
    t.simulated_link = true;
    t.simulated_allreduce_ms = timeline_ms(it->get<double>(), "simulated_allreduce_ms");
  }
  return t;
}

nlohmann::json to_json(const EpochMetrics& e) {
  nlohmann::json j = {{"type", "epoch"},
                      {"epoch", e.epoch},
                      {"steps", e.steps},
                      {"loss", e.loss},
                      {"accuracy", e.accuracy},
                      {"top_k_accuracy", e.top_k_accuracy},
                      {"seconds", e.seconds},
                      {"samples_per_sec", e.samples_per_sec}, {"learning_rate", e.learning_rate}};
  if (e.has_validation) {
    j["val_loss"] = e.val_loss;
    j["val_accuracy"] = e.val_accuracy;
    j["val_top_k_accuracy"] = e.val_top_k_accuracy;
  }
  return j;
}

nlohmann::json to_json(const RunFinished& e) {
  return {{"type", "final"},
          {"status", run_status_name(e.status)},
          {"message", e.message},
          {"steps", e.steps},
          {"epochs_completed", e.epochs_completed},
          {"seconds", e.seconds},
          {"train_samples_per_sec", e.train_samples_per_sec},
          {"param_l2_norm", e.param_l2_norm}};
}

}  // namespace mirror
