#pragma once
// A sweep read as a whole: each run's settings and result as numbers (the axes of a parallel
// coordinates plot), and how strongly each setting goes with the result, as Spearman's rank
// correlation over the runs. Plain data; no torch, no Qt.

#include <optional>
#include <string>
#include <vector>

#include "mirror/runs/run_reader.h"

namespace mirror {

// What a sweep is judged by.
enum class SweepMetric { kBestValAccuracy, kFinalValLoss, kFinalLoss };
const char* sweep_metric_name(SweepMetric m);  // "best_val_accuracy", as the comparison table heads it
// The run's value of `m`; nullopt when it recorded none (no validation, no epoch).
std::optional<double> sweep_metric(const RunRecord& run, SweepMetric m);

// One axis: a setting on which the runs differ (or the metric, last). Numbers where every run's
// value is one (a learning rate, a seed), else categories in order of first appearance (an
// optimizer's name), placed at 0, 1, 2...
struct SettingAxis {
  std::string key;
  bool numeric = true;
  std::vector<std::string> categories;  // when not numeric
  std::vector<double> values;           // one per run: the number, or the category's index; NaN where missing
  // Spearman's rank correlation of this setting with the metric over the runs that have both, in
  // [-1, 1]; nullopt for the metric's own axis, or fewer than 3 runs, or a constant.
  std::optional<double> importance;
};

// The settings the runs differ on (differing_config_keys, the model left out), then the metric.
std::vector<SettingAxis> setting_axes(const std::vector<RunRecord>& runs, SweepMetric metric);

// Spearman's rank correlation of two equally long series (ties share their mean rank); nullopt
// when shorter than 3 or when either is constant.
std::optional<double> rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace mirror
