// Steps as a Chrome Trace Event Format document (see trace.h for what it holds).
#include "mirror/runs/trace.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <system_error>

#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/strategy/phase_names.h"
#include "mirror/train/events_json.h"
#include "mirror/util/error.h"

namespace mirror {

using nlohmann::json;

StepRange parse_step_range(const std::string& text) {
  auto number = [&](const std::string& part) -> int64_t {
    if (part.empty() || part.size() > 18 || part.find_first_not_of("0123456789") != std::string::npos)
      throw ConfigError(fmt::format("invalid step range '{}': expected A-B with whole numbers, e.g. 1-20", text));
    return std::stoll(part);
  };
  const size_t dash = text.find('-');
  StepRange r;
  r.first = number(text.substr(0, dash));
  r.last = dash == std::string::npos ? r.first : number(text.substr(dash + 1));
  if (r.first < 1) throw ConfigError(fmt::format("invalid step range '{}': steps count from 1", text));
  if (r.first > r.last)
    throw ConfigError(fmt::format("invalid step range '{}': the first step ({}) is after the last ({})", text,
                                  r.first, r.last));
  return r;
}

int64_t timeline_step(const StepMetrics& m) {
  return m.timeline.global_step > 0 ? m.timeline.global_step : m.global_step;
}

// Internal, named rather than anonymous: a unity build puts this file beside others in one unit.
namespace trace_internal {

// The marks of one replica made non-decreasing, so that its spans have no negative length and nest.
ReplicaMarks ordered(ReplicaMarks m) {
  m.copied = std::max(m.copied, m.started);
  m.forward_done = std::max(m.forward_done, m.copied);
  m.gradients_ready = std::max(m.gradients_ready, m.forward_done);
  m.reduced = std::max(m.reduced, m.gradients_ready);
  m.updated = std::max(m.updated, m.reduced);
  return m;
}

// Times are whole nanoseconds until written: sums and comparisons stay exact, so spans that touch
// or nest on the step's clock touch or nest in the file.
// A value no clock gives (not finite, beyond a year) reads as 0 rather than overflowing.
int64_t ns(double ms) {
  constexpr double kYearMs = 365.0 * 24 * 3600 * 1e3;
  return std::isfinite(ms) && std::abs(ms) < kYearMs ? std::llround(ms * 1e6) : 0;
}
// Milliseconds rounded to whole nanoseconds, for args.
double ms_to_ns(double ms) { return std::round(ms * 1e6) / 1e6; }
// `t` nanoseconds as the format's microseconds: the double nearest t / 1000 that Perfetto's
// importer, which truncates ts * 1000 to whole nanoseconds, reads back as exactly `t` (the
// nearest one can be a hair below and read as t - 1, and then touching spans overlap).
double us(int64_t t) {
  double d = static_cast<double>(t) / 1e3;
  while (static_cast<int64_t>(d * 1000.0) < t) d = std::nextafter(d, std::numeric_limits<double>::infinity());
  return d;
}

int pid_of(int process) { return process + 1; }  // pid 0 reads as "no process" in some viewers
int tid_of_replica(int replica) { return replica + 1; }
constexpr int kTrainerTid = 0;
// The buckets all-reduced while backward runs: a track of their own, since they start inside the
// replica's backward and may end after the trainer's all-reduce began.
constexpr int kOverlapTid = 1 << 20;

// A timeline chosen for the trace, with the step metrics of the step it describes (or none).
struct Traced {
  int64_t step = 0;
  const StepTimeline* timeline = nullptr;
  const StepMetrics* metrics = nullptr;
  std::vector<ReplicaMarks> replicas;  // ordered()
  double lo = 0, hi = 0;               // the earliest and latest time on its clock, ms
  int64_t origin = 0;                  // where its clock's 0 lies in the trace, ns since the run started
};

// The timelines in range, in step order (the last one given for a step wins), placed on one clock.
std::vector<Traced> select(const std::vector<StepMetrics>& steps, const StepRange& range) {
  std::map<int64_t, const StepMetrics*> by_step, timelines;
  for (const auto& m : steps) {
    if (m.global_step > 0) by_step[m.global_step] = &m;
    if (!m.timeline.empty() && range.contains(timeline_step(m))) timelines[timeline_step(m)] = &m;
  }
  std::vector<Traced> out;
  for (const auto& [step, carrier] : timelines) {
    Traced t;
    t.step = step;
    t.timeline = &carrier->timeline;
    auto found = by_step.find(step);
    t.metrics = found != by_step.end() ? found->second : nullptr;
    t.lo = 0;
    t.hi = 0;
    for (const auto& r : t.timeline->replicas) {
      t.replicas.push_back(ordered(r));
      t.lo = std::min(t.lo, t.replicas.back().started);
      t.hi = std::max(t.hi, t.replicas.back().updated);
    }
    for (const auto& p : t.timeline->processes) {
      if (p.exchange_begin != 0 || p.exchange_end != 0) t.lo = std::min(t.lo, p.exchange_begin);
      t.hi = std::max({t.hi, p.exchange_end, p.step_end, p.overlap_end});
      if (p.overlap_end > 0) t.lo = std::min(t.lo, p.overlap_begin);
    }
    for (const auto& i : t.timeline->idle) t.lo = std::min(t.lo, i.begin);
    out.push_back(std::move(t));
  }
  // Each step's 0 at its real start; later only where it would overlap the step before.
  int64_t previous_end = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    Traced& t = out[k];
    const int64_t earliest = previous_end - ns(t.lo);
    const StepMetrics* m = t.metrics;
    const bool real = m && m->wall_seconds > 0;
    t.origin = real ? std::max(ns((m->wall_seconds - m->step_seconds) * 1e3), earliest) : earliest;
    previous_end = t.origin + ns(t.hi);
  }
  return out;
}

class TraceBuilder {
 public:
  explicit TraceBuilder(const TraceOptions& options) : options_(options) {}

