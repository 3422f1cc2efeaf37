#pragma once
// What mirrortrain prints as tables: aligned columns for people, or CSV for scripts.

#include <string>
#include <vector>

#include "mirror/runs/run_reader.h"

namespace mirror::cli {

// One CSV cell of mirrortrain's output: csv_field(text), the text exact when stdout is a file or a
// pipe (data for a script or a spreadsheet), its control characters shown as terminal_text shows
// them when stdout is a terminal (an ESC sequence in a name would otherwise drive it).
std::string csv_cell(const std::string& text);

// A table of text cells: aligned columns (each cell as terminal_text shows it), or CSV (each
// cell a csv_cell).
void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, bool csv);
// The differing settings and results of `runs` (comparison_table).
void print_comparison(const std::vector<RunRecord>& runs, bool csv);
// The scaling study's table, a row per replica count (scaling_study: medians of the tries and
// their range), and for people the baseline, the load average the runs saw and the reading.
void print_scaling(const std::vector<RunRecord>& runs, bool csv);

}  // namespace mirror::cli
