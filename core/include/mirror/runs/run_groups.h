#pragma once
// Runs read as groups, as one asks of repeats: the runs that share a setting's value (a learning
// rate, a replica count) are one group whose curves are summarised by their mean and their range
// at each x, with the number of runs behind them. Plain data; no torch, no Qt.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "mirror/runs/run_reader.h"

namespace mirror {

struct RunGroup {
  std::string value;         // the setting's value the group's runs share, as config_value gives it
  std::vector<size_t> runs;  // indices into the runs given, in their order
};
// The runs grouped by `key` (a flattened config key, "optimizer.learning_rate"), the groups in
// the order of their first run. One group of every run when they all share the value.
std::vector<RunGroup> group_runs(const std::vector<RunRecord>& runs, const std::string& key);

// A curve as (x, y) points, x increasing.
using Curve = std::vector<std::pair<double, double>>;

// A group's curves summarised: at each x of the curve with the most points where every curve has
// reached that x (each read by straight lines between its points), their mean, lowest and
// highest y. Empty when a curve is empty. `runs`: how many curves stand behind each point.
struct CurveBand {
  std::vector<double> x, mean, low, high;
  size_t runs = 0;
};
CurveBand curve_band(const std::vector<Curve>& curves);

}  // namespace mirror