  void add(const Traced& t) {
    const StepTimeline& tl = *t.timeline;
    auto at = [&](double ms) { return t.origin + ns(ms); };

    std::set<int> processes;
    for (const auto& r : t.replicas) processes.insert(r.process);
    for (const auto& p : tl.processes) processes.insert(p.process);
    for (const auto& i : tl.idle) processes.insert(i.process);

    // The moment the last replica entered the all-reduce: everyone waits for it.
    double last_arrival = -std::numeric_limits<double>::infinity();
    int last_replica = -1;
    for (const auto& r : t.replicas)
      if (r.gradients_ready > last_arrival) last_arrival = r.gradients_ready, last_replica = r.replica;

    for (const auto& i : tl.idle) {
      json args = {{"step", t.step}, {"ms", ms_to_ns(i.end - i.begin)}};
      span(i.process, kTrainerTid, idle_kind_name(i.kind), "idle", at(i.begin), at(i.end), std::move(args));
    }

    for (int p : processes) {
      const ProcessSpans* spans = nullptr;
      for (const auto& s : tl.processes)
        if (s.process == p) spans = &s;
      const bool exchanged = spans && (spans->exchange_begin != 0 || spans->exchange_end != 0);

      // The step on this process's trainer, then its all-reduce over its replicas, the cross-process
      // exchange nested inside.
      double begin = p == 0 ? 0 : std::numeric_limits<double>::infinity();
      double end = spans ? spans->step_end : 0;
      double reduce_begin = -std::numeric_limits<double>::infinity(), reduce_end = reduce_begin;
      int local = 0;
      for (const auto& r : t.replicas) {
        if (r.process != p) continue;
        ++local;
        begin = std::min(begin, r.started);
        end = std::max(end, r.updated);
        reduce_begin = std::max(reduce_begin, r.gradients_ready);
        reduce_end = std::max(reduce_end, r.reduced);
      }
      if (exchanged) {
        begin = std::min(begin, spans->exchange_begin);
        end = std::max(end, spans->exchange_end);
        if (local == 0) reduce_begin = spans->exchange_begin, reduce_end = spans->exchange_end;
        reduce_begin = std::min(reduce_begin, spans->exchange_begin);
        reduce_end = std::max(reduce_end, spans->exchange_end);
      }
      if (!std::isfinite(begin)) begin = 0;
      json step_args = {{"step", t.step}, {"replicas", local}};
      if (spans) step_args["offset_ms"] = spans->offset_ms;
      span(p, kTrainerTid, fmt::format("step {}", t.step), "step", at(begin), at(end), std::move(step_args));

      if (std::isfinite(reduce_begin)) {
        json args = {{"step", t.step}, {"last_to_arrive", last_replica}};
        if (tl.simulated_link) args["simulated_ms"] = tl.simulated_allreduce_ms;
        const int64_t b = at(reduce_begin), e = at(reduce_end);
        span(p, kTrainerTid, tl.simulated_link ? kPhaseAllReduceSimulated : kPhaseAllReduce, "all-reduce", b, e,
             std::move(args));
        // Each of its replicas' gradients flow into it.
        const int64_t arrow_end = e - b >= 2 ? b + 1 : b;
        for (const auto& r : t.replicas) {
          if (r.process != p) continue;
          const int64_t ready = at(r.gradients_ready);
          const int64_t arrow_begin = ready - at(r.forward_done) >= 2 ? ready - 1 : ready;
          flow(p, r.replica, arrow_begin, arrow_end);
        }
      }
      if (spans && spans->overlap_end > 0) {
        span(p, kOverlapTid, kPhaseOverlap, "all-reduce", at(spans->overlap_begin), at(spans->overlap_end),
             {{"step", t.step}});
        overlapped_.insert(p);
      }
      if (exchanged) {
        json args = {{"step", t.step}, {"offset_ms", spans->offset_ms}};
        span(p, kTrainerTid, kPhaseExchange, "all-reduce", at(spans->exchange_begin), at(spans->exchange_end),
             std::move(args));
      }
    }

    for (const auto& r : t.replicas) {
      const int tid = tid_of_replica(r.replica);
      auto phase = [&](const char* name, double b, double e, json args = json::object()) {
        args["step"] = t.step;
        span(r.process, tid, name, "replica", at(b), at(e), std::move(args));
      };
      phase(kPhaseCopy, r.started, r.copied, {{"shard", r.shard_size}});
      phase(kPhaseForward, r.copied, r.forward_done);
      phase(kPhaseBackward, r.forward_done, r.gradients_ready);
      json reduce_args = {{"wait_ms", ms_to_ns(std::clamp(last_arrival - r.gradients_ready, 0.0, r.allreduce_ms()))}};
      if (tl.simulated_link) reduce_args["simulated_ms"] = tl.simulated_allreduce_ms;
      phase(tl.simulated_link ? kPhaseAllReduceSimulated : kPhaseAllReduce, r.gradients_ready, r.reduced,
            std::move(reduce_args));
      const double waited_until = std::clamp(last_arrival, r.gradients_ready, r.reduced);
      if (waited_until > r.gradients_ready) phase(kPhaseAllReduceWait, r.gradients_ready, waited_until);
      phase(kPhaseAllReduceTransfer, waited_until, r.reduced);
      phase(kPhaseUpdate, r.reduced, r.updated);
      replicas_.emplace(r.replica, r.process);
    }
    for (int p : processes) processes_.insert(p);

    if (t.metrics) {
      const int64_t end = at(t.hi);
      counter("loss", end, t.metrics->loss);
      if (t.metrics->learning_rate > 0) counter("learning rate", end, t.metrics->learning_rate);
    }
  }

