#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "mirror/data/batch.h"
#include "mirror/data/registry.h"
#include "mirror/data/synthetic.h"
#include "mirror/model/presets.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/strategy/fake_communicator.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/rng.h"
#include "mirror/strategy/shard_plan.h"
#include "test_fixtures.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::blobs;

namespace {
// Records every event, and can ask the run to stop after a given step.
class Recorder : public EventSink {
 public:
  TrainControl* control = nullptr;
  int64_t stop_after_step = 0;
  std::vector<std::string> order;
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  RunStarted started;
  RunFinished finished;
  void on_started(const RunStarted& e) override { order.push_back("started"); started = e; }
  void on_step(const StepMetrics& e) override {
    order.push_back("step");
    steps.push_back(e);
    if (control && stop_after_step > 0 && e.global_step == stop_after_step) control->stop = true;
  }
  void on_epoch(const EpochMetrics& e) override { order.push_back("epoch"); epochs.push_back(e); }
  void on_finished(const RunFinished& e) override { order.push_back("finished"); finished = e; }
};

TrainConfig blobs_config(int logical) { return mirror::testing::points_run(/*epochs=*/3, /*batch=*/50, logical); }

std::string config_error(TrainConfig c, std::shared_ptr<const Dataset> d = blobs()) {
  try {
    Trainer t(std::move(c), std::move(d));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Trainer, LearnsBlobsAndReportsEveryEventInOrder) {
  Trainer trainer(blobs_config(2), blobs());
  Recorder rec;
  TrainControl control;
  const auto fin = trainer.run(rec, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_EQ(rec.order.front(), "started");
  EXPECT_EQ(rec.order.back(), "finished");
  EXPECT_EQ(rec.steps.size(), 3u * 12u);
  ASSERT_EQ(rec.epochs.size(), 3u);
  EXPECT_EQ(rec.started.shard_sizes, (std::vector<int64_t>{25, 25}));
  EXPECT_EQ(rec.started.devices.size(), 2u);
  EXPECT_TRUE(rec.epochs.back().has_validation);
  EXPECT_GT(rec.epochs.back().val_accuracy, 0.9);  // three well-separated clusters
  EXPECT_LT(rec.epochs.back().loss, rec.epochs.front().loss);
  EXPECT_GT(fin.param_l2_norm, 0);
  EXPECT_EQ(rec.steps.back().replicas.size(), 2u);
}

TEST(Trainer, DeterministicModeGivesTheSameNumbersForTheSameSeed) {
  auto run = [](uint64_t seed) {
    TrainConfig c = blobs_config(2);
    c.seed = seed;
    c.strategy.deterministic = true;
    Trainer t(c, blobs());
    Recorder rec;
    TrainControl control;
    const auto fin = t.run(rec, control);
    // Equal numbers from two failed runs would prove nothing: both must have run to the end.
    EXPECT_EQ(fin.status, RunStatus::kFinished) << fin.message;
    EXPECT_EQ(rec.steps.size(), 3u * 12u);
    std::vector<double> losses;
    for (const auto& s : rec.steps) losses.push_back(s.loss);
    losses.push_back(fin.param_l2_norm);
    return losses;
  };
  const auto a = run(11), b = run(11), c = run(12);
  EXPECT_EQ(a, b);  // bit for bit
  EXPECT_NE(a, c);
}

TEST(Trainer, StopLandsWithinOneStep) {
  TrainConfig c = blobs_config(2);
  c.epochs = 50;
  Trainer t(c, blobs());
  Recorder rec;
  TrainControl control;
  rec.control = &control;
  rec.stop_after_step = 5;
  const auto fin = t.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kStopped);
  EXPECT_EQ(fin.steps, 5);
  EXPECT_EQ(rec.order.back(), "finished");
}

TEST(Trainer, APauseIsAnnouncedOnceBetweenStepsAndTheRunGoesOnWhenLifted) {
  // Pauses after step 3; the sink lifts the pause when it hears the run hold.
  class Pauser : public Recorder {
   public:
    void on_step(const StepMetrics& e) override {
      Recorder::on_step(e);
      if (e.global_step == 3) control->pause = true;
    }
    void on_hold() override {
      holds.push_back(static_cast<int64_t>(steps.size()));
      held_flag = control->holding.load();
      control->pause = false;
    }
    std::vector<int64_t> holds;
    bool held_flag = true;
  };
  TrainConfig c = blobs_config(2);
  c.max_steps = 6;
  Trainer t(c, blobs());
  Pauser rec;
  TrainControl control;
  rec.control = &control;
  const auto fin = t.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_EQ(rec.holds, std::vector<int64_t>{3});  // once, with steps 1-3 already reported
  EXPECT_FALSE(rec.held_flag);  // announced before the trainer starts to wait
  EXPECT_EQ(fin.steps, 6);
  EXPECT_FALSE(control.holding.load());
}

TEST(Trainer, StepByStepTakesExactlyOneStepPerUnitWhilePaused) {
  // Paused from the start; the sink hands out one step each time the run holds, three times,
  // then stops it. Each hold must come after exactly one more step.
  class Stepper : public Recorder {
   public:
    void on_hold() override {
      holds.push_back(static_cast<int64_t>(steps.size()));
      if (holds.size() <= 3) control->single_steps.fetch_add(1);
      else control->stop = true;
    }
    std::vector<int64_t> holds;
  };
  Trainer t(blobs_config(1), blobs());
  Stepper rec;
  TrainControl control;
  control.pause = true;
  rec.control = &control;
  const auto fin = t.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kStopped) << fin.message;
  EXPECT_EQ(rec.holds, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(fin.steps, 3);
  EXPECT_EQ(control.single_steps.load(), 0);
}

TEST(Trainer, ADemoPaceSpacesTheStepsButChangesNoNumber) {
  TrainConfig c = blobs_config(1);
  c.strategy.deterministic = true;
  c.max_steps = 12;
  struct Outcome {
    std::vector<double> losses;
    double wall = 0, train_seconds = 0;
  };
  auto run = [&](double pace) {
    Trainer t(c, blobs());
    Recorder rec;
    TrainControl control;
    control.pace = pace;
    const auto t0 = std::chrono::steady_clock::now();
    t.run(rec, control);
    Outcome o;
    o.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& s : rec.steps) o.losses.push_back(s.loss);
    o.train_seconds = rec.steps.back().train_seconds;
    return o;
  };
  const Outcome full = run(0);
  const Outcome paced = run(10);  // 12 steps start at least 1/10 s apart
  EXPECT_EQ(paced.losses, full.losses);
  EXPECT_GE(paced.wall, 11.0 / 10.0);
  // The waits are not training time: of the >= 1.1 s, steps of blobs take a small part even on a
  // loaded machine (a fixed margin, not a ratio: under load the steps may take a while).
  EXPECT_LT(paced.train_seconds, paced.wall - 0.5);
}

TEST(Trainer, PaceWaitsPausesAndValidationsAreIdleSpansOfTheNextStepAndNotTraining) {
  // 2 replicas, a pace of 5 steps a second, a pause of at least 150 ms after step 3, and epochs
  // of 2 steps (so steps 3 and 5 follow a validation).
  class Pauser : public Recorder {
   public:
    void on_step(const StepMetrics& e) override {
      Recorder::on_step(e);
      if (e.global_step == 3) control->pause = true;
    }
    void on_hold() override {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      control->pause = false;
    }
  };
  TrainConfig c = blobs_config(2);
  c.max_steps = 5;
  c.batch_size = 300;
  const auto data = blobs();
  const int64_t steps_per_epoch = (data->size(Split::kTrain) + 299) / 300;
  ASSERT_LE(steps_per_epoch, 2);
  Trainer t(c, data);
  Pauser rec;
  TrainControl control;
  control.pace = 5;
  rec.control = &control;
  const auto fin = t.run(rec, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  ASSERT_EQ(rec.steps.size(), 5u);
  double step_seconds = 0;
  for (const auto& m : rec.steps) {
    const StepTimeline& tl = m.timeline;
    ASSERT_EQ(tl.replicas.size(), 2u) << "step " << m.global_step;
    EXPECT_EQ(tl.global_step, m.global_step);  // one process: the step itself
    for (const auto& s : tl.idle) {
      EXPECT_LT(s.begin, s.end);
      EXPECT_LE(s.end, 0) << idle_kind_name(s.kind) << " before step " << m.global_step;  // before the step
      for (const auto& r : tl.replicas) EXPECT_GE(r.started, s.end);  // never compute or all-reduce
    }
    auto idle_ms = [&](IdleKind kind) {
      double ms = 0;
      for (const auto& s : tl.idle) ms += s.kind == kind ? s.end - s.begin : 0;
      return ms;
    };
    // The pause came before step 4, and lasted at least the 150 ms the sink slept.
    if (m.global_step == 4) EXPECT_GE(idle_ms(IdleKind::kPause), 150) << "step 4";
    else EXPECT_EQ(idle_ms(IdleKind::kPause), 0) << "step " << m.global_step;
    EXPECT_EQ(idle_ms(IdleKind::kEvaluation) > 0, m.global_step > 1 && (m.global_step - 1) % steps_per_epoch == 0)
        << "step " << m.global_step;
    EXPECT_EQ(m.pause_seconds >= 0.15, m.global_step >= 4) << "step " << m.global_step;
    // Throughput is the step's samples over its training time; the waits are left out of it.
    step_seconds += m.step_seconds;
    EXPECT_NEAR(m.train_seconds, step_seconds, 1e-9);
    EXPECT_DOUBLE_EQ(m.samples_per_sec, static_cast<double>(m.samples) / m.step_seconds);
    EXPECT_LE(m.train_seconds + m.pace_seconds + m.pause_seconds, m.wall_seconds) << "step " << m.global_step;
  }
  // The pace waited before some step (each is due 200 ms after the one before), and the waits add up.
  double pace_ms = 0;
  for (const auto& m : rec.steps)
    for (const auto& s : m.timeline.idle) pace_ms += s.kind == IdleKind::kPace ? s.end - s.begin : 0;
  EXPECT_GT(pace_ms, 0);
  EXPECT_NEAR(rec.steps.back().pace_seconds, pace_ms / 1000.0, 1e-3);
}

TEST(Trainer, EachStepNamesTheFirstExamplesOfEveryReplicasShard) {
  // 3 replicas of a global batch of 50: shards of 17, 17 and 16, cut from the epoch's shuffled
  // order; the epoch's last batch is short and cut the same way.
  const TrainConfig c = blobs_config(3);
  const auto data = blobs();
  Trainer t(c, data);
  Recorder rec;
  TrainControl control;
  ASSERT_EQ(t.run(rec, control).status, RunStatus::kFinished);
  const int64_t n = data->size(Split::kTrain);
  for (const StepMetrics& m : rec.steps) {
    const std::vector<int64_t> order = Rng(c.seed, static_cast<uint64_t>(m.epoch)).permutation(n);
    const int64_t begin = (m.step - 1) * c.batch_size;
    const ShardPlan plan(m.samples, 3);
    ASSERT_EQ(m.shard_examples.size(), 3u) << "step " << m.global_step;
    for (int r = 0; r < 3; ++r) {
      const auto first = order.begin() + begin + plan.offset(r);
      const std::vector<int64_t> expected(first, first + std::min<int64_t>(plan.size(r), kShardExamplesShown));
      EXPECT_EQ(m.shard_examples[static_cast<size_t>(r)], expected) << "step " << m.global_step << ", replica " << r;
      EXPECT_EQ(m.replicas[static_cast<size_t>(r)].shard_size, plan.size(r));
    }
  }
  EXPECT_NE(rec.steps.front().shard_examples, rec.steps[1].shard_examples);
}

TEST(Trainer, MaxStepsEndsTheRunEarly) {
  TrainConfig c = blobs_config(3);
  c.max_steps = 7;
  Trainer t(c, blobs());
  Recorder rec;
  TrainControl control;
  const auto fin = t.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kFinished);
  EXPECT_EQ(fin.steps, 7);
  ASSERT_EQ(rec.epochs.size(), 1u);
  EXPECT_EQ(rec.epochs[0].steps, 7);
}

TEST(Trainer, NanLossFailsTheRunWithAReadableMessage) {
  auto clean = blobs();
  auto x = clean->slice(Split::kTrain, 0, 600).x.clone();
  x[3][0] = std::numeric_limits<float>::quiet_NaN();
  auto bad = std::make_shared<const Dataset>(clean->info(), x, clean->slice(Split::kTrain, 0, 600).y,
                                             clean->slice(Split::kValidation, 0, 200).x,
                                             clean->slice(Split::kValidation, 0, 200).y);
  Trainer t(blobs_config(2), bad);
  Recorder rec;
  TrainControl control;
  const auto fin = t.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kFailed);
  EXPECT_NE(fin.message.find("the loss became NaN at epoch 1"), std::string::npos) << fin.message;
  EXPECT_NE(fin.message.find("Lower the learning rate"), std::string::npos);
  EXPECT_EQ(rec.order.back(), "finished");
}

