// Runs grouped by a setting, and a group's curves as a mean with its range (issue 48, Beyond:
// TensorBoard's oldest ask).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mirror/runs/run_groups.h"

using namespace mirror;

namespace {
RunRecord run_with(double lr, int seed) {
  RunRecord r;
  r.run = {{"config", {{"optimizer", {{"learning_rate", lr}}}, {"seed", seed}}}};
  return r;
}
}  // namespace

TEST(RunGroups, RunsSharingASettingsValueAreOneGroupInTheOrderOfTheirFirstRun) {
  const std::vector<RunRecord> runs = {run_with(0.1, 1), run_with(0.01, 1), run_with(0.1, 2), run_with(0.01, 2),
                                       run_with(0.1, 3)};
  const auto by_lr = group_runs(runs, "optimizer.learning_rate");
  ASSERT_EQ(by_lr.size(), 2u);
  EXPECT_EQ(by_lr[0].runs, (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(by_lr[1].runs, (std::vector<size_t>{1, 3}));
  EXPECT_EQ(by_lr[0].value, config_value(runs[0], "optimizer.learning_rate"));
  EXPECT_NE(by_lr[0].value, by_lr[1].value);
  EXPECT_EQ(group_runs(runs, "seed").size(), 3u);
  const auto none = group_runs(runs, "no.such.setting");  // every run has "-": one group
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].runs.size(), 5u);
}

TEST(RunGroups, ABandIsTheMeanAndRangeWhereEveryCurveHasReached) {
  // Three runs: one logged every step, one every other step, one that stopped early.
  const Curve every = {{0, 1.0}, {1, 0.8}, {2, 0.6}, {3, 0.5}, {4, 0.4}};
  const Curve other = {{0, 1.2}, {2, 0.8}, {4, 0.6}};
  const Curve early = {{0, 0.9}, {1, 0.7}, {2, 0.5}, {3, 0.45}};
  const CurveBand b = curve_band({every, other, early});
  EXPECT_EQ(b.runs, 3u);
  ASSERT_EQ(b.x, (std::vector<double>{0, 1, 2, 3}));  // the densest curve's x, up to where the early run stopped
  EXPECT_DOUBLE_EQ(b.mean[0], (1.0 + 1.2 + 0.9) / 3);
  EXPECT_DOUBLE_EQ(b.mean[1], (0.8 + 1.0 + 0.7) / 3);  // `other` read halfway between its steps 0 and 2
  EXPECT_DOUBLE_EQ(b.low[1], 0.7);
  EXPECT_DOUBLE_EQ(b.high[1], 1.0);
  EXPECT_DOUBLE_EQ(b.high[3], 0.7);  // `other` at 3: halfway between 0.8 and 0.6
  EXPECT_DOUBLE_EQ(b.low[3], 0.45);
  for (size_t i = 0; i < b.x.size(); ++i) {
    EXPECT_LE(b.low[i], b.mean[i]);
    EXPECT_LE(b.mean[i], b.high[i]);
  }
  EXPECT_TRUE(curve_band({every, {}}).x.empty());  // a run with no points: nothing to summarise
  const CurveBand alone = curve_band({other});
  EXPECT_EQ(alone.x, (std::vector<double>{0, 2, 4}));
  EXPECT_EQ(alone.low, alone.high);
}
