#include "tables.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "mirror/runs/compare.h"
#include "mirror/util/untrusted_text.h"

namespace mirror::cli {

std::string csv_cell(const std::string& text) {
  static const bool to_terminal = isatty(STDOUT_FILENO) == 1;
  return csv_field(to_terminal ? terminal_text(text, LineBreaks::kKeep) : text);
}

void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, bool csv) {
  if (csv) {
    for (size_t i = 0; i < header.size(); ++i) fmt::print("{}{}", i ? "," : "", csv_cell(header[i]));
    fmt::print("\n");
    for (const auto& row : rows) {
      for (size_t i = 0; i < row.size(); ++i) fmt::print("{}{}", i ? "," : "", csv_cell(row[i]));
      fmt::print("\n");
    }
    return;
  }
  // Names and config keys and values come from run.json: shown as terminal_text, header too.
  std::vector<std::vector<std::string>> shown{header};
  shown.insert(shown.end(), rows.begin(), rows.end());
  for (auto& row : shown)
    for (auto& cell : row) cell = terminal_text(cell);
  std::vector<size_t> width(header.size());
  for (const auto& row : shown)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : shown) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) fmt::print("{:<{}}  ", row[i], width[i]);
    fmt::print("\n");
  }
}

void print_comparison(const std::vector<RunRecord>& runs, bool csv) {
  const ComparisonTable t = comparison_table(runs);
  print_table(t.header, t.rows, csv);
  if (!csv && t.differing.empty()) fmt::print("(the runs share every setting)\n");
  if (!csv && !t.same_data.empty()) fmt::print("{}\n", terminal_text(t.same_data));
}

void print_scaling(const std::vector<RunRecord>& runs, bool csv) {
  const ScalingStudy study = scaling_study(runs);
  std::vector<std::vector<std::string>> cells;
  for (const auto& p : study.points)
    cells.push_back({std::to_string(p.replicas), std::to_string(p.tries), fmt::format("{:.0f}", p.samples_per_sec),
                     fmt::format("{:.0f}-{:.0f}", p.samples_per_sec_low, p.samples_per_sec_high),
                     fmt::format("{:.0f}%", 100 * p.spread), fmt::format("{:.2f}", p.speedup),
                     fmt::format("{:.2f}-{:.2f}", p.speedup_low, p.speedup_high), fmt::format("{:.2f}", p.ideal_speedup),
                     fmt::format("{:.0f}%", 100 * p.efficiency), fmt::format("{:.2f}", p.step_ms),
                     fmt::format("{:.2f}", p.compute_ms), fmt::format("{:.2f}", p.allreduce_ms),
                     fmt::format("{:.2f}", p.update_ms), fmt::format("{:.2f}", p.other_ms)});
  print_table({"replicas", "tries", "samples/s", "slowest-fastest", "spread", "speedup", "speedup_range", "ideal",
               "efficiency", "step_ms", "compute_ms", "allreduce_ms", "update_ms", "other_ms"},
              cells, csv);
  if (csv) return;
  fmt::print("(medians of the tries; the steady state: each run's second half of steps)\n\n{}\n{}\n", study.baseline, study.load);
  if (!study.reading.empty()) fmt::print("\n{}\n", terminal_text(study.reading));
}

}  // namespace mirror::cli
