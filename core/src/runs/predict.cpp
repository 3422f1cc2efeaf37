#include "mirror/runs/predict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "mirror/runs/run_reader.h"
#include "mirror/strategy/step_timeline.h"
#include "mirror/util/error.h"
#include "predict_fit.h"

namespace mirror {
namespace predict_impl {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

namespace {

constexpr double kUnmeasurableBandwidth = 1e15;  // an all-reduce too fast to time: bytes/s

// The ring formula's two terms per unit α and per unit β: T = a·α + b·β.
std::pair<double, double> ring_terms(const AllReducePoint& p) {
  const double steps = 2.0 * (p.replicas - 1);
  return {steps, steps / p.replicas * p.bytes};
}

std::string ms(double seconds) { return fmt::format("{:.3g} ms", seconds * 1e3); }

// The share of its bytes each of n replicas sends in a ring all-reduce: 2(n-1)/n.
double ring_share(int n) { return 2.0 * (n - 1) / n; }

// What one timeline says, in seconds.
struct StepSample {
  double compute_per_example = 0;
  double transfer = 0;  // the all-reduce after backward (what the step waited for)
  // Buckets during backward (--overlap): the link's time before backward ended, backward's time
  // after the first bucket started (what could hide the link), and the buckets' own span, first
  // start to last end; 0 without an overlap.
  double hidden = 0;
  double window = 0;
  double span = 0;
  double update = 0;
  double overhead = 0;
  int replicas = 0;
  int64_t largest_shard = 0;
  int64_t global_batch = 0;
  bool simulated = false;
};

std::optional<StepSample> sample_of(const StepTimeline& t) {
  if (t.replicas.empty()) return std::nullopt;
  StepSample s;
  s.replicas = static_cast<int>(t.replicas.size());
  std::vector<double> per_example, updates;
  const ReplicaMarks* last = &t.replicas.front();
  double begin = 0, end = 0;
  for (const ReplicaMarks& r : t.replicas) {
    if (r.shard_size > 0) per_example.push_back((r.gradients_ready - r.copied) / r.shard_size);
    updates.push_back(r.updated - r.reduced);
    if (r.gradients_ready > last->gradients_ready) last = &r;
    s.largest_shard = std::max(s.largest_shard, r.shard_size);
    s.global_batch += r.shard_size;
    begin = std::min(begin, r.started);
    end = std::max(end, r.updated);
  }
  end = std::max(end, t.end_ms());  // the processes' step ends, on this clock
  if (per_example.empty()) return std::nullopt;
  double sum = 0;
  for (double v : per_example) sum += v;
  s.compute_per_example = sum / per_example.size() / 1e3;
  s.transfer = std::max(0.0, last->reduced - last->gradients_ready) / 1e3;
  for (const ProcessSpans& p : t.processes)
    if (p.process == last->process && p.overlap_end > p.overlap_begin) {
      s.hidden = std::max(0.0, std::min(p.overlap_end, last->gradients_ready) - p.overlap_begin) / 1e3;
      s.window = std::max(0.0, last->gradients_ready - p.overlap_begin) / 1e3;
      s.span = (p.overlap_end - p.overlap_begin) / 1e3;
    }
  sum = 0;
  for (double v : updates) sum += v;
  s.update = std::max(0.0, sum / updates.size()) / 1e3;
  const double last_compute = std::max(0.0, last->gradients_ready - last->copied) / 1e3;
  s.overhead = std::max(0.0, (end - begin) / 1e3 - last_compute - s.transfer - s.update);
  s.simulated = t.simulated_link;
  return s;
}
}  // namespace

std::string bytes_text(double b) {
  return b >= 1e6 ? fmt::format("{:.1f} MB", b / 1e6) : fmt::format("{:.0f} kB", b / 1e3);
}

FittedModel fit_sources(const std::vector<Source>& sources, const std::optional<LinkSpec>& fallback) {
  FittedModel model;
  std::vector<double> per_example, update, overhead;
  std::map<std::pair<int, double>, std::vector<double>> transfers;
  std::map<std::pair<int64_t, int64_t>, int> batches;  // (largest shard, global) -> timelines
  std::map<int, int> replica_counts;
  bool simulated = false;
  bool several_processes = false;
  double exchanged = 0, overlapped = 0;
  std::vector<double> span_share, span_s, window_per_example;
  for (const Source& src : sources) {
    if (model.usable_cores == 0 && src.usable_cores > 0) {  // the first run that says
      model.usable_cores = src.usable_cores;
      model.intra_op_threads = src.intra_op_threads;
      model.logical_cpu = src.logical_cpu;
    }
    if (!(src.gradient_bytes > 0)) throw DataError("the what-if needs the gradient size: no parameter count");
    if (model.gradient_bytes > 0 && model.gradient_bytes != src.gradient_bytes)
      throw DataError(fmt::format("the runs train models of different sizes ({:g} and {:g} gradient bytes)",
                                  model.gradient_bytes, src.gradient_bytes));
    model.gradient_bytes = src.gradient_bytes;
    // Rows only crossed (--sparse-exchange): the link carried these bytes, not the gradients'.
    const bool rows = src.exchanged_bytes > 0 && src.exchanged_bytes < 0.95 * src.gradient_bytes;
    if (rows) exchanged = src.exchanged_bytes;
    if (overlapped == 0) overlapped = src.overlap_bytes;
    for (const StepTimeline& t : *src.timelines) {
      auto s = sample_of(t);
      if (!s) continue;
      ++model.steps_used;
      per_example.push_back(s->compute_per_example);
      update.push_back(s->update);
      overhead.push_back(s->overhead);
      // The link's time for the step's bytes: what backward hid of it counts too.
      const double link_s = s->transfer + s->hidden;
      const double bytes = rows ? src.exchanged_bytes : src.gradient_bytes;
      if (s->replicas >= 2) transfers[{s->replicas, bytes}].push_back(link_s);
      if (s->window > 0 && s->largest_shard > 0) {
        span_share.push_back(link_s > 0 ? std::min(1.0, s->span / link_s) : 0);
        span_s.push_back(s->span);
        window_per_example.push_back(s->window / static_cast<double>(s->largest_shard));
      }
      ++batches[{s->largest_shard, s->global_batch}];
      ++replica_counts[s->replicas];
      simulated = simulated || s->simulated;
      several_processes = several_processes || t.processes.size() > 1;
    }
  }
  if (model.steps_used == 0)
    throw DataError("the what-if needs a step timeline with replicas; none was recorded");
  model.compute_per_example_s = median(per_example);
  model.update_s = median(update);
  model.overhead_s = median(overhead);
  // The configuration seen most often is "as measured" (a last, shorter batch of an epoch is not).
  auto common = std::max_element(batches.begin(), batches.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
  model.per_replica_batch = common->first.first;
  model.global_batch = common->first.second;
  model.measured_replicas = std::max_element(replica_counts.begin(), replica_counts.end(),
                                             [](const auto& a, const auto& b) { return a.second < b.second; })
                                ->first;
  for (const auto& [key, seconds] : transfers)
    model.allreduce_points.push_back({key.first, key.second, median(seconds)});
  std::string note;
  if (auto link = fit_link(model.allreduce_points, fallback, &note)) {
    model.measured_link = *link;
    model.measured_link_fitted = !model.allreduce_points.empty();
    // One process reduces in its own memory; "loopback" is several processes over this machine's network.
    if (model.measured_link_fitted && link->from_run && link->name == "loopback" && !several_processes)
      model.measured_link.name = "shared memory";
  }
  if (!note.empty()) model.notes.push_back(note);
  if (simulated)
    model.notes.push_back("the run's all-reduce was delayed by a simulated link, so the measured link is that one");
  if (exchanged > 0) {
    model.exchanged_bytes = exchanged;
    model.notes.push_back(fmt::format(
        "the processes exchanged {} a step, not the gradients' {} (the embedding's rows, --sparse-exchange): the "
        "link is fitted to those bytes and every count is predicted with them, though more processes send more rows",
        bytes_text(exchanged), bytes_text(model.gradient_bytes)));
  }
  if (!window_per_example.empty() && 2 * window_per_example.size() >= static_cast<size_t>(model.steps_used)) {
    const double all = model.exchanged_bytes > 0 ? model.exchanged_bytes : model.gradient_bytes;
    // A run recorded before the buckets' bytes were: their share of the link's time as their share of the bytes.
    const bool known = overlapped > 0;
    model.overlap_bytes = known ? std::min(overlapped, all) : median(span_share) * all;
    model.overlap_window_per_example_s = median(window_per_example);
    if (model.overlap_bytes > 0) model.overlap_seconds_per_byte = median(span_s) / model.overlap_bytes;
    model.notes.push_back(fmt::format(
        "part of the exchange ran during backward (--overlap): {}{} in {} while backward computed ({} of it after the "
        "first bucket); on another link they take its time for those bytes, or as long as here if that is longer",
        bytes_text(model.overlap_bytes), known ? "" : " (taken from their share of the link's time)", ms(median(span_s)),
        ms(model.overlap_window_per_example_s * static_cast<double>(model.per_replica_batch))));
  }
  return model;
}

}  // namespace predict_impl


std::optional<LinkSpec> fit_link(const std::vector<AllReducePoint>& points,
                                 const std::optional<LinkSpec>& fallback, std::string* note) {
  std::vector<AllReducePoint> usable;
  for (const AllReducePoint& p : points)
    if (p.replicas >= 2 && p.bytes > 0 && p.seconds >= 0) usable.push_back(p);
  auto say = [&](std::string text) {
    if (note) *note = std::move(text);
  };
  if (usable.empty()) {
    if (!fallback) {
      say("no all-reduce measured (one replica): name a link to predict over");
      return std::nullopt;
    }
    say(fmt::format("no all-reduce measured (one replica): the link is {}", fallback->describe()));
    return fallback;
  }
  LinkSpec link;
  // This machine's own link, or (a run trained over `--link`) this machine plus the simulated delay.
  link.name = fallback && fallback->simulated ? "measured-with-simulated-link" : "loopback";
  link.from_run = true;
  double alpha = 0, beta = 0;
  // Least squares of T = a·α + b·β over the points (normal equations of the 2x2 system).
  double saa = 0, sab = 0, sbb = 0, sat = 0, sbt = 0;
  for (const AllReducePoint& p : usable) {
    auto [a, b] = predict_impl::ring_terms(p);
    saa += a * a; sab += a * b; sbb += b * b; sat += a * p.seconds; sbt += b * p.seconds;
  }
  const double det = saa * sbb - sab * sab;
  const bool two_unknowns = usable.size() >= 2 && std::abs(det) > 1e-12 * saa * sbb;
  if (two_unknowns) {
    alpha = (sat * sbb - sbt * sab) / det;
    beta = (saa * sbt - sab * sat) / det;
    say(fmt::format("all-reduce α and β fitted on the ring formula from {} measured points", usable.size()));
  }
  if (!two_unknowns || alpha < 0 || beta <= 0) {
    // One equation (or a fit outside the physical range): α from the fallback, β from the rest.
    alpha = fallback ? fallback->latency_s : 0;
    double rest = 0;
    for (const AllReducePoint& p : usable) {
      auto [a, b] = predict_impl::ring_terms(p);
      rest += b * std::max(0.0, p.seconds - a * alpha);
    }
    beta = rest / sbb;
    say(fmt::format("all-reduce measured at one replica count only ({}): α taken as {} ({}), β fitted to "
                    "the time measured", usable.front().replicas, alpha == 0 ? "0" : predict_impl::ms(alpha),
                    fallback ? fallback->name : "no link given"));
  }
  link.latency_s = alpha;
  link.bandwidth_bytes_per_s = beta > 0 ? 1.0 / beta : predict_impl::kUnmeasurableBandwidth;
  link.source = "fitted from the run's all-reduce times";
  return link;
}

FittedModel fit_model(const std::vector<StepTimeline>& timelines, double gradient_bytes,
                      const std::optional<LinkSpec>& fallback_link) {
  return predict_impl::fit_sources({{&timelines, gradient_bytes}}, fallback_link);
}


double core_load(int replicas, int intra_op_threads, int usable_cores) {
  if (replicas < 1 || intra_op_threads < 1 || usable_cores < 1) return 1;
  return std::max(1.0, static_cast<double>(replicas) * intra_op_threads / usable_cores);
}

namespace predict_impl {

PredictedPoint point_at(const FittedModel& m, const CommModel& comm, Scaling scaling, int n, bool share_cores) {
  PredictedPoint p;
  p.devices = n;
  if (scaling == Scaling::kWeak) {
    p.per_replica_batch = m.per_replica_batch;
    p.global_batch = m.per_replica_batch * n;
  } else {
    p.global_batch = m.global_batch;
    p.per_replica_batch = std::max<int64_t>(1, (m.global_batch + n - 1) / n);  // the largest shard
  }
  // Logical CPU devices share the cores: compute per example as measured at measured_replicas,
  // scaled by how many times over n replicas ask for the cores against how many times those did.
  // Devices of their own (another link: machines, GPUs) each compute as one replica alone did, so
  // a measurement slowed by sharing is not carried to them (nor to one device, whatever its link).
  // Sharing them as a study measured: from the measured count at or below n, as it ran.
  const FittedModel::MeasuredCount* nearest = nullptr;
  if (share_cores)
    for (const auto& c : m.measured_counts)
      if (c.replicas <= n) nearest = &c;
  const int measured = nearest ? nearest->replicas : std::max(1, m.measured_replicas);
  const double measured_load = core_load(measured, m.intra_op_threads, m.usable_cores);
  if (share_cores)
    p.core_share = core_load(n, m.intra_op_threads, m.usable_cores) / measured_load;
  else if (m.logical_cpu)
    p.core_share = core_load(1, m.intra_op_threads, m.usable_cores) / measured_load;
  const double per_example = nearest ? nearest->compute_per_example_s : m.compute_per_example_s;
  p.compute_s = per_example * static_cast<double>(p.per_replica_batch) * p.core_share;
  const double bytes = m.exchanged_bytes > 0 ? m.exchanged_bytes : m.gradient_bytes;
  p.comm_s = allreduce_seconds(comm, n, bytes);
  if (n > 1 && m.overlap_bytes > 0 && m.overlap_seconds_per_byte > 0) {
    // Buckets during backward. On the run's own link they take their measured span (per byte, each
    // replica sending its ring's share). On another link, that link's time for their bytes or the
    // span, whichever is longer: while backward computes, Gloo's thread waits for a core, and the
    // seed's buckets took as long over loopback as over 1 Gbit/s (bench/sparse_exchange_link.md).
    // Backward's time after the first bucket (which grows with the shard as compute does) hides
    // them; the step's own exchange follows them on the link.
    const double host = m.overlap_seconds_per_byte * m.overlap_bytes * ring_share(n) / ring_share(std::max(2, m.measured_replicas));
    const double buckets = comm.link.from_run ? host : std::max(allreduce_seconds(comm, n, m.overlap_bytes), host);
    const double rest = comm.link.from_run ? std::max(0.0, p.comm_s - host)
                                           : allreduce_seconds(comm, n, std::max(0.0, bytes - m.overlap_bytes));
    const double window = m.overlap_window_per_example_s * static_cast<double>(p.per_replica_batch) * p.core_share;
    p.hidden_s = std::min(buckets, window);
    p.comm_s = buckets - p.hidden_s + rest;
  }
  p.update_s = nearest ? nearest->update_s : m.update_s;
  p.overhead_s = nearest ? nearest->overhead_s : m.overhead_s;
  p.step_s = p.overhead_s + p.compute_s + p.comm_s + p.update_s;
  p.samples_per_s = p.step_s > 0 ? static_cast<double>(p.global_batch) / p.step_s : 0;
  return p;
}

}  // namespace predict_impl

Prediction predict(const FittedModel& model, const PredictOptions& options) {
  if (options.devices.empty()) throw ConfigError("--devices: no device count to predict");
  if (options.devices_per_node < 1)
    throw ConfigError(fmt::format("devices per node {} must be at least 1", options.devices_per_node));
  Prediction out;
  out.model = model;
  out.scaling = options.scaling;
  out.comm.algorithm = options.algorithm;
  out.comm.devices_per_node = options.devices_per_node;
  if (options.intra_node_link) out.comm.intra_node_link = *options.intra_node_link;
  if (options.link && !options.link->from_run) {
    out.comm.link = *options.link;
  } else if (model.measured_link.bandwidth_bytes_per_s > 0) {
    out.comm.link = model.measured_link;
  } else {
    throw ConfigError("the run measured no all-reduce (it trained on one replica), so there is no link "
                      "of this machine to predict over: name one with --link (e.g. --link 10gbe)");
  }
  const bool own_link = !options.link || options.link->from_run;
  out.shares_cores = options.share_cores.value_or(own_link && model.logical_cpu) && model.usable_cores > 0 &&
                     model.intra_op_threads > 0;
  if (out.shares_cores)
    out.model.notes.push_back(fmt::format(
        "logical CPU devices share this machine's {} cores ({} intra-op thread{} each): compute per example is "
        "taken to grow with max(1, devices x threads / cores), against {} device{} measured",
        model.usable_cores, model.intra_op_threads, model.intra_op_threads == 1 ? "" : "s", model.measured_replicas,
        model.measured_replicas == 1 ? "" : "s"));
  const PredictedPoint one = predict_impl::point_at(model, out.comm, options.scaling, 1, out.shares_cores);
  for (int n : options.devices) {
    if (n < 1) throw ConfigError(fmt::format("--devices: {} is not a device count", n));
    PredictedPoint p = n == 1 ? one : predict_impl::point_at(model, out.comm, options.scaling, n, out.shares_cores);
    p.speedup = one.samples_per_s > 0 ? p.samples_per_s / one.samples_per_s : 0;
    p.efficiency = p.speedup / n;
    if (out.communication_bound_from == 0 && p.communication_bound()) out.communication_bound_from = n;
    out.points.push_back(p);
  }
  return out;
}

std::string Prediction::bound_sentence() const {
  if (points.empty()) return "";
  const std::string over = fmt::format("over {} ({})", comm.link.name, algorithm_name(comm.algorithm));
  if (communication_bound_from > 0) {
    const PredictedPoint& p =
        *std::find_if(points.begin(), points.end(),
                      [&](const PredictedPoint& q) { return q.devices == communication_bound_from; });
    return fmt::format("Communication-bound from {} device{}: the all-reduce {} takes {} against {} of compute.",
                       p.devices, p.devices == 1 ? "" : "s", over, predict_impl::ms(p.comm_s),
                       predict_impl::ms(p.compute_s));
  }
  const PredictedPoint& p = points.back();
  return fmt::format("Compute-bound up to {} device{}: at {} the all-reduce {} takes {} against {} of compute.",
                     p.devices, p.devices == 1 ? "" : "s", p.devices, over, predict_impl::ms(p.comm_s),
                     predict_impl::ms(p.compute_s));
}

}  // namespace mirror
