// Schedules, plateau, early stopping and clipping inside real runs: what each step used, exact
// resumes mid-warmup and after a plateau cut, best weights put back, replicas clipping alike.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "mirror/data/batch.h"
#include "mirror/data/synthetic.h"
#include "mirror/model/presets.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "test_fixtures.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::blobs;

namespace {
struct Steps : EventSink {
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  TrainControl* control = nullptr;
  int64_t stop_after = 0;
  void on_step(const StepMetrics& e) override {
    steps.push_back(e);
    if (control && e.global_step == stop_after) control->stop = true;
  }
  void on_epoch(const EpochMetrics& e) override { epochs.push_back(e); }
};

// 12 steps per epoch (batch 50 of 600), deterministic, SGD with momentum.
TrainConfig base_config(int logical, int epochs) {
  TrainConfig c = mirror::testing::points_run(epochs, /*batch=*/50, logical);
  c.strategy.deterministic = true;
  c.strategy.sync_check_every = 5;
  c.optimizer = OptimizerConfig{}.with_name("sgd").with_learning_rate(0.05).with_momentum(0.9);
  return c;
}

struct Outcome {
  Steps events;
  RunFinished fin;
  torch::Tensor params;
};

// Runs `c`; checkpoints into `dir` when given; stops after step `stop_after` (0: never); resumes
// from `resume_from` when given.
Outcome run(const TrainConfig& c, const std::string& dir = "", int64_t stop_after = 0, const std::string& resume_from = "") {
  Trainer t(c, blobs());
  CheckpointFolder folder(dir, c.checkpoints.keep_last);
  if (!dir.empty()) t.save_checkpoints(&folder);
  if (!resume_from.empty()) t.resume(read_checkpoint(resume_from));
  Outcome o;
  TrainControl control;
  o.events.control = &control;
  o.events.stop_after = stop_after;
  o.fin = t.run(o.events, control);
  o.params = t.strategy().replica_parameters(t.strategy().num_replicas() - 1).clone();
  return o;
}

// A stopped-then-resumed run against the uninterrupted one: every later step's loss and rate,
// and the final weights, bit for bit.
void expect_exact_resume(const TrainConfig& c, int64_t stop_after) {
  mirror::testing::TempDir dir;
  const Outcome whole = run(c);
  ASSERT_EQ(whole.fin.status, RunStatus::kFinished) << whole.fin.message;
  const Outcome first = run(c, dir.str(), stop_after);
  ASSERT_EQ(first.fin.steps, stop_after);
  const Outcome rest = run(c, "", 0, dir / fmt::format("ckpt-{}.pt", stop_after));
  ASSERT_EQ(rest.fin.status, RunStatus::kFinished) << rest.fin.message;
  ASSERT_EQ(rest.events.steps.size() + static_cast<size_t>(stop_after), whole.events.steps.size());
  for (size_t i = 0; i < rest.events.steps.size(); ++i) {
    const auto& a = rest.events.steps[i];
    const auto& b = whole.events.steps[static_cast<size_t>(stop_after) + i];
    EXPECT_EQ(a.learning_rate, b.learning_rate) << "step " << a.global_step;
    EXPECT_EQ(a.loss, b.loss) << "step " << a.global_step;
  }
  EXPECT_TRUE(torch::equal(rest.params, whole.params));
}
}  // namespace

TEST(Schedules, EveryStepRecordsTheRateOfWarmupThenCosine) {
  TrainConfig c = base_config(2, 3);
  c.schedule = parse_lr_schedule("cosine:decay_steps=20,alpha=0.1");
  c.schedule.warmup_steps = 6;
  const Outcome o = run(c);
  ASSERT_EQ(o.fin.status, RunStatus::kFinished) << o.fin.message;
  ASSERT_EQ(o.events.steps.size(), 36u);
  for (const auto& s : o.events.steps)
    EXPECT_DOUBLE_EQ(s.learning_rate, c.schedule.rate(0.05, s.global_step - 1, s.epoch, 50)) << s.global_step;
  EXPECT_DOUBLE_EQ(o.events.steps[0].learning_rate, 0.0);
  EXPECT_DOUBLE_EQ(o.events.steps[6].learning_rate, 0.05);
  EXPECT_NEAR(o.events.steps.back().learning_rate, 0.005, 1e-12);  // the floor: alpha x rate
  EXPECT_DOUBLE_EQ(o.events.epochs.back().learning_rate, o.events.steps.back().learning_rate);
}

