// Tested by tests/core/runs/test_setting_importance.cpp.
#include "mirror/runs/setting_importance.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

namespace mirror {

const char* sweep_metric_name(SweepMetric m) {
  switch (m) {
    case SweepMetric::kBestValAccuracy: return "best_val_accuracy";
    case SweepMetric::kFinalValLoss: return "final_val_loss";
    case SweepMetric::kFinalLoss: return "final_loss";
  }
  return "?";
}

std::optional<double> sweep_metric(const RunRecord& run, SweepMetric m) {
  switch (m) {
    case SweepMetric::kBestValAccuracy:
      return run.best_val_accuracy < 0 ? std::nullopt : std::optional<double>(run.best_val_accuracy);
    case SweepMetric::kFinalValLoss:
      if (run.epochs.empty() || !run.epochs.back().has_validation) return std::nullopt;
      return run.epochs.back().val_loss;
    case SweepMetric::kFinalLoss:
      if (!run.epochs.empty()) return run.epochs.back().loss;
      if (!run.steps.empty()) return run.steps.back().loss;
      return std::nullopt;
  }
  return std::nullopt;
}

namespace {
// Ranks from 1, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&v](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) r[order[k]] = mean;
    i = j + 1;
  }
  return r;
}

std::optional<double> pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n, mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0 || sbb <= 0) return std::nullopt;
  return sab / std::sqrt(saa * sbb);
}

// `text` as a number when it is one whole (from_chars: whatever the process's locale says).
std::optional<double> number(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, v);
  if (text.empty() || error != std::errc() || at != end || !std::isfinite(v)) return std::nullopt;
  return v;
}
}  // namespace

std::optional<double> rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 3) return std::nullopt;
  return pearson(ranks(a), ranks(b));
}

std::vector<SettingAxis> setting_axes(const std::vector<RunRecord>& runs, SweepMetric metric) {
  std::vector<SettingAxis> axes;
  const double missing = std::numeric_limits<double>::quiet_NaN();
  SettingAxis result{sweep_metric_name(metric), true, {}, {}, std::nullopt};
  for (const RunRecord& r : runs) result.values.push_back(sweep_metric(r, metric).value_or(missing));
  for (const std::string& key : differing_config_keys(runs)) {
    if (key == "model") continue;
    SettingAxis axis{key, true, {}, {}, std::nullopt};
    std::vector<std::string> texts;
    for (const RunRecord& r : runs) texts.push_back(config_value(r, key));
    axis.numeric = std::all_of(texts.begin(), texts.end(), [](const std::string& t) { return number(t).has_value(); });
    for (const std::string& t : texts) {
      if (axis.numeric) {
        axis.values.push_back(*number(t));
        continue;
      }
      auto at = std::find(axis.categories.begin(), axis.categories.end(), t);
      if (at == axis.categories.end()) at = axis.categories.insert(axis.categories.end(), t);
      axis.values.push_back(static_cast<double>(at - axis.categories.begin()));
    }
    // Categories have no order to correlate with: their importance is left out.
    if (axis.numeric) {
      std::vector<double> a, b;
      for (size_t i = 0; i < runs.size(); ++i)
        if (!std::isnan(result.values[i])) {
          a.push_back(axis.values[i]);
          b.push_back(result.values[i]);
        }
      axis.importance = rank_correlation(a, b);
    }
    axes.push_back(std::move(axis));
  }
  axes.push_back(std::move(result));
  return axes;
}

}  // namespace mirror
