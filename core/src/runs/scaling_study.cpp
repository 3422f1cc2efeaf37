// A scaling study: runs of one config on different replica counts, measured (samples/s, the
// step's parts, the spread of tries) and said in words (see compare.h).
// Tested by tests/core/runs/test_compare.cpp and tests/core/runs/test_scaling_words.cpp.
#include "mirror/runs/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"


namespace mirror {

namespace {
// A recorded load figure, -1 where it is missing or damaged.
double load_field(const nlohmann::json& machine, const char* key, double missing) {
  const double v = json_number(machine, key, missing);
  return std::isfinite(v) && v >= 0 ? v : missing;
}
}  // namespace

std::vector<ScalingRow> scaling_rows(const std::vector<RunRecord>& runs) {
  std::vector<ScalingRow> rows;
  for (const auto& r : runs) {
    if (r.steps.empty()) continue;
    ScalingRow row;
    row.run = r.display_name();
    row.replicas = replica_count(r);
    row.physical_devices = physical_device_count(r);
    const size_t skip = std::max<size_t>(1, r.steps.size() / 2);
    const size_t first = r.steps.size() > skip ? skip : 0;  // a one-step run keeps its step
    double seconds = 0, samples = 0;
    for (size_t i = first; i < r.steps.size(); ++i) {
      const StepMetrics& s = r.steps[i];
      seconds += s.step_seconds;
      samples += static_cast<double>(s.samples);
      row.compute_ms += s.compute_ms;
      row.allreduce_ms += s.allreduce_ms;
      row.update_ms += s.update_ms;
    }
    row.steps = static_cast<int64_t>(r.steps.size() - first);
    const double n = static_cast<double>(row.steps);
    row.samples_per_sec = seconds > 0 ? samples / seconds : 0;
    row.step_ms = 1000.0 * seconds / n;
    row.compute_ms /= n;
    row.allreduce_ms /= n;
    row.update_ms /= n;
    row.other_ms = std::max(0.0, row.step_ms - row.compute_ms - row.allreduce_ms - row.update_ms);
    if (const nlohmann::json* machine = json_field(r.run, "machine")) {
      // Clamped: a damaged run.json must not overflow replicas x threads.
      row.cores = static_cast<int>(std::clamp<int64_t>(json_int(*machine, "cores", 0), 0, 1 << 16));
      row.intra_op_threads = static_cast<int>(std::clamp<int64_t>(json_int(*machine, "intra_op_threads", 0), 0, 1 << 16));
      row.load_at_start = load_field(*machine, "load_average_at_start", -1);
      row.load_at_end = load_field(*machine, "load_average_at_end", -1);
      row.other_programs_cores = load_field(*machine, "other_programs_cores", -1);
    }
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ScalingRow& a, const ScalingRow& b) { return a.replicas < b.replicas; });
  if (rows.empty()) return rows;
  const ScalingRow base = rows.front();
  for (auto& row : rows) {
    row.speedup = base.samples_per_sec > 0 ? row.samples_per_sec / base.samples_per_sec : 0;
    // Logical devices carved out of one physical device share its cores: more of them cannot add
    // compute, so perfect scaling there means no slow-down.
    row.ideal_speedup = static_cast<double>(row.physical_devices) / base.physical_devices;
    row.efficiency = row.speedup / row.ideal_speedup;
  }
  return rows;
}

