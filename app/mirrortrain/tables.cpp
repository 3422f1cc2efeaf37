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
  const auto rows = scaling_rows(runs);
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows)
    cells.push_back({r.run, std::to_string(r.replicas), fmt::format("{:.0f}", r.samples_per_sec),
                     fmt::format("{:.2f}", r.speedup), fmt::format("{:.2f}", r.ideal_speedup),
                     fmt::format("{:.0f}%", 100 * r.efficiency), fmt::format("{:.2f}", r.step_ms),
                     fmt::format("{:.2f}", r.compute_ms), fmt::format("{:.2f}", r.allreduce_ms),
                     fmt::format("{:.2f}", r.update_ms), fmt::format("{:.2f}", r.other_ms)});
  print_table({"run", "replicas", "samples/s", "speedup", "ideal", "efficiency", "step_ms", "compute_ms",
               "allreduce_ms", "update_ms", "other_ms"},
              cells, csv);
  if (!csv) {
    const std::string why = explain_scaling(rows);
    if (!why.empty()) fmt::print("\n{}\n", why);
  }
}

}  // namespace mirror::cli
