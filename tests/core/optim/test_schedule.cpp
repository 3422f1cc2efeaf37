// Learning-rate schedules against Keras' formulas, warmup, the scaling rule, the parsers, and the
// plateau / early-stopping bookkeeping on made-up metric sequences.
#include <gtest/gtest.h>

#include <cmath>

#include "mirror/optim/schedule.h"
#include "mirror/util/error.h"
#include "schedule_golden.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;

TEST(LrSchedule, EveryKindMatchesKerasFormulaAtChosenSteps) {
  for (const auto& c : schedule_golden::kCases) {
    const LrSchedule s = parse_lr_schedule(c.spec);
    for (size_t i = 0; i < schedule_golden::kSteps.size(); ++i) {
      const double want = c.rates[i];
      EXPECT_NEAR(s.rate(schedule_golden::kBase, schedule_golden::kSteps[i], 1, 32), want, 1e-12 * std::max(1.0, want))
          << c.spec << " at step " << schedule_golden::kSteps[i];
    }
  }
}

TEST(LrSchedule, ConstantIsTheBaseRate) {
  const LrSchedule s;
  EXPECT_TRUE(s.is_constant());
  EXPECT_DOUBLE_EQ(s.rate(0.003, 12345, 7, 32), 0.003);
}

TEST(LrSchedule, WarmupRampsLinearlyToTheScheduleThenTheScheduleStartsOver) {
  LrSchedule s = parse_lr_schedule("cosine:decay_steps=100,alpha=0");
  s.warmup_steps = 10;
  EXPECT_DOUBLE_EQ(s.rate(0.1, 0, 1, 32), 0.0);
  EXPECT_DOUBLE_EQ(s.rate(0.1, 5, 1, 32), 0.05);
  EXPECT_DOUBLE_EQ(s.rate(0.1, 10, 1, 32), 0.1);          // the cosine's first value
  EXPECT_NEAR(s.rate(0.1, 60, 1, 32), 0.05, 1e-15);       // half way through the cosine
  EXPECT_NEAR(s.rate(0.1, 110, 1, 32), 0.0, 1e-15);
  s.warmup_from = 0.1;
  EXPECT_DOUBLE_EQ(s.rate(0.1, 0, 1, 32), 0.01);
}

TEST(LrSchedule, LinearScalingRuleMultipliesByGlobalBatchOverTheReference) {
  LrSchedule s;
  s.scale_reference_batch = 32;
  EXPECT_DOUBLE_EQ(s.rate(0.1, 0, 1, 256), 0.8);
  EXPECT_DOUBLE_EQ(s.rate(0.1, 0, 1, 16), 0.05);
  LrSchedule p = parse_lr_schedule("piecewise:boundaries=10,values=0.1/0.01");
  p.scale_reference_batch = 32;
  EXPECT_DOUBLE_EQ(p.rate(1.0, 20, 1, 64), 0.02);  // piecewise rates are absolute, and scaled too
  EXPECT_NE(s.describe(256).find("x8"), std::string::npos) << s.describe(256);
}

TEST(LrSchedule, PerEpochSchedulesCountEpochsFromZero) {
  const LrSchedule s = parse_lr_schedule("exponential:decay_steps=1,decay_rate=0.5,per_epoch=1");
  EXPECT_DOUBLE_EQ(s.rate(0.1, 999, 1, 32), 0.1);
  EXPECT_DOUBLE_EQ(s.rate(0.1, 999, 3, 32), 0.025);
}

TEST(LrSchedule, BadSpecsNameTheBadPart) {
  auto bad = [](const std::string& spec) { return error_of<ConfigError>([&] { parse_lr_schedule(spec); }); };
  EXPECT_NE(bad("triangle").find("unknown schedule 'triangle'"), std::string::npos);
  EXPECT_NE(bad("cosine").find("decay_steps must be > 0"), std::string::npos);
  EXPECT_NE(bad("cosine:decay_steps=ten").find("decay_steps=ten is not a number"), std::string::npos);
  EXPECT_NE(bad("cosine:decay_steps=10,speed=2").find("unknown setting 'speed'"), std::string::npos);
  EXPECT_NE(bad("cosine:decay_steps").find("'decay_steps' is not key=value"), std::string::npos);
  EXPECT_NE(bad("piecewise:boundaries=10/20,values=1/2").find("one more value than boundaries"), std::string::npos);
  EXPECT_NE(bad("exponential:decay_steps=10").find("decay_rate must be > 0"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_early_stopping("val_f1:patience=2"); }).find("cannot watch 'val_f1'"),
            std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_plateau("val_loss:factor=2"); }).find("factor=2 must be in (0, 1)"),
            std::string::npos);
}

TEST(ReduceLROnPlateau, CutsTheRateAfterPatienceEpochsWithoutImprovementThenCoolsDown) {
  const PlateauOptions o = parse_plateau("val_loss:factor=0.5,patience=2,cooldown=1,min_lr=0.02,min_delta=0.01");
  CallbackState s;
  const double rate = 0.1;
  // Losses: improve, improve, stall, stall (-> cut), stall (cooldown), stall, stall (-> cut), ...
  const std::vector<double> losses = {1.0, 0.9, 0.895, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98};
  std::vector<int> cuts;
  double current = rate;
  for (size_t e = 0; e < losses.size(); ++e) {
    if (plateau_epoch_end(o, losses[e], current, s)) cuts.push_back(static_cast<int>(e) + 1);
    current = std::max(rate * s.plateau_scale, o.min_lr);
  }
  // 0.895 is not better than 0.9 by more than min_delta: epochs 3, 4 stall -> cut after epoch 4.
  // Keras' cooldown counts down before the stall check, so with cooldown=1 the next epoch already
  // counts as waiting: cuts after 6 (0.05 -> 0.025) and 8 (-> 0.02, the floor); none after that.
  EXPECT_EQ(cuts, (std::vector<int>{4, 6, 8}));
  EXPECT_DOUBLE_EQ(current, 0.02);
  EXPECT_FALSE(plateau_epoch_end(o, 0.99, current, s));  // at min_lr: no further cut
}

TEST(EarlyStopping, StopsAfterPatienceEpochsWithoutImprovementAndRemembersTheBest) {
  const EarlyStoppingOptions o = parse_early_stopping("val_accuracy:patience=2,min_delta=0.005");
  CallbackState s;
  const std::vector<double> acc = {0.5, 0.6, 0.603, 0.61, 0.612, 0.611};
  int stopped = 0;
  for (size_t e = 0; e < acc.size() && !stopped; ++e)
    if (early_stopping_epoch_end(o, acc[e], static_cast<int>(e) + 1, s)) stopped = static_cast<int>(e) + 1;
  // 0.603 is within min_delta of 0.6; 0.61 improves (epoch 4); 0.612 and 0.611 do not.
  EXPECT_EQ(stopped, 6);
  EXPECT_EQ(s.stop_best_epoch, 4);
  EXPECT_DOUBLE_EQ(s.stop_best, 0.61);
  EXPECT_TRUE(o.watch.minimizing() == false);
  EXPECT_TRUE(parse_early_stopping("val_loss").watch.minimizing());
}
