// The what-if over the runs a person chose: one run's fit, or a scaling study's (see predict.h).
#include <algorithm>
#include <map>
#include <set>

#include "mirror/runs/predict.h"
#include "mirror/runs/run_reader.h"

namespace mirror {

FittedModel fit_study(const std::vector<RunRecord>& runs) {
  if (runs.size() == 1) return fit_model(runs.front());
  FittedModel pooled = fit_model(runs);
  std::map<int, std::vector<RunRecord>> by_replicas;
  for (const RunRecord& r : runs) {
    try {
      by_replicas[fit_model(r).measured_replicas].push_back(r);
    } catch (const std::exception&) {
      // a run without timelines: the pooled fit left it out too
    }
  }
  if (by_replicas.empty()) return pooled;
  FittedModel fewest = fit_model(by_replicas.begin()->second);
  fewest.measured_link = pooled.measured_link;
  fewest.measured_link_fitted = pooled.measured_link_fitted;
  fewest.allreduce_points = pooled.allreduce_points;
  for (const auto& [replicas, group] : by_replicas) {
    const FittedModel at = fit_model(group);
    fewest.measured_counts.push_back({replicas, at.compute_per_example_s, at.update_s, at.overhead_s});
  }
  return fewest;
}

Scaling study_scaling(const std::vector<RunRecord>& runs) {
  std::set<std::string> batches;
  std::set<int> replicas;
  for (const RunRecord& r : runs) {
    batches.insert(config_value(r, "batch_size"));
    replicas.insert(replica_count(r));
  }
  const bool one_global_batch = batches.size() == 1 && *batches.begin() != "-";
  return runs.size() >= 2 && one_global_batch && replicas.size() >= 2 ? Scaling::kStrong : Scaling::kWeak;
}

std::vector<int> study_device_counts(const std::vector<RunRecord>& runs) {
  std::vector<int> counts = default_device_counts();
  for (const RunRecord& r : runs) counts.push_back(replica_count(r));
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

}  // namespace mirror