TEST(Trainer, AFailedSyncCheckEndsTheRunWithTheFailingCheckAndTheReplicaThatDiffers) {
  // The "Broken sync" lesson's run: nudged after step 7, caught by the check after step 10.
  TrainConfig c = blobs_config(3);
  c.strategy.sync_check_every = 5;
  c.strategy.perturb_replica_at_step = 7;
  Trainer t(c, blobs());
  Recorder rec;
  TrainControl control;
  const auto fin = t.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kFailed);
  EXPECT_NE(fin.message.find("out of sync after step 10: replica 2 differs from replica 0"), std::string::npos)
      << fin.message;
  // The failing check reached no step event (the last checked step is 5, and it passed) ...
  ASSERT_EQ(rec.steps.size(), 9u);
  EXPECT_TRUE(rec.steps[4].sync_checked);
  // ... so the finish event carries it: its step and every replica's checksum, the last one off.
  EXPECT_EQ(fin.sync_failed_step, 10);
  ASSERT_EQ(fin.sync_failed_checksums.size(), 3u);
  EXPECT_EQ(fin.sync_failed_checksums[1], fin.sync_failed_checksums[0]);
  EXPECT_NE(fin.sync_failed_checksums[2], fin.sync_failed_checksums[0]);
  EXPECT_EQ(rec.finished.sync_failed_step, 10);
  // A run that finishes carries none.
  Trainer fine(blobs_config(2), blobs());
  Recorder rec2;
  TrainControl control2;
  EXPECT_EQ(fine.run(rec2, control2).sync_failed_step, 0);
}

