#include <gtest/gtest.h>
#include <torch/torch.h>

#include "mirror/data/batch.h"
#include "mirror/data/synthetic.h"
#include "mirror/model/presets.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "test_fixtures.h"
#include "test_helpers.h"
#include "trajectory.h"

using namespace mirror;
using mirror::testing::small_text;
using mirror::testing::small_text_model;
using mirror::testing::relative;
using mirror::testing::Trajectory;
using mirror::testing::train_trajectory;

namespace {
std::vector<LogicalDevice> cpu_replicas(int n) { return resolve_devices({"cpu", n, 0}, list_physical_devices()); }

Trajectory train(int replicas, const std::string& comm, const OptimizerConfig& opt, int steps, int64_t batch) {
  MirroredOptions mo;
  mo.communicator = replicas > 1 ? comm : "auto";
  mo.sync_check_every = 5;
  return train_trajectory(cpu_replicas(replicas), opt, mo, steps, batch);
}
}  // namespace

class MirroredEquivalence : public ::testing::TestWithParam<std::string> {};

TEST_P(MirroredEquivalence, OneTwoThreeAndFourReplicasFollowTheSameTrajectory) {
  // Global batch 26 splits unevenly over 3 (9, 9, 8) and 4 (7, 7, 6, 6) replicas.
  for (const char* optimizer : {"sgd", "nadam"}) {
    OptimizerConfig opt;
    opt.name = optimizer;
    opt.learning_rate = 0.05;
    if (opt.name == "sgd") opt.momentum = 0.9;
    const Trajectory one = train(1, GetParam(), opt, 20, 26);
    for (int n : {2, 3, 4}) {
      const Trajectory many = train(n, GetParam(), opt, 20, 26);
      for (size_t s = 0; s < one.losses.size(); ++s)
        EXPECT_NEAR(many.losses[s], one.losses[s], 1e-5 * std::abs(one.losses[s]))
            << optimizer << ", " << n << " replicas, step " << s;
      EXPECT_LT(relative(many.params, one.params), 1e-5) << optimizer << ", " << n << " replicas";
    }
    // The run actually learned something, so equal trajectories are not trivially equal.
    EXPECT_LT(one.losses.back(), one.losses.front()) << optimizer;
  }
}

INSTANTIATE_TEST_SUITE_P(Communicators, MirroredEquivalence,
                         mirror::testing::multi_replica_communicators(), mirror::testing::communicator_test_name);

TEST(Mirrored, UnevenSplitGivesExactlyTheGlobalMeanGradient) {
  // One plain SGD step with lr 1 moves the parameters by minus the gradient of the mean loss over
  // the global batch. Scaling by shard size instead of global size would be off by 10/4 or 10/3.
  OptimizerConfig opt;
  opt.name = "sgd";
  opt.learning_rate = 1.0;
  const Trajectory one = train(1, "shared-memory", opt, 1, 10);
  const Trajectory three = train(3, "shared-memory", opt, 1, 10);  // shards 4, 3, 3
  EXPECT_LT(relative(three.params, one.params), 1e-6);
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  MirroredStrategy s(cpu_replicas(1), analysis, opt, {}, 7);
  const auto before = s.replica_parameters(0).clone();
  const auto step = (one.params - before).abs().max().item<double>();
  EXPECT_GT(step, 1e-4);  // the step is real, so the comparison above means something
}

TEST(Mirrored, SyncCheckCatchesAPerturbedReplica) {
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  OptimizerConfig opt;
  MirroredOptions mo;
  mo.sync_check_every = 1;
  MirroredStrategy s(cpu_replicas(3), analysis, opt, mo, 7);
  const auto batch = data->slice(Split::kTrain, 0, 12);
  const StepResult first = s.train_step(batch);
  // Each replica's checksum is reported with the checked step: equal, and moved by the update.
  ASSERT_TRUE(first.sync_checked);
  ASSERT_EQ(first.checksums.size(), 3u);
  EXPECT_EQ(first.checksums[1], first.checksums[0]);
  EXPECT_EQ(first.checksums[2], first.checksums[0]);
  const StepResult second = s.train_step(batch);
  ASSERT_EQ(second.checksums.size(), 3u);
  EXPECT_NE(second.checksums[0], first.checksums[0]);
  EXPECT_EQ(s.check_sync(), second.checksums);
  {
    torch::NoGradGuard no_grad;
    s.replica_parameters(2)[17] += 1e-6f;  // one parameter, one replica, a tiny nudge
  }
  try {
    s.check_sync();
    FAIL() << "perturbed replica not detected";
  } catch (const SyncError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("replica 2 differs from replica 0 in 1 of"), std::string::npos) << msg;
    // Every replica's checksum, not only those before the one that differs: 0 and 1 agree as
    // at the last passing check, 2 differs.
    ASSERT_EQ(e.checksums().size(), 3u);
    EXPECT_EQ(e.checksums()[0], second.checksums[0]);
    EXPECT_EQ(e.checksums()[1], second.checksums[0]);
    EXPECT_NE(e.checksums()[2], second.checksums[0]);
    EXPECT_EQ(e.differing_replicas(), std::vector<int>{2});
    EXPECT_EQ(e.step(), 2);
  }
  // The per-step check fails the step too (the nudge survives identical updates).
  EXPECT_THROW(s.train_step(batch), SyncError);
}