  json finish() {
    // In time order (stable: a slice stays before the slices nested in it that start with it).
    std::stable_sort(events_.begin(), events_.end(),
                     [](const Event& a, const Event& b) { return a.ts < b.ts; });
    json all = json::array();
    for (int p : processes_) {
      std::string name = fmt::format("rank {}", p);
      if (p < static_cast<int>(options_.hosts.size()) && !options_.hosts[p].empty())
        name += fmt::format(" (host {})", options_.hosts[p]);
      all.push_back(metadata("process_name", p, kTrainerTid, name));
      all.push_back(metadata("process_sort_index", p, kTrainerTid, p));
      all.push_back(metadata("thread_name", p, kTrainerTid, std::string("trainer · all-reduce")));
      all.push_back(metadata("thread_sort_index", p, kTrainerTid, 0));
    }
    for (int p : overlapped_) {
      all.push_back(metadata("thread_name", p, kOverlapTid, std::string(kPhaseOverlap)));
      all.push_back(metadata("thread_sort_index", p, kOverlapTid, 0));
    }
    for (const auto& [replica, process] : replicas_) {
      std::string name = fmt::format("replica {}", replica);
      if (replica >= 0 && replica < static_cast<int>(options_.devices.size()))
        name += fmt::format(" · {}", options_.devices[replica]);
      all.push_back(metadata("thread_name", process, tid_of_replica(replica), name));
      all.push_back(metadata("thread_sort_index", process, tid_of_replica(replica), tid_of_replica(replica)));
    }
    for (auto& e : events_) {
      e.json["ts"] = us(e.ts);
      all.push_back(std::move(e.json));
    }
    return all;
  }

