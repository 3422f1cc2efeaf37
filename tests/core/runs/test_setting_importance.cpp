// A sweep read as a whole: its settings as axes and how strongly each goes with the result
// (issue 48, Beyond: a sweep's settings table and parallel coordinates, with each setting's
// importance).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "mirror/runs/setting_importance.h"

using namespace mirror;

namespace {
RunRecord run_with(double lr, int seed, const char* optimizer, double best) {
  RunRecord r;
  r.run = {{"config", {{"optimizer", {{"learning_rate", lr}, {"name", optimizer}}}, {"seed", seed}}}};
  r.best_val_accuracy = best;
  return r;
}
}  // namespace

TEST(SettingImportance, RankCorrelationIsSpearmans) {
  EXPECT_DOUBLE_EQ(*rank_correlation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(*rank_correlation({1, 2, 3, 4}, {1, 8, 27, 64000}), 1.0);  // any rising curve
  EXPECT_DOUBLE_EQ(*rank_correlation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Ties share their mean rank: ranks (1.5, 1.5, 3) against (1, 2, 3).
  EXPECT_NEAR(*rank_correlation({5, 5, 9}, {1, 2, 3}), std::sqrt(3.0) / 2, 1e-12);
  EXPECT_FALSE(rank_correlation({1, 2}, {1, 2}));        // too few runs to say
  EXPECT_FALSE(rank_correlation({1, 1, 1}, {1, 2, 3}));  // a constant says nothing
}

TEST(SettingImportance, AxesAreTheDifferingSettingsThenTheMetricWithTheirImportance) {
  // Accuracy rises with the learning rate and has nothing to do with the seed's order.
  const std::vector<RunRecord> runs = {run_with(0.001, 3, "adam", 0.60), run_with(0.01, 1, "sgd", 0.70),
                                       run_with(0.1, 2, "adam", 0.90), run_with(0.03, 2, "sgd", 0.80),
                                       run_with(0.003, 1, "adam", 0.65)};
  const auto axes = setting_axes(runs, SweepMetric::kBestValAccuracy);
  ASSERT_EQ(axes.size(), 4u);
  EXPECT_EQ(axes.back().key, "best_val_accuracy");
  EXPECT_FALSE(axes.back().importance);
  EXPECT_EQ(axes.back().values, (std::vector<double>{0.60, 0.70, 0.90, 0.80, 0.65}));
  const auto find = [&axes](const std::string& key) {
    return *std::find_if(axes.begin(), axes.end(), [&key](const SettingAxis& a) { return a.key == key; });
  };
  const SettingAxis lr = find("optimizer.learning_rate");
  EXPECT_TRUE(lr.numeric);
  ASSERT_TRUE(lr.importance);
  EXPECT_DOUBLE_EQ(*lr.importance, 1.0);
  const SettingAxis seed = find("seed");
  ASSERT_TRUE(seed.importance);
  EXPECT_LT(std::abs(*seed.importance), 0.5);
  const SettingAxis optimizer = find("optimizer.name");
  EXPECT_FALSE(optimizer.numeric);
  EXPECT_EQ(optimizer.categories, (std::vector<std::string>{"adam", "sgd"}));
  EXPECT_EQ(optimizer.values, (std::vector<double>{0, 1, 0, 1, 0}));
  EXPECT_FALSE(optimizer.importance);  // categories have no order to correlate
}

TEST(SettingImportance, ARunWithoutTheMetricIsLeftOutOfTheImportance) {
  std::vector<RunRecord> runs = {run_with(0.001, 1, "adam", 0.6), run_with(0.01, 1, "adam", 0.7),
                                 run_with(0.1, 1, "adam", 0.8), run_with(1.0, 1, "adam", -1)};  // -1: never validated
  const auto axes = setting_axes(runs, SweepMetric::kBestValAccuracy);
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_TRUE(std::isnan(axes.back().values[3]));
  ASSERT_TRUE(axes[0].importance);
  EXPECT_DOUBLE_EQ(*axes[0].importance, 1.0);  // over the three that validated
}
