#include "mirror/runs/compare.h"

#include <fmt/format.h>

#include <algorithm>

#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"

namespace mirror {

std::string run_dataset_label(const RunRecord& r) { return config_value(r, "dataset.name"); }

std::string run_model_label(const RunRecord& r) {
  const std::string preset = config_value(r, "preset");
  if (!preset.empty() && preset != "-") return preset;
  const nlohmann::json* config = json_field(r.run, "config");
  const nlohmann::json* model = config ? json_field(*config, "model") : nullptr;
  return model ? json_string(*model, "name", "?") : "?";
}

ComparisonTable comparison_table(const std::vector<RunRecord>& runs) {
  ComparisonTable t;
  t.differing = differing_config_keys(runs);
  t.header = {"run"};
  t.header.insert(t.header.end(), t.differing.begin(), t.differing.end());
  for (const char* h : {"status", "final_loss", "final_val_loss", "best_val_accuracy", "seconds"}) t.header.push_back(h);
  for (const auto& r : runs) {
    std::vector<std::string> row = {r.display_name()};
    for (const auto& k : t.differing) {
      std::string v = config_value(r, k);
      if (k == "model" && v != "-") {
        const auto model = nlohmann::json::parse(v, nullptr, false);
        const nlohmann::json* layers = json_field(model, "layers");
        v = fmt::format("{} layers", layers && layers->is_array() ? layers->size() : 0);
      }
      row.push_back(std::move(v));
    }
    const EpochMetrics* last = r.epochs.empty() ? nullptr : &r.epochs.back();
    row.push_back(r.status);
    row.push_back(last ? fmt::format("{:.4f}", last->loss)
                       : r.steps.empty() ? "-" : fmt::format("{:.4f}", r.steps.back().loss));
    row.push_back(last && last->has_validation ? fmt::format("{:.4f}", last->val_loss) : "-");
    row.push_back(r.best_val_accuracy < 0 ? "-" : fmt::format("{:.4f}", r.best_val_accuracy));
    row.push_back(fmt::format("{:.1f}", r.duration_seconds));
    t.rows.push_back(std::move(row));
  }
  return t;
}

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

std::string explain_scaling(const std::vector<ScalingRow>& rows) {
  if (rows.size() < 2) return {};
  const ScalingRow& a = rows.front();
  const ScalingRow& b = rows.back();
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