 private:
  void span(int process, int tid, std::string name, const char* category, int64_t begin, int64_t end, json args) {
    events_.push_back({begin, {{"name", std::move(name)},
                               {"cat", category},
                               {"ph", "X"},
                               {"dur", us(std::max<int64_t>(0, end - begin))},
                               {"pid", pid_of(process)},
                               {"tid", tid},
                               {"args", std::move(args)}}});
  }
  void flow(int process, int replica, int64_t begin, int64_t end) {
    const int64_t id = ++flows_;
    events_.push_back({begin, {{"name", kPhaseGradientsReady}, {"cat", "gradients"}, {"ph", "s"}, {"id", id},
                               {"pid", pid_of(process)}, {"tid", tid_of_replica(replica)}}});
    events_.push_back({std::max(end, begin), {{"name", kPhaseGradientsReady}, {"cat", "gradients"}, {"ph", "f"},
                                              {"bp", "e"}, {"id", id}, {"pid", pid_of(process)},
                                              {"tid", kTrainerTid}}});
  }
  void counter(const char* name, int64_t ts, double value) {
    events_.push_back({ts, {{"name", name}, {"ph", "C"}, {"pid", pid_of(0)}, {"tid", kTrainerTid},
                            {"args", {{name, value}}}}});
  }
  template <class T>
  static json metadata(const char* what, int process, int tid, const T& value) {
    const char* key = std::string_view(what).find("sort_index") != std::string_view::npos ? "sort_index" : "name";
    return {{"name", what}, {"ph", "M"}, {"pid", pid_of(process)}, {"tid", tid}, {"args", {{key, value}}}};
  }

  const TraceOptions& options_;
  struct Event {
    int64_t ts;  // ns since the run started; written as the event's "ts" in µs
    nlohmann::json json;
  };
  std::vector<Event> events_;
  std::set<int> processes_;
  std::set<int> overlapped_;  // processes with buckets all-reduced during backward
  std::map<int, int> replicas_;  // replica -> its process
  int64_t flows_ = 0;
};

}  // namespace trace_internal

json trace_json(const std::vector<StepMetrics>& steps, const TraceOptions& options) {
  trace_internal::TraceBuilder builder(options);
  const std::vector<trace_internal::Traced> traced = trace_internal::select(steps, options.steps);
  for (const auto& t : traced) builder.add(t);
  json other = {{"generator", "Mirror Workbench"},
                {"steps", fmt::format("{}-{}", options.steps.first, options.steps.last)},
                {"steps_traced", traced.size()},
                {"clock", "microseconds since the run started; each step's 0 at its start "
                          "(wall_seconds - step_seconds), moved later only to avoid overlapping the step before"}};
  if (!options.label.empty()) other["run"] = options.label;
  return {{"traceEvents", builder.finish()}, {"displayTimeUnit", "ms"}, {"otherData", std::move(other)}};
}

int64_t traced_steps(const std::vector<StepMetrics>& steps, const TraceOptions& options) {
  return static_cast<int64_t>(trace_internal::select(steps, options.steps).size());
}

TraceOptions trace_options_of(const RunRecord& run, StepRange steps) {
  auto strings_at = [&](const char* pointer) {
    std::vector<std::string> out;
    const json::json_pointer key(pointer);
    if (!run.run.is_object() || !run.run.contains(key) || !run.run.at(key).is_array()) return out;
    for (const auto& v : run.run.at(key)) out.push_back(v.is_string() ? v.get<std::string>() : std::string());
    return out;
  };
  TraceOptions o;
  o.steps = steps;
  o.devices = strings_at("/devices");
  o.hosts = strings_at("/workers/hosts");
  o.label = run.display_name();
  return o;
}

std::vector<StepMetrics> steps_with_timelines(const RunRecord& run, StepRange steps) {
  std::map<int64_t, StepMetrics> by_step;
  for (const auto& m : run.steps)
    if (steps.contains(m.global_step)) by_step[m.global_step] = m;
  for (const auto& t : run.timelines) {
    if (!steps.contains(t.global_step)) continue;
    StepMetrics& m = by_step[t.global_step];
    m.global_step = t.global_step;
    m.timeline = t;
  }
  std::vector<StepMetrics> out;
  for (auto& [step, m] : by_step) out.push_back(std::move(m));
  return out;
}

TraceWritten write_trace(const std::string& path, const std::vector<StepMetrics>& steps, const TraceOptions& options) {
  const std::string target = trace_target(path);
  TraceWritten w;
  w.path = path;
  w.steps = traced_steps(steps, options);
  if (w.steps == 0) {
    int64_t lo = 0, hi = 0;
    for (const auto& m : steps)
      if (!m.timeline.empty()) {
        const int64_t s = timeline_step(m);
        lo = lo == 0 ? s : std::min(lo, s);
        hi = std::max(hi, s);
      }
    throw ConfigError(lo == 0 ? fmt::format("no step carries a timeline: nothing to trace")
                              : fmt::format("no timeline of steps {}-{}: the run has timelines of steps {}-{}",
                                            options.steps.first, options.steps.last, lo, hi));
  }
  const std::string text = trace_json(steps, options).dump();
  try {
    write_file_atomically(target, text);
  } catch (const std::exception& e) {
    throw RunError(fmt::format("cannot write the trace: {}", e.what()));
  }
  w.bytes = text.size();
  return w;
}

}  // namespace mirror