namespace {
double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Rows of one replica count (consecutive in `rows`) summarised.
ScalingPoint summarise(std::vector<ScalingRow>::const_iterator first, std::vector<ScalingRow>::const_iterator last) {
  ScalingPoint p;
  p.replicas = first->replicas;
  p.physical_devices = first->physical_devices;
  p.intra_op_threads = first->intra_op_threads;
  p.tries = static_cast<int>(last - first);
  auto median_of = [&](double ScalingRow::*field) {
    std::vector<double> v;
    for (auto it = first; it != last; ++it) v.push_back((*it).*field);
    return median(std::move(v));
  };
  p.samples_per_sec = median_of(&ScalingRow::samples_per_sec);
  const auto [slowest, fastest] = std::minmax_element(
      first, last, [](const ScalingRow& a, const ScalingRow& b) { return a.samples_per_sec < b.samples_per_sec; });
  p.samples_per_sec_low = slowest->samples_per_sec;
  p.samples_per_sec_high = fastest->samples_per_sec;
  p.spread = p.samples_per_sec > 0 ? (p.samples_per_sec_high - p.samples_per_sec_low) / p.samples_per_sec : 0;
  p.step_ms = median_of(&ScalingRow::step_ms);
  p.compute_ms = median_of(&ScalingRow::compute_ms);
  p.allreduce_ms = median_of(&ScalingRow::allreduce_ms);
  p.update_ms = median_of(&ScalingRow::update_ms);
  p.other_ms = median_of(&ScalingRow::other_ms);
  return p;
}

std::string threads_in_words(const ScalingPoint& p) {
  if (p.intra_op_threads <= 0) return counted(p.replicas, "replica");
  if (p.replicas == 1) return fmt::format("1 replica with {}", counted(p.intra_op_threads, "thread"));
  return fmt::format("{} with {} each ({} in all)", counted(p.replicas, "replica"), counted(p.intra_op_threads, "thread"),
                     p.replicas * p.intra_op_threads);
}

std::string baseline_in_words(const ScalingStudy& s) {
  const ScalingPoint& base = s.points.front();
  std::string out = fmt::format("Baseline: {}{}, {}.", threads_in_words(base),
                                s.cores > 0 ? fmt::format(" on {}", counted(s.cores, "core")) : std::string(),
                                base.tries == 1 ? std::string("measured once") : fmt::format("median of {} tries", base.tries));
  std::vector<std::string> others;
  for (size_t i = 1; i < s.points.size(); ++i) others.push_back(threads_in_words(s.points[i]));
  if (!others.empty()) out += fmt::format(" Against it: {}.", fmt::join(others, "; "));
  if (base.intra_op_threads > 0 && s.cores > 0 && base.replicas * base.intra_op_threads < s.cores)
    out += fmt::format(" The baseline used fewer threads than the {} cores, so part of any speed-up comes from "
                       "using more threads, not from more replicas.",
                       s.cores);
  return out;
}

std::string load_in_words(const ScalingStudy& s) {
  if (s.first_load < 0 && s.highest_load < 0) return "The runs recorded no load average (they were recorded by an older version).";
  std::string out = s.first_load < 0
                        ? fmt::format("Load average (1 minute): at most {:.2f} during the study", s.highest_load)
                        : fmt::format("Load average (1 minute): {:.2f} when the first run started, at most {:.2f} during "
                                      "the study",
                                      s.first_load, s.highest_load);
  if (s.cores > 0) out += fmt::format(", on {}", counted(s.cores, "core"));
  out += ".";
  if (s.other_programs_cores >= 0)
    out += fmt::format(" Other programs used at most {:.2f} cores during a run.", s.other_programs_cores);
  return out;
}
}  // namespace

namespace {
// What noisy tries still show: a difference larger than the spread, where every try of one count
// beat every try of the next.
std::string what_the_tries_show(const std::vector<ScalingPoint>& points) {
  std::vector<std::string> pairs;
  for (size_t i = 1; i < points.size(); ++i) {
    const ScalingPoint& a = points[i - 1];
    const ScalingPoint& b = points[i];
    const std::string ranges = fmt::format("{:.0f}-{:.0f} against {:.0f}-{:.0f} samples/s", b.samples_per_sec_low,
                                           b.samples_per_sec_high, a.samples_per_sec_low, a.samples_per_sec_high);
    if (b.samples_per_sec_low > a.samples_per_sec_high)
      pairs.push_back(fmt::format("{} were faster than {} in every try ({})", counted(b.replicas, "replica"),
                                  counted(a.replicas, "replica"), ranges));
    else if (b.samples_per_sec_high < a.samples_per_sec_low)
      pairs.push_back(fmt::format("{} were slower than {} in every try ({})", counted(b.replicas, "replica"),
                                  counted(a.replicas, "replica"), ranges));
    else
      pairs.push_back(fmt::format("{} cannot be told apart from {} (the tries overlap: {})", counted(b.replicas, "replica"),
                                  counted(a.replicas, "replica"), ranges));
  }
  return fmt::format("What the tries do show: {}.", fmt::join(pairs, "; "));
}
}  // namespace

namespace {
// A run's config without its devices: runs of one scaling study agree on it.
std::string config_but_devices(const RunRecord& r) {
  const nlohmann::json* config = json_field(r.run, "config");
  if (!config || !config->is_object()) return "{}";
  nlohmann::json c = *config;
  c.erase("devices");
  return c.dump();
}
}  // namespace

std::vector<std::vector<RunRecord>> scaling_groups(const std::vector<RunRecord>& runs) {
  std::vector<std::vector<RunRecord>> groups;
  std::vector<std::string> keys;
  for (const auto& r : runs) {
    const std::string key = config_but_devices(r);
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (at == keys.end()) {
      keys.push_back(key);
      groups.push_back({r});
    } else {
      groups[static_cast<size_t>(at - keys.begin())].push_back(r);
    }
  }
  return groups;
}

