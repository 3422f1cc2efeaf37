#include "tables.h"

#include <fmt/format.h>

#include <algorithm>

#include "mirror/runs/compare.h"

namespace mirror::cli {

std::string csv_field(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, bool csv) {
  if (csv) {
    for (size_t i = 0; i < header.size(); ++i) fmt::print("{}{}", i ? "," : "", csv_field(header[i]));
    fmt::print("\n");
    for (const auto& row : rows) {
      for (size_t i = 0; i < row.size(); ++i) fmt::print("{}{}", i ? "," : "", csv_field(row[i]));
      fmt::print("\n");
    }
    return;
  }
  std::vector<size_t> width(header.size());
  for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto print_row = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) fmt::print("{:<{}}  ", row[i], width[i]);
    fmt::print("\n");
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

void print_comparison(const std::vector<RunRecord>& runs, bool csv) {
  const ComparisonTable t = comparison_table(runs);
  print_table(t.header, t.rows, csv);
  if (!csv && t.differing.empty()) fmt::print("(the runs share every setting)\n");
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
  if (!study.reading.empty()) fmt::print("\n{}\n", study.reading);
}

}  // namespace mirror::cli