TEST(Trainer, AFailingAllReduceFailsTheRunAtThatStepWithItsMessage) {
  const auto fake = register_fake_communicator(FaultPlan{/*rank=*/1, /*fail_at_call=*/4, 0, 0});
  TrainConfig c = blobs_config(2);
  c.strategy.communicator = "fake";
  Trainer t(c, blobs());
  Recorder rec;
  TrainControl control;
  const auto fin = t.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kFailed);
  EXPECT_NE(fin.message.find("injected failure in collective 4 on rank 1"), std::string::npos) << fin.message;
  EXPECT_EQ(fin.steps, 3);  // steps 1-3 happened; the 4th never completed
  EXPECT_EQ(rec.steps.size(), 3u);
  EXPECT_EQ(rec.order.back(), "finished");
}

TEST(Trainer, AStalledReplicaShowsAsAllReduceWaitOnTheOthers) {
  const auto fake = register_fake_communicator(FaultPlan{/*rank=*/1, 0, /*delay_at_call=*/2, /*delay_ms=*/80});
  TrainConfig c = blobs_config(2);
  c.strategy.communicator = "fake";
  c.max_steps = 3;
  Trainer t(c, blobs());
  Recorder rec;
  TrainControl control;
  const auto fin = t.run(rec, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_EQ(rec.started.communicator, "fake");
  ASSERT_EQ(rec.steps.size(), 3u);
  // Replica 0 waited for replica 1 (bounds well below the 80 ms injected, for a loaded machine).
  EXPECT_GE(rec.steps[1].replicas[0].allreduce_ms, 40);
  EXPECT_GE(rec.steps[1].step_seconds, 0.04);
}

TEST(Trainer, ImpossibleConfigsAreRejectedBeforeTraining) {
  TrainConfig c = blobs_config(2);
  c.batch_size = 0;
  EXPECT_NE(config_error(c).find("invalid batch size: 0"), std::string::npos);
  c = blobs_config(2);
  c.epochs = 0;
  EXPECT_NE(config_error(c).find("invalid epochs: 0"), std::string::npos);
  c = blobs_config(4);
  c.batch_size = 3;
  EXPECT_NE(config_error(c).find("smaller than the 4 replicas"), std::string::npos);
  c = blobs_config(2);
  c.optimizer.learning_rate = -0.5;
  EXPECT_NE(config_error(c).find("invalid learning rate: -0.5"), std::string::npos);
  c = blobs_config(2);
  c.devices.devices = "cuda:3";
  EXPECT_NE(config_error(c).find("available: cpu:0"), std::string::npos);
  c = blobs_config(2);
  c.model = find_preset("seed-reuters").model;  // a text model on 2-D points
  EXPECT_NE(config_error(c).find("does not fit dataset 'blobs'"), std::string::npos);
}

namespace {
// Losses of every step and the final parameters of a run on blobs with dropout (so the dropout
// streams must be restored too).
struct Trace {
  std::vector<std::pair<int64_t, double>> losses;  // (global step, loss)
  torch::Tensor params;
  RunFinished fin;
};

Trace run_blobs(const std::string& checkpoint_dir, int64_t max_steps, const std::string& resume_from) {
  TrainConfig c = blobs_config(2);
  c.strategy.deterministic = true;
  LayerSpec drop;
  drop.kind = LayerKind::kDropout;
  drop.rate = 0.3;
  c.model.layers.insert(c.model.layers.begin() + 1, drop);
  c.max_steps = max_steps;
  c.checkpoints.every_steps = 5;
  Trainer t(c, blobs());
  CheckpointFolder folder(checkpoint_dir, c.checkpoints.keep_last);
  if (!checkpoint_dir.empty()) t.save_checkpoints(&folder);
  if (!resume_from.empty()) t.resume(read_checkpoint(resume_from));
  Recorder rec;
  TrainControl control;
  Trace trace;
  trace.fin = t.run(rec, control);
  for (const auto& s : rec.steps) trace.losses.emplace_back(s.global_step, s.loss);
  trace.params = t.strategy().replica_parameters(1).clone();
  return trace;
}
}  // namespace

TEST(Trainer, ResumedRunContinuesWithExactlyTheUninterruptedNumbers) {
  const auto dir = std::filesystem::temp_directory_path() / ("mirror-resume-" + std::to_string(::getpid()));
  mirror::testing::remove_tree(dir);
  const Trace whole = run_blobs("", 0, "");
  ASSERT_EQ(whole.fin.status, RunStatus::kFinished) << whole.fin.message;
  ASSERT_EQ(whole.losses.size(), 36u);
  // Stop at step 17, mid-epoch 2 (12 steps per epoch), then resume from its checkpoint.
  const Trace first = run_blobs(dir.string(), 17, "");
  ASSERT_EQ(first.fin.steps, 17);
  const auto resumed = run_blobs(dir.string(), 0, (dir / "ckpt-17.pt").string());
  ASSERT_EQ(resumed.fin.status, RunStatus::kFinished) << resumed.fin.message;
  ASSERT_EQ(resumed.losses.size(), 36u - 17u);
  for (size_t i = 0; i < resumed.losses.size(); ++i) {
    EXPECT_EQ(resumed.losses[i].first, whole.losses[17 + i].first);
    EXPECT_EQ(resumed.losses[i].second, whole.losses[17 + i].second) << "step " << resumed.losses[i].first;  // bit for bit
  }
  EXPECT_TRUE(torch::equal(resumed.params, whole.params));
  EXPECT_EQ(resumed.fin.param_l2_norm, whole.fin.param_l2_norm);
  // Checkpoints were pruned to the newest three, and the best one kept apart.
  EXPECT_LE(list_checkpoints(dir.string()).size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir / "best.pt"));
  // A damaged checkpoint is refused with the file's name.
  const auto bad = (dir / "broken.pt").string();
  std::filesystem::copy_file(dir / "best.pt", bad);
  std::filesystem::resize_file(bad, std::filesystem::file_size(bad) / 2);
  try {
    read_checkpoint(bad);
    FAIL() << "a truncated checkpoint must not load";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.pt"), std::string::npos) << e.what();
  }
  mirror::testing::remove_tree(dir);
}