ScalingStudy scaling_study(const std::vector<RunRecord>& runs) {
  ScalingStudy s;
  // Checked without copying the runs (scaling_groups would): the window calls this at every selection.
  const std::string first = runs.empty() ? std::string() : config_but_devices(runs.front());
  const bool one_config =
      std::all_of(runs.begin(), runs.end(), [&](const RunRecord& r) { return config_but_devices(r) == first; });
  if (!one_config) {
    // Tries of one count must be the same config: medians over different learning rates (say)
    // would measure the settings, not the devices.
    std::vector<std::string> keys;
    for (const auto& k : differing_config_keys(runs))
      if (k.rfind("devices", 0) != 0) keys.push_back(k);
    s.mixed = true;
    s.reading = fmt::format("These runs differ in more than their devices ({}), so they are not one scaling study: "
                            "compare them on the curves page, or select the runs of one setting.",
                            fmt::join(keys, ", "));
    s.plain = s.reading;
    return s;
  }
  s.runs = scaling_rows(runs);
  for (auto it = s.runs.cbegin(); it != s.runs.cend();) {
    auto end = std::find_if(it, s.runs.cend(), [&](const ScalingRow& r) { return r.replicas != it->replicas; });
    s.points.push_back(summarise(it, end));
    it = end;
  }
  if (s.points.empty()) return s;
  const ScalingPoint base = s.points.front();
  for (auto& p : s.points) {
    auto against_base = [&](double v) { return base.samples_per_sec > 0 ? v / base.samples_per_sec : 0; };
    p.speedup = against_base(p.samples_per_sec);
    p.speedup_low = against_base(p.samples_per_sec_low);
    p.speedup_high = against_base(p.samples_per_sec_high);
    p.ideal_speedup = static_cast<double>(p.physical_devices) / base.physical_devices;
    p.efficiency = p.speedup / p.ideal_speedup;
    if (p.tries > 1) {
      s.measured_once = false;
      s.largest_spread = std::max(s.largest_spread, p.spread);
    }
  }
  // The machine: the first run in time says how busy it was before the study began (later runs
  // start in the wake of the study's own earlier runs, which the load average still counts).
  std::string first_started;
  for (const auto& r : runs) {
    const nlohmann::json* machine = json_field(r.run, "machine");
    if (r.steps.empty() || !machine) continue;
    s.cores = std::max(s.cores, static_cast<int>(std::clamp<int64_t>(json_int(*machine, "cores", 0), 0, 1 << 16)));
    const std::string started = json_string(r.run, "started_at", "");
    if (first_started.empty() || started < first_started) {
      first_started = started;
      s.first_load = load_field(*machine, "load_average_at_start", -1);
    }
  }
  for (const auto& r : s.runs) {
    s.highest_load = std::max({s.highest_load, r.load_at_start, r.load_at_end});
    s.other_programs_cores = std::max(s.other_programs_cores, r.other_programs_cores);
  }
  s.noisy = s.largest_spread > kNoisySpread;
  const bool others_busy = s.other_programs_cores > std::max(kBusyCores, 0.1 * s.cores);
  // The load average still counts the run that ended just before the study (the window's own,
  // say): it speaks only where the CPU other programs took was not measured.
  const bool loaded_before = s.other_programs_cores < 0 && s.cores > 0 && s.first_load > s.cores;
  s.busy = others_busy || loaded_before;
  s.baseline = baseline_in_words(s);
  s.load = load_in_words(s);
  if (s.points.size() < 2) return s;
  std::vector<std::string> doubts;
  if (others_busy)
    doubts.push_back(fmt::format("The machine was busy: other programs used up to {:.2f} of its {} while the runs "
                                 "measured.",
                                 s.other_programs_cores, counted(s.cores, "core")));
  if (loaded_before)
    doubts.push_back(fmt::format("The machine was busy: its load average was {:.2f} on {} before the first run.", s.first_load,
                                 counted(s.cores, "core")));
  if (s.noisy) {
    const auto worst = std::max_element(s.points.begin(), s.points.end(), [](const ScalingPoint& a, const ScalingPoint& b) {
      return (a.tries > 1 ? a.spread : 0) < (b.tries > 1 ? b.spread : 0);
    });
    doubts.push_back(fmt::format("The tries disagree: with {} they ranged from {:.0f} to {:.0f} samples/s, {:.0f}% of "
                                 "the median.",
                                 counted(worst->replicas, "replica"), worst->samples_per_sec_low, worst->samples_per_sec_high,
                                 100 * worst->spread));
  }
  if (!doubts.empty()) {
    s.plain = s.busy ? "Other programs were using the computer while these runs were timed, so their speeds say more "
                       "about those programs than about the replicas. Close other programs and run the study again."
                     : "Timing the same setting twice gave quite different speeds, so small differences here mean "
                       "nothing. Run the study again with more tries or longer runs.";
    s.reading = fmt::format("{} So these numbers cannot be explained yet: run the study again on a quiet machine, "
                            "with more tries or more steps per run.",
                            fmt::join(doubts, " "));
    if (!s.busy) s.reading += " " + what_the_tries_show(s.points);
    return s;
  }
  s.reading = s.measured_once ? "Each device count was measured once, so how much the numbers vary is unknown; run the "
                                "study with several tries before trusting them. "
                              : fmt::format("Medians of the tries, which agreed within {:.0f}%. ", 100 * s.largest_spread);
  s.reading += explain_scaling(s.points);
  s.plain = (s.measured_once ? "Each setting was timed once, so treat these numbers as rough. " : "") +
            explain_scaling_plainly(s.points);
  return s;
}

