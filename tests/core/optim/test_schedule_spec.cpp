// Schedules, plateau rules and early stopping written back as the command line spells them read
// back to the same values (the window shows a preset's rules this way and trains what it reads).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mirror/optim/schedule.h"
#include "schedule_golden.h"

using namespace mirror;

namespace {
LrSchedule read_back(const LrSchedule& s) {
  const std::string settings = lr_schedule_settings(s);
  return parse_lr_schedule(settings.empty() ? s.kind : s.kind + ":" + settings);
}
}  // namespace

TEST(ScheduleSpec, EveryKindReadsBackToTheSameSchedule) {
  std::vector<LrSchedule> schedules = {LrSchedule{}};
  for (const auto& c : schedule_golden::kCases) schedules.push_back(parse_lr_schedule(c.spec));
  for (const char* spec : {"cosine:decay_steps=3,alpha=0.30000000000000004,per_epoch=1",
                           "exponential:decay_steps=0.1,decay_rate=0.3333333333333333,warmup_from=0.25",
                           "piecewise:boundaries=1/1e9,values=1e-05/2.5e-07/3",
                           "polynomial:decay_steps=7,end_learning_rate=0,power=0.5"})
    schedules.push_back(parse_lr_schedule(spec));
  for (const auto& s : schedules) EXPECT_EQ(to_json(read_back(s)), to_json(s)) << lr_schedule_settings(s);
  EXPECT_EQ(lr_schedule_settings(parse_lr_schedule("cosine:decay_steps=2000,alpha=0.1")), "decay_steps=2000,alpha=0.1");
  EXPECT_EQ(lr_schedule_settings(LrSchedule{}), "");
}

TEST(ScheduleSpec, WarmupAndBatchScalingAreLeftToTheirOwnFlags) {
  LrSchedule s = parse_lr_schedule("cosine:decay_steps=100,warmup_steps=10");
  s.scale_reference_batch = 256;
  EXPECT_EQ(lr_schedule_settings(s), "decay_steps=100");
}

TEST(ScheduleSpec, PlateauRulesReadBackToTheSameRule) {
  for (const char* spec : {"val_loss", "val_accuracy:factor=0.5,patience=2,cooldown=1,min_lr=1e-05,min_delta=0,mode=max",
                           "loss:patience=0,min_delta=0.001"}) {
    const PlateauOptions o = parse_plateau(spec);
    EXPECT_EQ(to_json(parse_plateau(plateau_spec(o))), to_json(o)) << spec << " -> " << plateau_spec(o);
  }
  EXPECT_EQ(plateau_spec(parse_plateau("val_loss:factor=0.5")), "val_loss:factor=0.5");
  EXPECT_EQ(plateau_spec(PlateauOptions{}), "") << "off";
}

TEST(ScheduleSpec, EarlyStoppingReadsBackToTheSameRule) {
  for (const char* spec : {"val_loss", "val_accuracy:patience=3,restore_best=1,start_from_epoch=2,min_delta=0.01,mode=max"}) {
    const EarlyStoppingOptions o = parse_early_stopping(spec);
    EXPECT_EQ(to_json(parse_early_stopping(early_stopping_spec(o))), to_json(o)) << spec << " -> " << early_stopping_spec(o);
  }
  EXPECT_EQ(early_stopping_spec(parse_early_stopping("val_loss:patience=3,restore_best=1")), "val_loss:patience=3,restore_best=1");
  EXPECT_EQ(early_stopping_spec(EarlyStoppingOptions{}), "") << "off";
}
