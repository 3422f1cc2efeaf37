// mirrortrain predict RUN...: the what-if fitted to recorded runs, predicted for more devices.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>

#include "commands.h"
#include "mirror/runs/predict.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"

namespace mirror::cli {
namespace {

std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.3g} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.3g} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.3g} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

nlohmann::json link_json(const LinkSpec& l) {
  nlohmann::json j = {{"name", l.name}, {"spec", l.spec_text()}, {"latency_s", l.latency_s},
                      {"source", l.source}, {"simulated", l.simulated}};
  if (!l.unlimited_bandwidth()) j["bandwidth_bytes_per_s"] = l.bandwidth_bytes_per_s;  // left out: unlimited
  return j;
}

nlohmann::json prediction_json(const std::vector<RunRecord>& runs, const Prediction& p) {
  const FittedModel& m = p.model;
  nlohmann::json points = nlohmann::json::array();
  for (const PredictedPoint& q : p.points)
    points.push_back({{"devices", q.devices}, {"per_replica_batch", q.per_replica_batch},
                      {"global_batch", q.global_batch}, {"step_ms", q.step_s * 1e3},
                      {"compute_ms", q.compute_s * 1e3}, {"allreduce_ms", q.comm_s * 1e3}, {"hidden_ms", q.hidden_s * 1e3},
                      {"update_ms", q.update_s * 1e3}, {"overhead_ms", q.overhead_s * 1e3},
                      {"samples_per_s", q.samples_per_s}, {"speedup", q.speedup}, {"efficiency", q.efficiency},
                      {"comm_share", q.comm_share()}, {"communication_bound", q.communication_bound()}});
  nlohmann::json model = {{"compute_per_example_ms", m.compute_per_example_s * 1e3},
                          {"overhead_ms", m.overhead_s * 1e3},
                          {"update_ms", m.update_s * 1e3},
                          {"gradient_bytes", m.gradient_bytes},
                          {"exchanged_bytes", m.exchanged_bytes},
                          {"overlap_bytes", m.overlap_bytes},
                          {"overlap_ms", m.overlap_seconds_per_byte * m.overlap_bytes * 1e3},
                          {"overlap_window_per_example_ms", m.overlap_window_per_example_s * 1e3},
                          {"per_replica_batch", m.per_replica_batch},
                          {"global_batch", m.global_batch},
                          {"measured_replicas", m.measured_replicas},
                          {"steps_used", m.steps_used},
                          {"measured_link", m.measured_link_fitted ? link_json(m.measured_link) : nlohmann::json()},
                          {"notes", m.notes}};
  nlohmann::json dirs = nlohmann::json::array();
  for (const RunRecord& r : runs) dirs.push_back(r.dir);
  return {{"run", runs.front().dir},
          {"runs", dirs},
          {"model", model},
          {"link", link_json(p.comm.link)},
          {"algorithm", algorithm_name(p.comm.algorithm)},
          {"devices_per_node", p.comm.devices_per_node},
          {"intra_node_link", p.comm.algorithm == AllReduceAlgorithm::kHierarchical
                                  ? link_json(p.comm.intra_node_link) : nlohmann::json()},
          {"scaling", scaling_name(p.scaling)},
          {"points", points},
          {"communication_bound_from", p.communication_bound_from},
          {"summary", p.bound_sentence()}};
}

void print_prediction(const std::vector<RunRecord>& runs, const Prediction& p) {
  const FittedModel& m = p.model;
  const std::string what = runs.size() == 1 ? terminal_text(runs.front().display_name())
                                            : fmt::format("a study of {}", counted(static_cast<int64_t>(runs.size()), "run"));
  fmt::print("What-if for {}: fitted to {} on {} (global batch {}, {} per replica)\n", what,
             counted(m.steps_used, "step"), counted(m.measured_replicas, "replica"), m.global_batch, m.per_replica_batch);
  fmt::print("  compute {:.4g} ms per example, update {:.3g} ms, other {:.3g} ms per step; gradients {}\n",
             m.compute_per_example_s * 1e3, m.update_s * 1e3, m.overhead_s * 1e3, bytes_text(m.gradient_bytes));
  if (m.measured_link_fitted) fmt::print("  this machine's all-reduce: {}\n", terminal_text(m.measured_link.describe()));
  for (const std::string& note : m.notes) fmt::print("  note: {}\n", terminal_text(note));
  fmt::print("Predicted over {} ({}), {} scaling{}:\n", terminal_text(p.comm.link.describe()),
             algorithm_name(p.comm.algorithm), scaling_name(p.scaling),
             p.scaling == Scaling::kWeak ? fmt::format(" ({} examples per replica)", m.per_replica_batch)
                                         : fmt::format(" (global batch {})", m.global_batch));
  if (p.comm.algorithm == AllReduceAlgorithm::kHierarchical)
    fmt::print("  inside a node ({} devices): {}\n", p.comm.devices_per_node,
               terminal_text(p.comm.intra_node_link.describe()));
  fmt::print("{:>8} {:>10} {:>12} {:>12} {:>9} {:>11} {:>11}\n", "devices", "batch", "step ms", "samples/s",
             "speed-up", "efficiency", "comm share");
  for (const PredictedPoint& q : p.points)
    fmt::print("{:>8} {:>10} {:>12.3f} {:>12.0f} {:>8.2f}x {:>10.0f}% {:>10.0f}%\n", q.devices, q.global_batch,
               q.step_s * 1e3, q.samples_per_s, q.speedup, q.efficiency * 100, q.comm_share() * 100);
  fmt::print("{}\n", p.bound_sentence());
}

int print_links() {
  fmt::print("Link presets (--link NAME; or --link latency=5us,bandwidth=1Gbit):\n");
  for (const LinkSpec& l : link_presets())
    fmt::print("{:<10} {:<36} {}\n", l.name, l.from_run ? "(fitted from the run)" : l.describe().substr(l.name.size() + 2),
               l.source);
  fmt::print("(Latencies are per ring step, from NCCL's own cost model: src/graph/tuning.cc, Simple protocol.)\n");
  return kExitOk;
}

}  // namespace

int run_predict(const PredictArgs& a) {
  try {
    if (a.list_links) return print_links();
    if (a.runs.empty()) throw ConfigError("predict: name a run (RUN), several (a study), or ask for --links");
    std::vector<RunRecord> runs;
    for (const std::string& name : a.runs) {
      runs.push_back(read_run(resolve_run(a.root, name)));
      for (const auto& w : runs.back().warnings)
        fmt::print(stderr, "mirrortrain: warning: {}: {}\n", terminal_text(runs.back().name), terminal_text(w, LineBreaks::kKeep));
    }
    PredictOptions options;
    if (!a.link.empty()) options.link = parse_link(a.link);
    options.algorithm = parse_algorithm(a.algorithm);
    options.scaling = a.scaling.empty() ? study_scaling(runs) : parse_scaling(a.scaling);
    options.devices = a.devices.empty() ? study_device_counts(runs) : parse_device_counts(a.devices);
    options.devices_per_node = a.devices_per_node;
    const Prediction p = predict(fit_study(runs), options);
    if (a.json) fmt::print("{}\n", prediction_json(runs, p).dump());
    else print_prediction(runs, p);
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

}  // namespace mirror::cli