TEST(Mirrored, PerturbReplicaAtStepNudgesTheLastReplicaOnceAndTheNextCheckCatchesIt) {
  // The "Broken sync" lesson's flag: nothing differs up to the step, the check after it fails.
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  MirroredOptions mo;
  mo.sync_check_every = 4;
  mo.perturb_replica_at_step = 3;
  MirroredStrategy s(cpu_replicas(2), analysis, OptimizerConfig{}, mo, 7);
  const auto batch = data->slice(Split::kTrain, 0, 12);
  s.train_step(batch);
  s.train_step(batch);
  EXPECT_TRUE(torch::equal(s.replica_parameters(0), s.replica_parameters(1)));
  s.train_step(batch);  // step 3: nudged after its update
  EXPECT_FALSE(torch::equal(s.replica_parameters(0), s.replica_parameters(1)));
  try {
    s.train_step(batch);  // step 4: checked
    FAIL() << "the nudge was not caught";
  } catch (const SyncError& e) {
    EXPECT_NE(std::string(e.what()).find("out of sync after step 4: replica 1 differs from replica 0 in 1 of"),
              std::string::npos) << e.what();
    // The error carries the failing check itself: its step and every replica's checksum.
    EXPECT_EQ(e.step(), 4);
    ASSERT_EQ(e.checksums().size(), 2u);
    EXPECT_NE(e.checksums()[1], e.checksums()[0]);
    EXPECT_EQ(e.differing_replicas(), std::vector<int>{1});
  }
  // With one replica there is no copy to drift from: refused rather than silently useless.
  EXPECT_THROW(MirroredStrategy(cpu_replicas(1), analysis, OptimizerConfig{}, mo, 7), ConfigError);
}

TEST(Mirrored, ReplicasStartIdenticalAndReportTimings) {
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  MirroredStrategy s(cpu_replicas(2), analysis, OptimizerConfig{}, {}, 7);
  EXPECT_TRUE(torch::equal(s.replica_parameters(0), s.replica_parameters(1)));
  EXPECT_EQ(s.num_parameters(), analysis.total_params);
  const auto r = s.train_step(data->slice(Split::kTrain, 0, 9));
  ASSERT_EQ(r.replicas.size(), 2u);
  EXPECT_EQ(r.replicas[0].shard_size, 5);
  EXPECT_EQ(r.replicas[1].shard_size, 4);
  EXPECT_GT(r.replicas[0].compute_ms, 0);
  EXPECT_GE(r.replicas[1].allreduce_ms, 0);
  EXPECT_EQ(s.communicator().name, "shared-memory");
  const auto e = s.evaluate(data->slice(Split::kValidation, 0, 50));
  EXPECT_EQ(e.sums.samples, 50);
  EXPECT_LE(e.sums.correct, e.sums.top_k_correct);
}

TEST(Mirrored, AFailingReplicaFailsTheStepWithoutHangingTheOthers) {
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  MirroredStrategy s(cpu_replicas(3), analysis, OptimizerConfig{}, {}, 7);
  auto batch = data->slice(Split::kTrain, 0, 9);
  batch.x = batch.x.clone();
  batch.x[7][3] = 100000;  // a token id outside the embedding table, in replica 2's shard only
  try {
    s.train_step(batch);
    FAIL() << "bad token id not detected";
  } catch (const CollectiveAborted&) {
    FAIL() << "the root cause should be reported, not the abort it caused";
  } catch (const std::exception& e) {
    SUCCEED() << e.what();
  }
  // The strategy is still usable afterwards.
  EXPECT_NO_THROW(s.train_step(data->slice(Split::kTrain, 0, 9)));
}
