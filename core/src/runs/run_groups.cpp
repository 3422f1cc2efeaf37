// Tested by tests/core/runs/test_run_groups.cpp.
#include "mirror/runs/run_groups.h"

#include <algorithm>
#include <limits>

namespace mirror {

std::vector<RunGroup> group_runs(const std::vector<RunRecord>& runs, const std::string& key) {
  std::vector<RunGroup> groups;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string value = config_value(runs[i], key);
    auto g = std::find_if(groups.begin(), groups.end(), [&value](const RunGroup& x) { return x.value == value; });
    if (g == groups.end()) {
      groups.push_back({value, {}});
      g = groups.end() - 1;
    }
    g->runs.push_back(i);
  }
  return groups;
}

namespace {
// `c`'s y at `x` (within its range), by the straight line between the points around it.
double at(const Curve& c, double x) {
  const auto next = std::lower_bound(c.begin(), c.end(), x, [](const auto& p, double v) { return p.first < v; });
  if (next == c.begin()) return next->second;
  if (next == c.end()) return c.back().second;
  const auto prev = next - 1;
  if (next->first == prev->first) return next->second;
  const double t = (x - prev->first) / (next->first - prev->first);
  return prev->second + t * (next->second - prev->second);
}
}  // namespace

CurveBand curve_band(const std::vector<Curve>& curves) {
  CurveBand band;
  if (curves.empty()) return band;
  double first = -std::numeric_limits<double>::infinity(), last = std::numeric_limits<double>::infinity();
  const Curve* densest = &curves.front();
  for (const Curve& c : curves) {
    if (c.empty()) return band;
    first = std::max(first, c.front().first);
    last = std::min(last, c.back().first);
    if (c.size() > densest->size()) densest = &c;
  }
  band.runs = curves.size();
  for (const auto& point : *densest) {
    const double x = point.first;
    if (x < first || x > last) continue;
    double sum = 0, low = std::numeric_limits<double>::infinity(), high = -low;
    for (const Curve& c : curves) {
      const double v = at(c, x);
      sum += v;
      low = std::min(low, v);
      high = std::max(high, v);
    }
    band.x.push_back(x);
    band.mean.push_back(sum / static_cast<double>(curves.size()));
    band.low.push_back(low);
    band.high.push_back(high);
  }
  return band;
}

}  // namespace mirror
