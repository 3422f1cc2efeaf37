#pragma once
// What mirrortrain prints as tables: aligned columns for people, or CSV for scripts.

#include <string>
#include <vector>

#include "mirror/runs/run_reader.h"

namespace mirror::cli {

// A CSV field, quoted when it holds a comma, a quote or a newline.
std::string csv_field(std::string s);
// A table of text cells: aligned columns, or CSV.
void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, bool csv);
// The differing settings and results of `runs` (comparison_table).
void print_comparison(const std::vector<RunRecord>& runs, bool csv);
// The scaling study's table, a row per replica count (scaling_study: medians of the tries and
// their range), and for people the baseline, the load average the runs saw and the reading.
void print_scaling(const std::vector<RunRecord>& runs, bool csv);

}  // namespace mirror::cli