TEST(Schedules, ARunResumedInTheMiddleOfTheWarmupEqualsTheUninterruptedOne) {
  TrainConfig c = base_config(2, 3);
  c.schedule = parse_lr_schedule("exponential:decay_steps=10,decay_rate=0.7");
  c.schedule.warmup_steps = 15;
  c.schedule.scale_reference_batch = 25;
  expect_exact_resume(c, 9);
}

TEST(Schedules, ARunResumedAfterAPlateauCutEqualsTheUninterruptedOne) {
  TrainConfig c = base_config(2, 5);
  // Nothing counts as an improvement after epoch 1: cuts after epochs 2 and 3 and 4.
  c.plateau = parse_plateau("loss:factor=0.5,patience=1,min_delta=100");
  const Outcome whole = run(c);
  ASSERT_EQ(whole.fin.status, RunStatus::kFinished) << whole.fin.message;
  std::vector<double> per_epoch;
  for (const auto& e : whole.events.epochs) per_epoch.push_back(e.learning_rate);
  EXPECT_EQ(per_epoch, (std::vector<double>{0.05, 0.05, 0.025, 0.0125, 0.00625}));
  expect_exact_resume(c, 41);  // mid-epoch 4, after two cuts
}

TEST(EarlyStopping, StopsAndPutsBackTheBestEpochsWeights) {
  TrainConfig c = base_config(2, 6);
  c.early_stopping = parse_early_stopping("val_loss:patience=2,min_delta=100,restore_best=1");
  const Outcome o = run(c);
  EXPECT_EQ(o.fin.status, RunStatus::kFinished);
  EXPECT_EQ(o.fin.epochs_completed, 3);
  EXPECT_NE(o.fin.message.find("early stop at epoch 3"), std::string::npos) << o.fin.message;
  EXPECT_NE(o.fin.message.find("best"), std::string::npos) << o.fin.message;
  EXPECT_NE(o.fin.message.find("at epoch 1, whose weights were restored"), std::string::npos) << o.fin.message;
  // The best epoch was the first: the weights are those of a one-epoch run.
  TrainConfig one = base_config(2, 1);
  EXPECT_TRUE(torch::equal(o.params, run(one).params));
}

TEST(EarlyStopping, WatchingValidationWithoutAValidationSplitIsRefused) {
  TrainConfig c = base_config(1, 2);
  c.early_stopping = parse_early_stopping("val_loss:patience=1");
  // The blobs' training split with an empty validation split.
  const auto full = blobs();
  const Batch train = full->slice(Split::kTrain, 0, 200);
  const Batch none = full->slice(Split::kValidation, 0, 0);
  Trainer t(c, std::make_shared<const Dataset>(full->info(), train.x, train.y, none.x, none.y));
  Steps events;
  TrainControl control;
  const RunFinished fin = t.run(events, control);
  EXPECT_EQ(fin.status, RunStatus::kFailed);
  EXPECT_NE(fin.message.find("val_loss is watched, but this dataset has no validation split"), std::string::npos)
      << fin.message;
}

TEST(Clipping, ReplicasClipTheSameGradientAndMatchOneReplica) {
  for (const char* how : {"clipnorm", "global_clipnorm", "clipvalue"}) {
    auto config = [&](int logical) {
      TrainConfig c = base_config(logical, 2);
      if (std::string(how) == "clipnorm") c.optimizer.clipnorm = 0.05;
      if (std::string(how) == "global_clipnorm") c.optimizer.global_clipnorm = 0.05;
      if (std::string(how) == "clipvalue") c.optimizer.clipvalue = 0.002;
      return c;
    };
    const Outcome one = run(config(1));
    const Outcome two = run(config(2));  // its sync checks (every 5 steps) prove the replicas identical
    ASSERT_EQ(two.fin.status, RunStatus::kFinished) << how << ": " << two.fin.message;
    EXPECT_LT(((two.params - one.params).norm() / one.params.norm()).item<double>(), 1e-5) << how;
    // Clipping changed the trajectory: the unclipped run ends elsewhere.
    const Outcome free = run(base_config(1, 2));
    EXPECT_GT(((free.params - one.params).norm() / one.params.norm()).item<double>(), 1e-3) << how;
  }
}

TEST(Clipping, ImpossibleSettingsAreRefused) {
  TrainConfig c = base_config(1, 1);
  c.optimizer.clipnorm = 1;
  c.optimizer.global_clipnorm = 1;
  EXPECT_NE(mirror::testing::error_of<ConfigError>([&] { c.validate(); }).find("not both"), std::string::npos);
  c.optimizer.global_clipnorm = 0;
  c.optimizer.clipvalue = -1;
  EXPECT_NE(mirror::testing::error_of<ConfigError>([&] { c.validate(); }).find("invalid clipvalue"), std::string::npos);
}