std::string explain_scaling_plainly(const std::vector<ScalingPoint>& points) {
  if (points.size() < 2) return {};
  const ScalingPoint& a = points.front();
  const ScalingPoint& b = points.back();
  const std::string speed =
      b.speedup >= 1.05   ? fmt::format("{:.1f} times as fast", b.speedup)
      : b.speedup > 0.95 ? std::string("about as fast")
                         : fmt::format("slower: {:.0f}% of the speed", 100 * b.speedup);
  std::string out = fmt::format("With {} the model trained on {:.0f} examples a second; with {}, {:.0f}: {}. ",
                                counted(a.replicas, "replica"), a.samples_per_sec, counted(b.replicas, "replica"),
                                b.samples_per_sec, speed);
  if (b.physical_devices == a.physical_devices)
    out += "All the replicas share the same processor, so more of them split the same work rather than adding "
           "computing power: keeping the speed is the best they can do. ";
  else
    out += fmt::format("Perfect scaling would be {:.1f} times as fast. ", b.ideal_speedup);
  if (b.efficiency > 1.1)
    out += fmt::format("It got faster all the same because one replica alone left part of the processor idle; {} "
                       "working side by side kept it busy. ",
                       counted(b.replicas, "replica"));
  const double wait = b.allreduce_ms + b.other_ms;
  if (b.step_ms > 0 && wait > 0.25 * b.step_ms)
    out += fmt::format("Each step the replicas wait for one another and add up what they learned before anyone "
                       "may go on: with {} that took {:.1f} of every {:.1f} ms.",
                       counted(b.replicas, "replica"), wait, b.step_ms);
  else if (b.step_ms > 0)
    out += fmt::format("Most of each step ({:.1f} of {:.1f} ms with {}) is the computing itself.", b.compute_ms, b.step_ms,
                       counted(b.replicas, "replica"));
  return out;
}

std::string explain_scaling(const std::vector<ScalingPoint>& points) {
  if (points.size() < 2) return {};
  const ScalingPoint& a = points.front();
  const ScalingPoint& b = points.back();
  std::string out = fmt::format(
      "From {} to {} throughput went from {:.0f} to {:.0f} samples/s ({:.2f}x; perfect scaling "
      "would give {:.2f}x, so efficiency is {:.0f}%). ",
      counted(a.replicas, "replica"), counted(b.replicas, "replica"), a.samples_per_sec, b.samples_per_sec, b.speedup, b.ideal_speedup, 100 * b.efficiency);
  if (b.physical_devices == a.physical_devices)
    out += fmt::format(
        "All replicas share {}, so adding logical devices splits the same compute "
        "between more replicas: the best possible is no slow-down. ",
        b.physical_devices == 1 ? std::string("one physical device") : counted(b.physical_devices, "physical device"));
  if (b.efficiency > 1.1)
    out += fmt::format(
        "Efficiency above 100% means {} left the hardware idle part of the time: intra-op threads inside "
        "one replica parallelise small operations poorly, while independent replicas keep every core busy. ",
        counted(a.replicas, "replica"));
  out += fmt::format("A step took {:.2f} ms with {} (compute {:.2f}, all-reduce {:.2f}, update {:.2f}) and "
                     "{:.2f} ms with {} (compute {:.2f}, all-reduce {:.2f}, update {:.2f}).",
                     a.step_ms, counted(a.replicas, "replica"), a.compute_ms, a.allreduce_ms, a.update_ms, b.step_ms,
                     counted(b.replicas, "replica"),
                     b.compute_ms, b.allreduce_ms, b.update_ms);
  const double grown_sync = (b.allreduce_ms + b.other_ms) - (a.allreduce_ms + a.other_ms);
  if (b.step_ms > a.step_ms && grown_sync > 0.25 * (b.step_ms - a.step_ms))
    out += fmt::format(" Synchronisation (all-reduce and hand-offs) grew by {:.2f} ms per step: the replicas wait "
                       "for each other and for the reduction, time no single device spends.",
                       grown_sync);
  return out;
}

}  // namespace mirror
